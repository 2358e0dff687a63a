/**
 * `moves import`: lock, plan (read and validate the file into its database, key each row, compare
 * with the journal), read-only checks, run. Nothing is planned before the lock is taken, so two
 * imports of one file (by any path that names it) never plan, nor send, side by side.
 */
import {systemClock} from '../context/host.js'
import {randomUUID} from 'node:crypto'
import {existsSync, rmSync, statSync} from 'node:fs'
import type {Readable} from 'node:stream'
import type {Api} from '../api/index.js'
import {ApiError, UsageError} from '../errors.js'
import {readAll, realPathArg, sha256File} from '../files.js'
import {LockBusyError, lockDirOf, lockExclusive} from '../lock.js'
import {parseImportCsv, streamImportCsv, type RowError, type StreamedFile} from './csv.js'
import {runImport, type ImportResult, type RunOptions} from './run.js'
import type {RowSender} from './send.js'
import {ImportStore, type JournalRecord, type PlannedRow} from './store.js'
import type {ImportJournalEntry} from '../control/types.js'

export type {PlannedRow} from './store.js'

/** A record of the control store's journal as the per-file journal records it. */
function journalRecordOf(e: ImportJournalEntry): [Pick<PlannedRow, 'key' | 'fp' | 'line' | 'n'>, JournalRecord] {
  const row = {key: e.key, fp: e.fp, line: e.line, n: e.n}
  if (e.state === 'sent') return [row, {state: 'sent'}]
  if (e.state === 'failed') return [row, {state: 'failed', error_status: e.error_status ?? undefined, error_code: e.error_code ?? undefined, message: e.message ?? ''}]
  return [row, {state: e.state, kind: e.kind ?? 'created', move_id: e.move_id ?? '', move_status: e.move_status ?? '', http_status: e.http_status ?? 0, ...(e.warning ? {warning: e.warning} : {})}]
}

/** Where the database of an import of `file` is kept unless --journal names one. */
export const databasePathFor = (file: string) => `${file}.payops-import.sqlite`
/** The JSON-lines journal of earlier payops versions. */
const legacyJournalOf = (file: string) => `${file}.payops-journal.jsonl`

export interface PlanOptions {
  defaultCurrency: string
  newBatch?: boolean
  /** The database (and the journal in it); required for stdin. */
  journal?: string
  /** Where `-` reads from. */
  stdin?: Readable
  /**
   * Resume a batch of these rows that the control store holds (started elsewhere): plan with its
   * id (so each row has the key it was sent with) and take in its journal.
   */
  adopt?: {batchId: string; file: string; journal: readonly ImportJournalEntry[]}
}

/** What the control store does with a batch as it runs (src/import/batches.ts). */
export interface BatchHooks {
  /** Records the batch before its first row is sent. */
  begin(p: ImportPlan): Promise<void>
  record(row: Pick<PlannedRow, 'key' | 'fp' | 'line' | 'n'>, rec: JournalRecord): void
  /** Wraps the sender: a row is not sent once the store can no longer be written. */
  guard(send: RowSender): RowSender
  /** Waits for the records of the rows sent (throws when they could not be written). */
  drain(): Promise<void>
  finish(p: ImportPlan): Promise<void>
}

/** A validated import, keyed and compared with its journal, holding the file's lock; sends nothing until run(). */
export class ImportPlan {
  errors: RowError[] = []
  changed: RowError[] = []
  /** Lines of journaled rows that may have made a move and are no longer in the file. */
  missing: number[] = []
  /** --new-batch: lines of rows whose content the earlier batch already sent (sent again, as new moves). */
  duplicates: number[] = []
  /** Lines of rows whose content an earlier row of the file has too (each is a move of its own). */
  repeats: number[] = []
  /** Rows whose currency the checks set (a row in minor units takes its source's currency). */
  currenciesSet = 0
  isNewBatch = false
  /** The control store's part in the run (none: the per-file journal only). */
  hooks?: BatchHooks
  private closed = false

  constructor(
    readonly file: string,
    readonly store: ImportStore,
    readonly batchId: string,
    private readonly archive: boolean,
    private readonly release: () => Promise<void>,
  ) {}

