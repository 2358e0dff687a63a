/** `moves import`: plan (read, validate, match to the journal, key), read-only checks, run. */
import {createHash, randomUUID} from 'node:crypto'
import {renameSync, existsSync} from 'node:fs'
import {readFileArg} from '../files.js'
import type {Api} from '../api/index.js'
import {ApiError, UsageError} from '../errors.js'
import {loadLockfile} from '../interop.js'
import {contentHash, deriveKey, derivedKeyPrefix, parseImportCsv, readImportCsv, streamImportCsv, type ImportRow, type RowError} from './csv.js'
import {ContentCounter, RowTable, type PlannedRow} from './table.js'
import {JournalWriter, journalPathFor, readJournal, type JournalEntry, type JournalState} from './journal.js'
import {matchRows, type MatchedRow} from './match.js'
import {runImport, type ImportResult, type RowSource, type RunOptions} from './run.js'
import type {KeyedRow, RowSender} from './send.js'

/** A validated import, matched to its journal and keyed; sends nothing until run(). */
export class ImportPlan {
  readonly journalPath: string
  readonly batchId: string
  /** Every row of the file, in order, with its key (compact). */
  readonly table: RowTable
  /** Rows already sent whose content changed (the import must stop). */
  readonly changed: RowError[]
  /** Journaled rows that may have made a move and are no longer in the file. */
  readonly missing: JournalEntry[]
  /** With --new-batch: rows whose content equals a row the archived batch sent (they are sent again, with new keys). */
  readonly duplicates: MatchedRow[]
  /** Rows whose currency the checks set (a row in minor units takes its source's currency). */
  currenciesSet = 0
  private writer?: JournalWriter
  private release?: () => Promise<void>

  constructor(
    readonly file: string,
    readonly fileSha256: string,
    readonly errors: RowError[],
    readonly state: JournalState,
    opts: {table: RowTable; changed: RowError[]; missing: JournalEntry[]; duplicates: MatchedRow[]; batchId: string},
    private readonly archiveOld: boolean,
    /** Read from stdin: the whole rows (the file cannot be read again to send). */
    readonly wholeRows?: ImportRow[],
  ) {
    this.journalPath = journalPathFor(file)
    this.batchId = opts.batchId
    this.table = opts.table
    this.changed = opts.changed
    this.missing = opts.missing
    this.duplicates = opts.duplicates
  }

  get isNewBatch(): boolean {
    return !this.state.batch
  }

  /** Rows in the file. */
  get rowCount(): number {
    return this.table.length
  }

  /** Rows still to send: everything the journal does not record as done. */
  get pendingCount(): number {
    return this.table.pending
  }

  /** Rows still to send, in file order (views, made as they are read). */
  pending(): Iterable<PlannedRow> {
    return this.table.pendingRows()
  }

  /** Rows the journal records as done (skipped). */
  get alreadyDone(): number {
    return this.table.alreadyDone
  }

  /** Per currency, in minor units, of the rows still to send. */
  get pendingTotals(): Record<string, number> {
    return this.table.totals(false)
  }

  /** Takes the file's lock (another import of it waits, then fails) and opens the journal. */
  async open(): Promise<JournalWriter> {
    const lockfile = await loadLockfile()
    try {
      this.release = await lockfile.lock(this.file, {
        stale: 4000,
        update: 1000,
        realpath: false,
        retries: {retries: 12, factor: 1, minTimeout: 500, maxTimeout: 500},
        onCompromised: () => undefined,
      })
    } catch {
      throw new UsageError(`Another payops import of ${this.file} is running (lock ${this.file}.lock).`)
    }
    if (this.archiveOld && existsSync(this.journalPath)) {
      renameSync(this.journalPath, `${this.journalPath}.${new Date().toISOString().replace(/[:.]/g, '-')}`)
    }
    this.writer = new JournalWriter(this.journalPath)
    this.writer.useBatch(this.batchId)
    return this.writer
  }

  close(): void {
    this.writer?.close()
    this.writer = undefined
    void this.release?.().catch(() => undefined)
    this.release = undefined
  }
}

/** The file's valid rows and every error, read in one streaming pass ('-': stdin, read whole). */
async function readRows(file: string, defaultCurrency: string): Promise<{rows: ImportRow[]; errors: RowError[]; sha256: string; whole?: boolean}> {
  if (file === '-') {
    const text = readFileArg(file, 'Cannot read').toString('utf8')
    return {...parseImportCsv(text, defaultCurrency), sha256: createHash('sha256').update(text).digest('hex'), whole: true}
  }
  const rows: ImportRow[] = []
  // Only what matching, the checks and the totals need: the send pass reads each row again.
  const read = await readImportCsv(file, defaultCurrency, (r) => {
    const {client_metadata: _m, auto_approve: _a, ...slim} = r
    rows.push(slim)
  })
  // Nothing is sent when any row is wrong: the rows are not needed then.
  return {rows: read.errors.length ? [] : rows, errors: read.errors, sha256: read.sha256}
}

/**
 * Reads and validates the file and matches its rows to the journal (see matchRows). With
 * `newBatch` the old journal is set aside (archived when the run starts): every row gets a new
 * key, and the rows equal to rows the old batch sent are listed as duplicates.
 */
