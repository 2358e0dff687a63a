/** Sends the rows of an import with bounded concurrency, journaling every key and outcome. */
import {ApiError, AuditTrailError, PayopsError} from '../errors.js'
import type {KeyedRow, PreparedRow, RowSender} from './send.js'
import type {ImportStore} from './store.js'

export type {KeyedRow} from './send.js'

export interface Failure extends Record<string, unknown> {
  line: number
  key: string
  status?: number
  error_code?: string
  message: string
}

/**
 * The counts of a run, one per row of the file: created + replayed + advanced + partial (this
 * run's outcomes) + already_done (journaled as done before) + failed + not_sent = rows.
 */
export interface ImportResult {
  /** This run made the move. */
  created: number
  /** The API already had the move (an earlier run made it, its answer was lost). */
  replayed: number
  /** The API already had the move, and this replay moved it on (created -> settled). */
  advanced: number
  /** Done in an earlier run (from the journal); not sent again. */
  already_done: number
  /** The move exists but approval or settlement failed (207, with a warning). */
  partial: number
  /** The API refused the row, or it could not be sent after retries. */
  failed: number
  /** Not sent: the run was interrupted first. */
  not_sent: number
  interrupted: boolean
  /** Per currency, in minor units: the moves confirmed by this run (every outcome but failed). */
  total_this_run: Record<string, number>
  /** Per currency: this run's moves plus those done before. */
  total_overall: Record<string, number>
  failures: Failure[]
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
    failed: 0,
    not_sent: 0,
    interrupted: false,
    total_this_run: {},
    total_overall: {...source.doneTotals},
    failures: [],
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
    result.failed++
    result.failures.push(failure)
    journal.record(row, {state: 'failed', error_status: failure.status, error_code: failure.error_code, message: failure.message})
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
        const outcome = await sending
        if (outcome.warning) result.partial++
        else result[outcome.kind]++
        add(result.total_this_run, row)
        add(result.total_overall, row)
        journal.record(row, {state: 'done', kind: outcome.kind, move_id: outcome.move.id, move_status: outcome.move.status, http_status: outcome.httpStatus, ...(outcome.warning ? {warning: outcome.warning} : {})})
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
  return result
}
