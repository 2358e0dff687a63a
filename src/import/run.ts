/** Sends the rows of an import with bounded concurrency, journaling every key and outcome. */
import {ApiError, AuditTrailError, NetworkError, PayopsError} from '../errors.js'
import {settlementOf, type KeyedRow, type PreparedRow, type RowOutcome, type RowSender} from './send.js'
import type {ImportStore} from './store.js'

export type {KeyedRow} from './send.js'

export interface Failure extends Record<string, unknown> {
  line: number
  key: string
  status?: number
  error_code?: string
  message: string
  /** Its answer was lost (5xx, network): the move may have been made. */
  outcome_unknown?: boolean
}

/** A row whose move exists but did not settle: approval or settlement failed, or it awaits approval. */
export interface RowMove extends Record<string, unknown> {
  line: number
  key: string
  move_id: string
  status: string
  amount_in_minor_units: number
  currency: string
  warning?: string
}

/**
 * The counts of a run, one per row of the file: created + replayed + advanced (settled moves) +
 * partial + awaiting_approval (this run's other outcomes) + already_done (journaled as done
 * before) + failed + not_sent = rows. Money is "moved" only when it settled.
 */
export interface ImportResult {
  /** This run made the move, and it settled. */
  created: number
  /** The API already had the move, settled (an earlier run made it, its answer was lost): nothing moved now. */
  replayed: number
  /** The API already had the move, and this replay moved it on to settled. */
  advanced: number
  /** Done in an earlier run (from the journal); not sent again. */
  already_done: number
  /** The move exists but approval or settlement failed: approved (or created), not settled. */
  partial: number
  /** auto_approve=false: the move was created as asked and awaits approval; nothing moved. */
  awaiting_approval: number
  /** The API refused the row, or it could not be sent after retries. */
  failed: number
  /** Not sent: the run was interrupted first. */
  not_sent: number
  interrupted: boolean
  /** Per currency, in minor units: the money this run settled (created or advanced): the ledger's change. */
  total_this_run: Record<string, number>
  /** Per currency: every settled move of the file (this run's, replays of earlier runs', those done before). */
  total_overall: Record<string, number>
  /** This run's rows whose move exists but did not settle (partial). */
  total_not_settled: Record<string, number>
  /** This run's rows created awaiting approval (those of earlier runs are in already_done). */
  total_awaiting_approval: Record<string, number>
  /** Failed rows whose answer was lost (5xx, network): their moves may have been made. */
  total_unknown: Record<string, number>
  failures: Failure[]
  not_settled: RowMove[]
  /** The first rows created awaiting approval (to name them). */
  awaiting: RowMove[]
}

export interface RunOptions {
  concurrency: number
  signal?: AbortSignal
  onProgress?: (completed: number) => void
}

/** Rows each slot takes and records the intent of ahead of the one it is sending. */
const AHEAD = 2

function add(totals: Record<string, number>, r: {currency: string; amount_in_minor_units: number}): void {
  totals[r.currency] = (totals[r.currency] ?? 0) + r.amount_in_minor_units
}

/**
 * The rows to send, streamed: `rows` yields the rows not done yet, in file order; `total` counts
 * every row of the file, `alreadyDone` those the journal records as done (with `doneTotals`).
 */
export interface RowSource {
  rows: AsyncIterable<KeyedRow> | Iterable<KeyedRow>
  total: number
  alreadyDone: number
  /** Per currency: the rows done before whose moves settled. */
  doneTotals: Record<string, number>
}

/** The journal a run records each row's key and outcome in. */
export type Journal = Pick<ImportStore, 'record'>

