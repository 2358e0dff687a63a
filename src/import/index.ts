/** `moves import`: plan (read, validate, key, journal state), currency check, run. */
import {createHash, randomUUID} from 'node:crypto'
import {renameSync, existsSync} from 'node:fs'
import {readFileArg} from '../flags.js'
import type {Api} from '../api/index.js'
import {ApiError, UsageError} from '../errors.js'
import {loadLockfile} from '../audit/index.js'
import {assignKeys, parseImportCsv, totalsByCurrency, type ImportRow, type RowError} from './csv.js'
import {JournalWriter, journalPathFor, readJournal, type JournalState} from './journal.js'
import {runImport, type ImportResult, type KeyedRow, type RunOptions} from './run.js'

/** A validated import, keyed and checked against its journal; sends nothing until run(). */
export class ImportPlan {
  readonly journalPath: string
  readonly batchId: string
  readonly rows: KeyedRow[]
  readonly totals: Record<string, number>
  readonly alreadyDone: number
  private writer?: JournalWriter
  private release?: () => Promise<void>

  constructor(
    readonly file: string,
    readonly fileSha256: string,
    readonly errors: RowError[],
    parsedRows: ImportRow[],
    readonly state: JournalState,
    private readonly archiveOld: boolean,
  ) {
    this.journalPath = journalPathFor(file)
    this.batchId = state.batch?.batch_id ?? randomUUID()
    this.rows = errors.length ? [] : assignKeys(parsedRows, this.batchId)
    this.totals = this.rows.length ? totalsByCurrency(this.rows) : {}
    this.alreadyDone = this.rows.filter((r) => state.done.has(r.key)).length
  }

  get isNewBatch(): boolean {
    return !this.state.batch
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
    return this.writer
  }

  close(): void {
    this.writer?.close()
    this.writer = undefined
    void this.release?.().catch(() => undefined)
    this.release = undefined
  }
}

async function plan(file: string, opts: {defaultCurrency: string; newBatch?: boolean}): Promise<ImportPlan> {
  const text = readFileArg(file, 'Cannot read').toString('utf8')
  const fileSha256 = createHash('sha256').update(text).digest('hex')
  const parsed = parseImportCsv(text, opts.defaultCurrency)
  let state = readJournal(journalPathFor(file))
  const archive = Boolean(state.batch && opts.newBatch)
  if (archive) state = readJournal('')
  else if (state.finished && state.finished.file_sha256 !== fileSha256) {
    throw new UsageError(
      `${file} changed since its import finished (journal ${journalPathFor(file)}). Pass --new-batch to import it as a new batch.`,
    )
  }
  return new ImportPlan(file, fileSha256, parsed.errors, parsed.rows, state, archive)
}

/** Rows with a decimal amount must be in their source subaccount's currency. */
async function checkCurrencies(api: Api, p: ImportPlan): Promise<RowError[]> {
  const rows = p.rows.filter((r) => r.decimal && !p.state.done.has(r.key))
  const errors: RowError[] = []
  let currencies: Map<string, string | null>
  try {
    currencies = await api.subaccounts.currencies(rows.map((r) => r.from_subaccount_id))
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) {
      // Find which one: check them one by one to name the lines.
      currencies = new Map()
      for (const id of new Set(rows.map((r) => r.from_subaccount_id))) {
        try {
          currencies.set(id, (await api.subaccounts.get(id)).data.currency_code?.toUpperCase() ?? null)
        } catch (e) {
          if (!(e instanceof ApiError && e.status === 404)) throw e
          for (const r of rows) if (r.from_subaccount_id === id) errors.push({line: r.line, message: `source subaccount ${id} was not found`})
        }
      }
    } else throw err
  }
  for (const r of rows) {
    const c = currencies.get(r.from_subaccount_id)
    if (c && c !== r.currency) errors.push({line: r.line, message: `amount is in ${r.currency} but subaccount ${r.from_subaccount_id} holds ${c}`})
  }
  return errors.sort((a, b) => a.line - b.line)
}

async function run(api: Api, p: ImportPlan, opts: RunOptions): Promise<ImportResult> {
  const writer = await p.open()
  if (p.isNewBatch) {
    writer.append({type: 'batch', batch_id: p.batchId, file: p.file, file_sha256: p.fileSha256, rows: p.rows.length, created_at: new Date().toISOString()}, true)
  }
  const result = await runImport(api.moves, p.rows, p.state, writer, opts)
  if (!result.interrupted && result.failed === 0) writer.append({type: 'finished', file_sha256: p.fileSha256, at: new Date().toISOString()}, true)
  writer.flush()
  return result
}

export const importFile = {plan, checkCurrencies, run}
export type {ImportResult}
