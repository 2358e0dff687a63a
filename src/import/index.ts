/** `moves import`: plan (read, validate, match to the journal, key), read-only checks, run. */
import {createHash, randomUUID} from 'node:crypto'
import {renameSync, existsSync, statSync} from 'node:fs'
import {readFileOrStdin} from '../files.js'
import type {Readable} from 'node:stream'
import type {Api} from '../api/index.js'
import {ApiError, UsageError} from '../errors.js'
import {contentHash, deriveKey, derivedKeyPrefix, parseImportCsv, readImportCsv, streamImportCsv, type ImportRow, type RowError} from './csv.js'
import {ContentCounter, RowTable, rowsAtMost, type PlannedRow} from './table.js'
import {JournalWriter, journalPathFor, readJournal, type JournalEntry, type JournalState} from './journal.js'
import {matchRows, type MatchedRow} from './match.js'
import {readPlanCache, removePlanCache, writePlanCache} from './cache.js'
import {alignWithJournal, scanJournal, type JournalIndex} from './scan.js'
import {LockBusyError, lockDirOf, lockExclusive} from '../lock.js'
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
  /** Keys the journal holds (rows sent before). */
  readonly journaled: number
  /**
   * The plan cache (see cache.ts): `write` when the table is the batch's first-run keying read
   * from the file (run() writes it), `loaded` when the plan came from it.
   */
  readonly cache?: 'write' | 'loaded'
  /** How the rows were keyed: as a first run (read from the file, or from the plan cache) with the journal's rows marked, or matched by matchRows. */
  readonly via: 'keyed' | 'cache' | 'matched'
  /** The file's size and modification time before it was read to plan (see sourceOf). */
  fileStat?: {size: number; mtimeMs: number}
  private writer?: JournalWriter
  private release?: () => Promise<void>

  constructor(
    readonly file: string,
    readonly fileSha256: string,
    readonly errors: RowError[],
    readonly state: JournalState,
    opts: {table: RowTable; changed: RowError[]; missing: JournalEntry[]; duplicates: MatchedRow[]; batchId: string; journaled?: number; cache?: 'write' | 'loaded'; via?: 'keyed' | 'cache'},
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
    this.journaled = opts.journaled ?? state.entries.size
    this.cache = opts.cache
    this.via = opts.via ?? 'matched'
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
    try {
      this.release = await lockExclusive(this.file, {stale: 4000, attempts: 13, waitMs: 500})
    } catch (err) {
      if (err instanceof LockBusyError) throw new UsageError(`Another payops import of ${this.file} is running (lock ${lockDirOf(this.file)}).`)
      throw err
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
async function readRows(
  file: string,
  defaultCurrency: string,
  stdin?: Readable,
): Promise<{rows: ImportRow[]; errors: RowError[]; sha256: string; whole?: boolean; headerLine?: number; delimiter?: string[]}> {
  if (file === '-') {
    const text = (await readFileOrStdin(file, 'Cannot read', stdin!)).toString('utf8')
    return {...parseImportCsv(text, defaultCurrency), sha256: createHash('sha256').update(text).digest('hex'), whole: true}
  }
  const rows: ImportRow[] = []
  // Only what matching, the checks and the totals need: the send pass reads each row again.
  const read = await readImportCsv(file, defaultCurrency, (r) => {
    const {client_metadata: _m, auto_approve: _a, ...slim} = r
    rows.push(slim)
  })
  // Nothing is sent when any row is wrong: the rows are not needed then.
  return {rows: read.errors.length ? [] : rows, errors: read.errors, sha256: read.sha256, headerLine: read.headerLine, delimiter: read.delimiter}
}

/**
 * Reads and validates the file and matches its rows to the journal (see matchRows). With
 * `newBatch` the old journal is set aside (archived when the run starts): every row gets a new
 * key, and the rows equal to rows the old batch sent are listed as duplicates.
 *
 * A first run, and a resume whose journal is aligned with the file (see alignWithJournal), take
 * the fast path: the journal is read by line (scanJournal), the rows are keyed as a first run keys
 * them (from the plan cache when it is valid, else in one streaming pass) and the journaled ones
 * are marked. Anything else (an edited file, a journal of an earlier version, stdin) is matched by
 * matchRows.
 */
async function plan(file: string, opts: {defaultCurrency: string; newBatch?: boolean; /** Where `-` reads from. */ stdin?: Readable; /** Tests: always match through matchRows. */ matchAll?: boolean}): Promise<ImportPlan> {
  const fileStat = statOf(file)
  const p = await planOf(file, opts)
  p.fileStat = fileStat
  return p
}

function statOf(file: string): {size: number; mtimeMs: number} | undefined {
  if (file === '-') return undefined
  try {
    const {size, mtimeMs} = statSync(file)
    return {size, mtimeMs}
  } catch {
    return undefined
  }
}

async function planOf(file: string, opts: {defaultCurrency: string; newBatch?: boolean; stdin?: Readable; matchAll?: boolean}): Promise<ImportPlan> {
  if (file !== '-' && !opts.matchAll) {
    const idx = scanJournal(journalPathFor(file))
    if (idx && !(idx.batch && opts.newBatch)) {
      const fast = await planKeyed(file, opts.defaultCurrency, idx)
      if (fast) return fast
    }
  }
  const old = readJournal(journalPathFor(file))
  const archive = Boolean(old.batch && opts.newBatch)
  const state = archive ? readJournal('') : old
  const batchId = state.batch?.batch_id ?? randomUUID()
  const parsed = await readRows(file, opts.defaultCurrency, opts.stdin)
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
  // A new batch with no key cell that reads as a derived key is keyed as a first run keys it.
  const prefix = derivedKeyPrefix(batchId)
  const firstRun = archive && !parsed.whole && !parsed.rows.some((r) => r.idempotency_key?.startsWith(prefix))
  table.headerLine = parsed.headerLine ?? 0
  table.delimiter = parsed.delimiter
  return new ImportPlan(
    file,
    fileSha256,
    [],
    state,
    {table, changed: m.changed, missing: m.missing, duplicates, batchId, ...(firstRun ? {cache: 'write' as const} : {})},
    archive,
    parsed.whole ? parsed.rows : undefined,
  )
}

/**
 * The fast path: the rows keyed as a batch's first run keys them (the `idempotency_key` cell,
 * else the derived key of the row's content and its occurrence among identical rows, as matchRows
 * keys a first run), then the rows the journal holds marked (sent before; done or not).
 * The table comes from the plan cache when it is valid for this file, else from one streaming
 * pass that validates and keys each row as it is read, straight into the compact table.
 * Undefined (the general path decides) when a key cell could collide with a derived key, or when
 * the journal is not aligned with the file.
 */
async function planKeyed(file: string, defaultCurrency: string, idx: JournalIndex): Promise<ImportPlan | undefined> {
  const batchId = idx.batch?.batch_id ?? randomUUID()
  const state: JournalState = {batch: idx.batch, finished: idx.finished, tornTail: idx.tornTail, entries: new Map(), done: new Map(), failed: new Map(), sent: new Set()}
  const cached = idx.batch ? readPlanCache(file, defaultCurrency, batchId) : undefined
  let table: RowTable
  let sha256: string
  if (cached) {
    ;({table, fileSha256: sha256} = cached)
  } else {
    table = new RowTable(batchId, rowsAtMost(file))
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
    if (read.errors.length) {
      // As the general path: every error, nothing to send.
      return new ImportPlan(file, read.sha256, read.errors, state, {table: new RowTable(batchId, 1), changed: [], missing: [], duplicates: [], batchId, journaled: idx.keyed, via: 'keyed'}, false)
    }
    if (clash) return undefined
    table.headerLine = read.headerLine ?? 0
    table.delimiter = read.delimiter
    sha256 = read.sha256
  }
  if (!alignWithJournal(table, idx)) return undefined
  return new ImportPlan(file, sha256, [], state, {table, changed: [], missing: [], duplicates: [], batchId, journaled: idx.keyed, cache: cached ? 'loaded' : 'write', via: cached ? 'cache' : 'keyed'}, false)
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
  // Before the first send: a resume after any kill from here on can load the plan.
  if (p.cache === 'write' && p.pendingCount > 0) writePlanCache(p.file, p.table, {fileSha256: p.fileSha256, defaultCurrency: opts.defaultCurrency, batchId: p.batchId})
  const result = await runImport(opts.send, sourceOf(p, opts.defaultCurrency), p.state, writer, opts)
  if (!result.interrupted && result.failed === 0) {
    writer.append({type: 'finished', file_sha256: p.fileSha256, at: new Date().toISOString()}, true)
    // The batch is finished: a re-run reads the file again anyway (to see any rows appended).
    if (p.file !== '-') removePlanCache(p.file)
  }
  writer.flush()
  return result
}

/**
 * The send pass: the file is read again, row by row, and each row not done yet is sent with the
 * key and currency the plan gave it. A row whose content is not the one checked stops the import
 * (the file changed since it was checked). A resume starts reading at the first row not done
 * (its byte offset, known from the validation pass), not at the top of the file.
 */
function sourceOf(p: ImportPlan, defaultCurrency: string): RowSource {
  const t = p.table
  async function* rows(): AsyncGenerator<KeyedRow> {
    const out = {errors: [], rows: 0, sha256: ''}
    const from = p.wholeRows ? undefined : t.resumePoint(t.firstPending())
    // Rows before `from` are not read again: a file changed since it was planned stops here.
    const now = from && statOf(p.file)
    if (from && (!now || !p.fileStat || now.size !== p.fileStat.size || now.mtimeMs !== p.fileStat.mtimeMs)) {
      throw new UsageError(`${p.file} changed while it was imported (line ${t.lineOf(t.firstPending())}); re-run the same command to check it again and send the rest.`)
    }
    let i = from ? from.row : 0
    const all = p.wholeRows ?? streamImportCsv(p.file, defaultCurrency, out, from)
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