export async function runImport(send: RowSender, source: RowSource, journal: Journal, opts: RunOptions): Promise<ImportResult> {
  const result: ImportResult = {
    created: 0,
    replayed: 0,
    advanced: 0,
    already_done: source.alreadyDone,
    partial: 0,
    awaiting_approval: 0,
    failed: 0,
    not_sent: 0,
    interrupted: false,
    total_this_run: {},
    total_overall: {...source.doneTotals},
    total_not_settled: {},
    total_awaiting_approval: {},
    total_unknown: {},
    failures: [],
    not_settled: [],
    awaiting: [],
  }
  const todoCount = source.total - source.alreadyDone
  const it = Symbol.asyncIterator in source.rows ? source.rows[Symbol.asyncIterator]() : source.rows[Symbol.iterator]()
  let exhausted = false
  let completed = result.already_done
  opts.onProgress?.(completed)
  let finished = 0
  let taken = 0
  // The first error that stops the import (the others stop taking rows, their sends finish).
  let fatal: {err: unknown} | undefined
  const stops = (err: unknown) => !(err instanceof PayopsError) || err instanceof AuditTrailError
  const prepareRow = send.prepare ?? (async (row: KeyedRow): Promise<PreparedRow> => ({send: () => send(row), abandon: async () => undefined}))
  type Next = {row: KeyedRow; prepared: PreparedRow} | {row: KeyedRow; error: unknown} | {fatal: unknown} | undefined

  /** The next row, its intent on record; undefined when there is none or the run stops. Never rejects. */
  const next = async (): Promise<Next> => {
    if (exhausted || taken >= todoCount || fatal) return undefined
    if (opts.signal?.aborted) {
      result.interrupted = true
      return undefined
    }
    let step: IteratorResult<KeyedRow>
    try {
      step = await it.next()
    } catch (err) {
      return {fatal: err}
    }
    if (step.done) {
      exhausted = true
      return undefined
    }
    taken++
    try {
      return {row: step.value, prepared: await prepareRow(step.value)}
    } catch (err) {
      return {row: step.value, error: err}
    }
  }

  const fail = (row: KeyedRow, err: unknown) => {
    // A trail that cannot be written stops the whole import: nothing more is sent.
    if (stops(err)) {
      fatal ??= {err}
      return
    }
    const e = err as PayopsError
    const failure: Failure = {
      line: row.line,
      key: row.key,
      message: e instanceof ApiError ? e.describe() : e.message,
      ...(e instanceof ApiError ? {status: e.status, error_code: e.errorCode} : {}),
    }
    // The answer was lost: the move may have been made (a re-run with the same key finds out).
    if (e instanceof NetworkError || (e instanceof ApiError && e.status >= 500) || (e as {earlierAttemptUncertain?: boolean}).earlierAttemptUncertain) {
      failure.outcome_unknown = true
      add(result.total_unknown, row)
    }
    result.failed++
    result.failures.push(failure)
    journal.record(row, {state: 'failed', error_status: failure.status, error_code: failure.error_code, message: failure.message})
  }

  /** Counts a row's outcome by where its move stands: only a settled move is money moved. */
  const tally = (row: KeyedRow, outcome: RowOutcome) => {
    const state = settlementOf(outcome, row)
    const status = state === 'awaiting' ? 'created' : (outcome.move.status?.toLowerCase() ?? (state === 'settled' ? 'settled' : 'unknown'))
    const moved: RowMove = {line: row.line, key: row.key, move_id: outcome.move.id, status, amount_in_minor_units: row.amount_in_minor_units, currency: row.currency, ...(outcome.warning ? {warning: outcome.warning} : {})}
    if (state === 'settled') {
      result[outcome.kind]++
      if (outcome.kind !== 'replayed') add(result.total_this_run, row)
      add(result.total_overall, row)
    } else if (state === 'awaiting') {
      result.awaiting_approval++
      add(result.total_awaiting_approval, row)
      if (result.awaiting.length < 5) result.awaiting.push(moved)
    } else {
      result.partial++
      add(result.total_not_settled, row)
      result.not_settled.push(moved)
    }
    journal.record(row, {state: state === 'open' ? 'open' : 'done', kind: outcome.kind, move_id: moved.move_id, move_status: status, http_status: outcome.httpStatus, ...(outcome.warning ? {warning: outcome.warning} : {})})
  }

  const worker = async () => {
    try {
      await work()
    } catch (err) {
      fatal ??= {err}
    }
  }

  /**
   * One slot of the concurrency: sends a row, and while it is in flight takes the next ones
   * (AHEAD of them) and records their intents, so that a slot refills as soon as its answer is
   * read and the intents of many rows share one group commit of the audit trail.
   */
  const work = async () => {
    const upcoming: Array<Promise<Next>> = Array.from({length: AHEAD}, next)
    try {
      await slot(upcoming)
    } finally {
      // Rows taken and their intents recorded, but the run stopped first: never sent.
      for (const later of await Promise.all(upcoming)) if (later && 'prepared' in later) await later.prepared.abandon('not_sent')
    }
  }

  const slot = async (upcoming: Array<Promise<Next>>) => {
    for (;;) {
      const cur = await upcoming.shift()!
      if (!cur) return
      if ('fatal' in cur) {
        fatal ??= {err: cur.fatal}
        return
      }
      if ('error' in cur) {
        fail(cur.row, cur.error)
        if (fatal) return
        finished++
        opts.onProgress?.(++completed)
        upcoming.push(next())
        continue
      }
      const {row, prepared} = cur
      if (fatal || opts.signal?.aborted) {
        // Taken and its intent recorded, but the run stopped first: never sent.
        if (opts.signal?.aborted) result.interrupted = true
        await prepared.abandon('not_sent')
        return
      }
      journal.record(row, {state: 'sent'})
      const sending = prepared.send()
      upcoming.push(next())
      try {
        tally(row, await sending)
      } catch (err) {
        fail(row, err)
      }
      if (!fatal) finished++
      if (!fatal) opts.onProgress?.(++completed)
    }
  }
  try {
    await Promise.all(Array.from({length: Math.max(1, Math.min(opts.concurrency, todoCount || 1))}, worker))
  } finally {
    // Closes the file of a streamed source that was not read to its end, and waits for the audit
    // records of the rows sent.
    await it.return?.()
    await send.drain?.()
  }
  if (fatal) throw fatal.err
  if (!exhausted && taken < todoCount) result.interrupted = true
  result.not_sent = todoCount - finished
  result.failures.sort((a, b) => a.line - b.line)
  for (const list of [result.not_settled, result.awaiting]) list.sort((a, b) => a.line - b.line)
  return result
}