  get journalPath(): string {
    return this.store.path
  }
  /** SHA-256 of the plan's normalised rows: the payroll's identity (src/import/digest.ts). */
  get digest(): string {
    return this.store.digest
  }
  /** The batch the per-file journal holds from an earlier run (undefined: none, or --new-batch sets it aside). */
  get journaledBatch(): string | undefined {
    return this.isNewBatch ? undefined : this.batchId
  }
  private figures?: ReturnType<ImportStore['summary']>
  /** The plan's counts and totals, read once (again only after the checks set currencies). */
  get summary(): ReturnType<ImportStore['summary']> {
    return (this.figures ??= this.store.summary())
  }
  get rowCount(): number {
    return this.summary.rows
  }
  get pendingCount(): number {
    return this.summary.pending
  }
  get alreadyDone(): number {
    return this.rowCount - this.pendingCount
  }
  /** Rows never sent before (their keys are not in the journal). */
  get fresh(): number {
    return this.summary.fresh
  }
  /** Takes in the records the control store holds of this batch beyond the per-file journal's. */
  absorb(entries: readonly ImportJournalEntry[]): void {
    this.store.absorb(entries.map(journalRecordOf))
    this.figures = undefined
  }
  /** The checks set the currency of rows in minor units: the totals are read again. */
  currenciesChanged(n: number): void {
    this.currenciesSet += n
    if (n) this.figures = undefined
  }
  pending(): Iterable<PlannedRow> {
    return this.store.pending()
  }

  /** Starts the batch (or the new one, setting the old aside) before the first row is sent. */
  begin(): void {
    if (!this.isNewBatch) return
    const archive = this.archive ? `${this.store.path}.${new Date(systemClock.now()).toISOString().replace(/[:.]/g, '-')}` : undefined
    this.store.startBatch(this.batchId, this.file, archive)
    this.isNewBatch = false
  }

  /**
   * Commits the journal, closes the database and releases the lock (once). A database in which no
   * batch was started (a refused or dry run of a new file) is removed: it recorded nothing sent.
   */
  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    closeStore(this.store)
    await this.release().catch(() => undefined)
  }
}

function closeStore(store: ImportStore): void {
  const empty = !store.batch()
  store.close()
  if (empty) for (const f of ['', '-wal', '-shm']) rmSync(store.path + f, {force: true})
}

/** The file's lock, keyed by its real path (stdin: the journal's). */
async function lock(target: string): Promise<() => Promise<void>> {
  try {
    return await lockExclusive(target, {stale: 4000, attempts: 13, waitMs: 500})
  } catch (err) {
    if (err instanceof LockBusyError) throw new UsageError(`Another payops import of ${target} is running (lock ${lockDirOf(target)}).`)
    throw err
  }
}

