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

type Next = {row: KeyedRow; prepared: PreparedRow} | {row: KeyedRow; error: unknown} | {fatal: unknown} | undefined

/** A failure that stops the whole import (a trail that cannot be written; an error not of payops'). */
const stops = (err: unknown) => !(err instanceof PayopsError) || err instanceof AuditTrailError

function emptyResult(alreadyDone: number, doneTotals: Record<string, number>): ImportResult {
  return {
    created: 0,
    replayed: 0,
    advanced: 0,
    already_done: alreadyDone,
    partial: 0,
    awaiting_approval: 0,
    failed: 0,
    not_sent: 0,
    interrupted: false,
    total_this_run: {},
    total_overall: {...doneTotals},
    total_not_settled: {},
    total_awaiting_approval: {},
    total_unknown: {},
    failures: [],
    not_settled: [],
    awaiting: [],
  }
}

/** One run of an import: its slots take rows in file order, send them, and count and journal each outcome. */
class ImportRun {
  readonly result: ImportResult
  private readonly todoCount: number
  private readonly it: AsyncIterator<KeyedRow> | Iterator<KeyedRow>
  private exhausted = false
  private completed: number
  private finished = 0
  private taken = 0
  /** The first error that stops the import (the others stop taking rows, their sends finish). */
  private fatal: {err: unknown} | undefined
  private readonly prepareRow: (row: KeyedRow) => Promise<PreparedRow>

  constructor(
    private readonly send: RowSender,
    source: RowSource,
    private readonly journal: Journal,
    private readonly opts: RunOptions,
  ) {
    this.result = emptyResult(source.alreadyDone, source.doneTotals)
    this.todoCount = source.total - source.alreadyDone
    this.it = Symbol.asyncIterator in source.rows ? source.rows[Symbol.asyncIterator]() : source.rows[Symbol.iterator]()
    this.completed = this.result.already_done
    this.prepareRow = send.prepare ?? (async (row: KeyedRow): Promise<PreparedRow> => ({send: () => send(row), abandon: async () => undefined}))
  }

  async run(): Promise<ImportResult> {
    const {result, opts} = this
    opts.onProgress?.(this.completed)
    try {
      await Promise.all(Array.from({length: Math.max(1, Math.min(opts.concurrency, this.todoCount || 1))}, () => this.worker()))
    } finally {
      // Closes the file of a streamed source that was not read to its end, and waits for the audit
      // records of the rows sent.
      await this.it.return?.()
      await this.send.drain?.()
    }
    if (this.fatal) throw this.fatal.err
    if (!this.exhausted && this.taken < this.todoCount) result.interrupted = true
    result.not_sent = this.todoCount - this.finished
    result.failures.sort((a, b) => a.line - b.line)
    for (const list of [result.not_settled, result.awaiting]) list.sort((a, b) => a.line - b.line)
    return result
  }

  /** The next row, its intent on record; undefined when there is none or the run stops. Never rejects. */
  private async next(): Promise<Next> {
    if (this.exhausted || this.taken >= this.todoCount || this.fatal) return undefined
    if (this.opts.signal?.aborted) {
      this.result.interrupted = true
      return undefined
    }
    let step: IteratorResult<KeyedRow>
    try {
      step = await this.it.next()
    } catch (err) {
      return {fatal: err}
    }
    if (step.done) {
      this.exhausted = true
      return undefined
    }
    this.taken++
    try {
      return {row: step.value, prepared: await this.prepareRow(step.value)}
    } catch (err) {
      return {row: step.value, error: err}
    }
  }

  private fail(row: KeyedRow, err: unknown): void {
    const {result} = this
    // A trail that cannot be written stops the whole import: nothing more is sent.
    if (stops(err)) {
      this.fatal ??= {err}
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
    this.journal.record(row, {state: 'failed', error_status: failure.status, error_code: failure.error_code, message: failure.message})
  }

  /** Counts a row's outcome by where its move stands: only a settled move is money moved. */
  private tally(row: KeyedRow, outcome: RowOutcome): void {
    const {result} = this
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
    this.journal.record(row, {state: state === 'open' ? 'open' : 'done', kind: outcome.kind, move_id: moved.move_id, move_status: status, http_status: outcome.httpStatus, ...(outcome.warning ? {warning: outcome.warning} : {})})
  }

  private async worker(): Promise<void> {
    try {
      await this.work()
    } catch (err) {
      this.fatal ??= {err}
    }
  }

  /**
   * One slot of the concurrency: sends a row, and while it is in flight takes the next ones
   * (AHEAD of them) and records their intents, so that a slot refills as soon as its answer is
   * read and the intents of many rows share one group commit of the audit trail.
   */
  private async work(): Promise<void> {
    const upcoming: Array<Promise<Next>> = Array.from({length: AHEAD}, () => this.next())
    try {
      await this.slot(upcoming)
    } finally {
      // Rows taken and their intents recorded, but the run stopped first: never sent.
      for (const later of await Promise.all(upcoming)) if (later && 'prepared' in later) await later.prepared.abandon('not_sent')
    }
  }

  private async slot(upcoming: Array<Promise<Next>>): Promise<void> {
    const {opts} = this
    for (;;) {
      const cur = await upcoming.shift()!
      if (!cur) return
      if ('fatal' in cur) {
        this.fatal ??= {err: cur.fatal}
        return
      }
      if ('error' in cur) {
        this.fail(cur.row, cur.error)
        if (this.fatal) return
        this.finished++
        opts.onProgress?.(++this.completed)
        upcoming.push(this.next())
        continue
      }
      const {row, prepared} = cur
      if (this.fatal || opts.signal?.aborted) {
        // Taken and its intent recorded, but the run stopped first: never sent.
        if (opts.signal?.aborted) this.result.interrupted = true
        await prepared.abandon('not_sent')
        return
      }
      this.journal.record(row, {state: 'sent'})
      const sending = prepared.send()
      upcoming.push(this.next())
      try {
        this.tally(row, await sending)
      } catch (err) {
        this.fail(row, err)
      }
      if (!this.fatal) this.finished++
      if (!this.fatal) opts.onProgress?.(++this.completed)
    }
  }
}

/** Sends the rows not done yet with bounded concurrency, journaling every key and outcome. */
export async function runImport(send: RowSender, source: RowSource, journal: Journal, opts: RunOptions): Promise<ImportResult> {
  return new ImportRun(send, source, journal, opts).run()
}