async function plan(file: string, opts: {defaultCurrency: string; newBatch?: boolean}): Promise<ImportPlan> {
  const old = readJournal(journalPathFor(file))
  const archive = Boolean(old.batch && opts.newBatch)
  const state = archive ? readJournal('') : old
  const batchId = state.batch?.batch_id ?? randomUUID()
  if (file !== '-' && !archive && state.entries.size === 0) {
    const first = await planFirstRun(file, opts.defaultCurrency, state, batchId)
    if (first) return first
  }
  const parsed = await readRows(file, opts.defaultCurrency)
  const fileSha256 = parsed.sha256
  const empty = {table: new RowTable(batchId, 1), changed: [], missing: [], duplicates: [], batchId}
  if (parsed.errors.length) return new ImportPlan(file, fileSha256, parsed.errors, state, empty, archive)
  let duplicates: MatchedRow[] = []
  if (archive) {
    const before = matchRows(parsed.rows, old, old.batch!.batch_id)
    // Rows with an idempotency_key cell keep their key in a new batch: the API replays them.
    duplicates = before.rows.filter((r) => r.prior?.landed && !r.idempotency_key)
  }
  const m = matchRows(parsed.rows, state, batchId)
  const table = RowTable.of(m.rows, batchId, (key) => state.done.has(key), (r) => contentHash(r.fingerprint))
  return new ImportPlan(file, fileSha256, [], state, {table, changed: m.changed, missing: m.missing, duplicates, batchId}, archive, parsed.whole ? parsed.rows : undefined)
}

/**
 * A batch's first run (its journal holds no key): the rows are keyed as they are read, in one
 * streaming pass, straight into the compact table; the same keys as matchRows gives them (the
 * `idempotency_key` cell, else the derived key of the row's content and its occurrence among
 * identical rows). Undefined when a key cell could collide with a derived key (then the general
 * path decides).
 */
async function planFirstRun(file: string, defaultCurrency: string, state: JournalState, batchId: string): Promise<ImportPlan | undefined> {
  const table = new RowTable(batchId)
  const counter = new ContentCounter(table)
  const prefix = derivedKeyPrefix(batchId)
  let clash = false
  const read = await readImportCsv(file, defaultCurrency, (r) => {
    const hash = contentHash(r.fingerprint)
    const key = r.idempotency_key
    if (key) {
      clash ||= key.startsWith(prefix)
      table.push({...r, key}, false, hash)
      return
    }
    // The key needs the row's occurrence number, which needs its content hash in the table.
    table.push({...r, key: ''}, false, hash)
    const i = table.length - 1
    table.setKey(i, deriveKey(batchId, r.fingerprint, counter.next(i)))
  })
  if (clash && !read.errors.length) return undefined
  const empty = new RowTable(batchId, 1)
  return new ImportPlan(file, read.sha256, read.errors, state, {table: read.errors.length ? empty : table, changed: [], missing: [], duplicates: [], batchId}, false)
}

/**
 * The read-only checks of the rows still to send, each named by line: the source and the
 * destination exist for this key (GET /api/subaccounts/{id}), and a row whose currency is given
 * (a decimal amount or a currency cell) is in its source's currency. A row in minor units without
 * a currency cell takes its source's currency (for the totals, the limits and the confirmation).
 */
async function check(api: Api, p: ImportPlan, concurrency = 4): Promise<RowError[]> {
  const found = new Map<string, {currency: string | null} | null>()
  const ids = new Set<string>()
  for (const r of p.pending()) ids.add(r.from_subaccount_id).add(r.to_subaccount_id)
  const queue = [...ids]
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
  const errors: RowError[] = []
  for (const r of p.pending()) {
    const problems: string[] = []
    const from = found.get(r.from_subaccount_id)
    if (!from) problems.push(`source subaccount ${r.from_subaccount_id} was not found for this API key`)
    if (!found.get(r.to_subaccount_id)) problems.push(`destination subaccount ${r.to_subaccount_id} was not found for this API key`)
    if (from?.currency && from.currency !== r.currency) {
      if (r.currencyGiven) problems.push(`amount is in ${r.currency} but subaccount ${r.from_subaccount_id} holds ${from.currency}`)
      else {
        p.table.setCurrency(r.index, from.currency)
        p.currenciesSet++
      }
    }
    if (problems.length) errors.push({line: r.line, message: problems.join('; ')})
  }
  return errors
}

async function run(p: ImportPlan, opts: RunOptions & {send: RowSender; defaultCurrency: string}): Promise<ImportResult> {
  const writer = await p.open()
  if (p.isNewBatch) {
    writer.append({type: 'batch', batch_id: p.batchId, file: p.file, file_sha256: p.fileSha256, rows: p.rowCount, created_at: new Date().toISOString()}, true)
  }
  const result = await runImport(opts.send, sourceOf(p, opts.defaultCurrency), p.state, writer, opts)
  if (!result.interrupted && result.failed === 0) writer.append({type: 'finished', file_sha256: p.fileSha256, at: new Date().toISOString()}, true)
  writer.flush()
  return result
}

/**
 * The send pass: the file is read again, row by row, and each row not done yet is sent with the
 * key and currency the plan gave it. A row whose content is not the one checked stops the import
 * (the file changed since it was checked).
 */
function sourceOf(p: ImportPlan, defaultCurrency: string): RowSource {
  const t = p.table
  async function* rows(): AsyncGenerator<KeyedRow> {
    const out = {errors: [], rows: 0, sha256: ''}
    let i = 0
    const all = p.wholeRows ?? streamImportCsv(p.file, defaultCurrency, out)
    for await (const row of all) {
      const at = i++
      if (at >= t.length || t.lineOf(at) !== row.line || !t.hasContent(at, contentHash(row.fingerprint))) {
        throw new UsageError(`${p.file} changed while it was imported (line ${row.line}); re-run the same command to check it again and send the rest.`)
      }
      if (t.isDone(at)) continue
      yield {...row, currency: t.currencyAt(at), key: t.keyOf(at)}
    }
  }
  return {rows: rows(), total: t.length, alreadyDone: t.alreadyDone, doneTotals: t.totals(true)}
}

export const importFile = {plan, check, run}
export type {ImportResult}