async function plan(file: string, opts: PlanOptions): Promise<ImportPlan> {
  const stdin = file === '-'
  if (stdin && !opts.journal) throw new UsageError('An import from stdin needs --journal FILE: the database that records what was sent, so that a re-run sends nothing twice.')
  const real = stdin ? undefined : realPathArg(file)
  const dbPath = opts.journal ?? databasePathFor(real!)
  if (!opts.journal && !existsSync(dbPath) && existsSync(legacyJournalOf(file))) {
    const how = 'Finish that import with the payops that wrote it, or name a new database with --journal and pass --new-batch to import the file again as a new batch (rows already sent would be sent again).'
    throw new UsageError(`${legacyJournalOf(file)} was written by an earlier payops (a JSON-lines journal). ${how}`)
  }
  const release = await lock(real ?? dbPath)
  let store: ImportStore | undefined
  try {
    store = ImportStore.open(dbPath)
    if (opts.adopt && !store.batch()) store.startBatch(opts.adopt.batchId, opts.adopt.file)
    const batch = store.batch()
    const newBatch = !batch || Boolean(opts.newBatch)
    const batchId = newBatch ? randomUUID() : batch.batch_id
    const p = new ImportPlan(file, store, batchId, Boolean(batch && opts.newBatch), release)
    let [kept, keep] = [false, undefined as (() => void) | undefined]
    p.isNewBatch = newBatch
    if (newBatch) store.ignoreJournal()
    if (stdin) {
      const parsed = parseImportCsv((await readAll(opts.stdin!)).toString('utf8'), opts.defaultCurrency)
      p.errors = parsed.errors
      if (!p.errors.length) await store.writePlan(batchId, parsed.rows)
    } else {
      const {size, mtimeMs} = statSync(real!)
      const meta = {batchId, size, mtimeMs, defaultCurrency: opts.defaultCurrency}
      // The plan of an unchanged file, once compared clean with the journal, is kept: a resume starts sending at once.
      kept = await store.planMatches(meta, () => sha256File(real!))
      if (!kept) {
        const out: StreamedFile = {errors: [], rows: 0, sha256: ''}
        const rows = await store.writePlan(batchId, streamImportCsv(real!, opts.defaultCurrency, out))
        p.errors = out.errors
        keep = () => store!.keepPlan({...meta, sha256: out.sha256, rows})
      }
    }
    if (p.errors.length) return p
    if (opts.adopt) store.absorb(opts.adopt.journal.map(journalRecordOf))
    if (batch && opts.newBatch) p.duplicates = store.resent()
    // A kept plan was compared clean when it was made, and its journal has grown only with its own keys since.
    else if (batch && !kept) Object.assign(p, store.compare())
    if (!p.changed.length) keep?.()
    p.repeats = store.repeats()
    return p
  } catch (err) {
    if (store) closeStore(store)
    await release().catch(() => undefined)
    throw err
  }
}

/**
 * The read-only checks of the rows still to send, each named by line: the source and the
 * destination exist for this key (GET /api/subaccounts/{id}), and a row whose currency is given
 * (a decimal amount or a currency cell) is in its source's currency. A row in minor units without
 * a currency cell takes its source's currency (for the totals, the limits and the confirmation);
 * when the source names none, the row is refused (no currency is assumed).
 */
async function check(api: Api, p: ImportPlan, concurrency = 4): Promise<RowError[]> {
  const found = new Map<string, {currency: string | null} | null>()
  const queue = p.store.subaccountIds()
  const worker = async () => {
    for (let id = queue.shift(); id !== undefined; id = queue.shift()) {
      try {
        const sub = (await api.subaccounts.get(id)).data
        found.set(id, {currency: sub.currency_code?.toUpperCase() ?? null})
      } catch (err) {
        if (!(err instanceof ApiError && err.status === 404)) throw err
        found.set(id, null)
      }
    }
  }
  await Promise.all(Array.from({length: Math.max(1, Math.min(concurrency, queue.length))}, worker))
  const currencies = new Map<string, string>()
  for (const [id, f] of found) if (f?.currency) currencies.set(id, f.currency)
  for (const [id, currency] of currencies) p.currenciesChanged(p.store.setCurrency(id, currency))
  const unnamed = [...found].filter(([, f]) => f && !f.currency).map(([id]) => id)
  return p.store.rowProblems([...found].filter(([, f]) => !f).map(([id]) => id), currencies, unnamed)
}

/** Sends the rows not done yet from the plan, journaling each; marks the batch finished when every row is done (settled or awaiting approval). */
async function run(p: ImportPlan, opts: RunOptions & {send: RowSender}): Promise<ImportResult> {
  const hooks = p.hooks
  await hooks?.begin(p)
  p.begin()
  const s = p.store
  const journal = hooks ? {record: (row: Parameters<ImportStore['record']>[0], rec: JournalRecord) => (s.record(row, rec), hooks.record(row, rec))} : s
  const send = hooks ? hooks.guard(opts.send) : opts.send
  let result: ImportResult
  try {
    result = await runImport(send, {rows: s.pending(), total: p.rowCount, alreadyDone: p.alreadyDone, doneTotals: p.summary.doneTotals}, journal, opts)
  } finally {
    s.flush()
    await hooks?.drain()
  }
  if (!result.interrupted && result.failed === 0 && result.partial === 0) {
    s.finish()
    await hooks?.finish(p)
  }
  return result
}

export const importFile = {plan, check, run}
