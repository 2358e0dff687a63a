/**
 * The import's database (one SQLite file beside the CSV, `FILE.payops-import.sqlite`, or the one
 * `--journal` names): the batch, the plan of the file's rows (written in one streaming pass, kept
 * while the file is unchanged, so that a resume does not read and validate it again), and the
 * journal of every key sent with its outcome.
 *
 * Keys: a row's `idempotency_key` cell, else `deriveKey(batch, content, n)` where `n` numbers the
 * rows of identical content in file order. Identical rows are interchangeable, so a re-run that
 * finds k rows of one content while the journal holds j of its keys as done sends exactly k - j
 * of them, whatever was inserted, removed or reordered: each move is made once per row the file
 * holds. Exactly once rests on the keys (deterministic from the batch and the file) and the
 * server's idempotency of move create: the journal says what need not be sent again, and a row
 * sent again with its key comes back as a replay. So journal records are committed in groups
 * (WAL, synchronous NORMAL: a killed process loses none that were committed; one lost in a power
 * cut only means a replay), never one fsync per row.
 */
import {systemClock} from '../context/host.js'
import {createHash} from 'node:crypto'
import {openDatabase, type Database, type Schema} from '../db/index.js'
import {UsageError} from '../errors.js'
import {deriveKey, type ImportRow, type RowError} from './csv.js'
import {RowsDigest} from './digest.js'

export const IMPORT_SCHEMA: Schema = {
  purpose: 'import',
  migrations: [
    `CREATE TABLE batch (one INTEGER PRIMARY KEY CHECK (one = 1), batch_id TEXT NOT NULL, file TEXT NOT NULL, created_at TEXT NOT NULL, finished_at TEXT);
     CREATE TABLE plan_meta (one INTEGER PRIMARY KEY CHECK (one = 1), batch_id TEXT NOT NULL, file_sha256 TEXT NOT NULL, size INTEGER NOT NULL,
       mtime_ms REAL NOT NULL, default_currency TEXT NOT NULL, rows INTEGER NOT NULL);
     CREATE TABLE plan (idx INTEGER PRIMARY KEY, line INTEGER NOT NULL, key TEXT NOT NULL, cell_key INTEGER NOT NULL, fp TEXT NOT NULL, n INTEGER NOT NULL,
       src TEXT NOT NULL, dst TEXT NOT NULL, amount INTEGER NOT NULL, currency TEXT NOT NULL, currency_given INTEGER NOT NULL,
       auto_approve INTEGER, metadata TEXT);
     CREATE INDEX plan_key ON plan (key);
     CREATE INDEX plan_line ON plan (line);
     CREATE TABLE journal (key TEXT PRIMARY KEY, fp TEXT NOT NULL, derived INTEGER NOT NULL, line INTEGER NOT NULL, state TEXT NOT NULL, kind TEXT, move_id TEXT,
       move_status TEXT, http_status INTEGER, warning TEXT, error_status INTEGER, error_code TEXT, message TEXT, at TEXT NOT NULL) WITHOUT ROWID;
     CREATE INDEX journal_fp ON journal (fp);
     CREATE INDEX journal_line ON journal (line);`,
    // The subaccount ids of the plan, kept as it is written; a plan kept without them is made again.
    `CREATE TABLE ids (id TEXT PRIMARY KEY) WITHOUT ROWID;
     DELETE FROM plan_meta;`,
    // Each plan row says whether the journal records it as done (set in the same transaction as
    // the record), so that the rows to send and the figures are read without a journal lookup per row.
    `ALTER TABLE plan ADD COLUMN done INTEGER NOT NULL DEFAULT 0;
     CREATE INDEX plan_pending ON plan (idx) WHERE done = 0;
     DELETE FROM plan_meta;`,
    // The repeated rows read from an index, and the counts and totals kept as rows are done: a resume does not scan the plan.
    `CREATE INDEX plan_repeats ON plan (line) WHERE n > 1;
     CREATE INDEX journal_open ON journal (key) WHERE state <> 'done';
     CREATE TABLE figures (currency TEXT NOT NULL, done INTEGER NOT NULL, n INTEGER NOT NULL, amount INTEGER NOT NULL, PRIMARY KEY (currency, done)) WITHOUT ROWID;
     DELETE FROM plan_meta;`,
    // A move that did not settle is `open` (sent again by the next run), no longer `done`; a plan
    // row is done 1 when its move settled, 2 when it awaits approval (auto_approve=false).
    `UPDATE journal SET state = 'open' WHERE state = 'done' AND (lower(move_status) = 'approved' OR (lower(move_status) = 'created' AND warning IS NOT NULL));
     DELETE FROM plan_meta;`,
    // The digest of the plan's rows (the batch's identity in the control store), kept with the plan.
    `ALTER TABLE plan_meta ADD COLUMN rows_digest TEXT;
     DELETE FROM plan_meta;`,
  ],
}

/** A row of the plan, as the checks, the limits and the sender see it. */
export interface PlannedRow {
  index: number
  line: number
  key: string
  fp: string
  /** Its number among the rows of identical content (0: the key is the row's own cell). */
  n: number
  from_subaccount_id: string
  to_subaccount_id: string
  amount_in_minor_units: number
  currency: string
  currencyGiven: boolean
  auto_approve?: boolean
  client_metadata?: Record<string, string>
}

/** What a finished send of a row did: `done` (settled, or created awaiting approval as asked) or `open` (exists, not settled). */
export type JournalRecord =
  | {state: 'sent'}
  | {state: 'done' | 'open'; kind: string; move_id: string; move_status: string; http_status: number; warning?: string}
  | {state: 'failed'; error_status?: number; error_code?: string; message: string}

/** The short content hash of a row (from, to, amount, currency, auto_approve, metadata). */
export function contentHash(fingerprint: string): string {
  return createHash('sha256').update(fingerprint).digest().toString('hex', 0, 16)
}

type PlanRowDb = {idx: number; line: number; key: string; fp: string; n: number; src: string; dst: string; amount: number; currency: string}
  & {currency_given: number; auto_approve: number | null; metadata: string | null}

const PAGE = 1000
/** A done row's `plan.done`: 2 when its move awaits approval (created as asked), else 1 (settled). */
const DONE = `CASE WHEN lower(move_status) = 'created' THEN 2 ELSE 1 END`
/** A journal entry that may have made a move: anything but a refusal outright (a 4xx other than 408, 409, 429). */
const moved = (j: string) => `NOT (${j}.state = 'failed' AND ${j}.error_status IS NOT NULL AND ${j}.error_status >= 400 AND ${j}.error_status < 500 AND ${j}.error_status NOT IN (408, 409, 429))`

function rowOf(r: PlanRowDb): PlannedRow {
  return {
    index: r.idx,
    line: r.line,
    key: r.key,
    fp: r.fp,
    n: Number(r.n),
    from_subaccount_id: r.src,
    to_subaccount_id: r.dst,
    amount_in_minor_units: Number(r.amount),
    currency: r.currency,
    currencyGiven: r.currency_given === 1,
    ...(r.auto_approve === null ? {} : {auto_approve: r.auto_approve === 1}),
    ...(r.metadata === null ? {} : {client_metadata: JSON.parse(r.metadata) as Record<string, string>}),
  }
}

export class ImportStore {
  private readonly queue: Array<[Pick<PlannedRow, 'key' | 'fp' | 'line' | 'n'>, JournalRecord]> = []
  private timer?: NodeJS.Timeout

  /** The journal the plan is compared with: none while a new batch is planned (the old one is set aside when it starts). */
  private j = 'journal'
  private readonly pendingFrom = 'FROM plan p WHERE p.done = 0'

  /** The digest of the rows of the plan last written (or kept). */
  digest = ''

  private constructor(readonly db: Database) {}

  /** Plans as a new batch: rows are compared with no journal. */
  ignoreJournal(): void {
    this.j = '(SELECT * FROM journal WHERE 0)'
  }

  /** Opens (or creates) the database at `path`. */
  static open(path: string, readOnly = false): ImportStore {
    return new ImportStore(openDatabase(path, IMPORT_SCHEMA, {synchronous: 'NORMAL', readOnly}))
  }

  get path(): string { return this.db.path }

  batch(): {batch_id: string} | undefined {
    return this.db.prepare('SELECT batch_id FROM batch').get<{batch_id: string}>()
  }

  /** Starts the batch (the first run), or a new one that replaces it (--new-batch: the old one is copied to `archive` first). */
  startBatch(batchId: string, file: string, archive?: string): void {
    if (archive) this.db.exec(`VACUUM INTO '${archive.replace(/'/g, "''")}'`)
    this.db.transaction(() => {
      this.db.exec('DELETE FROM journal; DELETE FROM batch')
      this.db.prepare('INSERT INTO batch (one, batch_id, file, created_at) VALUES (1, ?, ?, ?)').run(batchId, file, new Date(systemClock.now()).toISOString())
    })
  }

  finish(): void {
    this.db.prepare('UPDATE batch SET finished_at = ?').run(new Date(systemClock.now()).toISOString())
  }

  /**
   * Whether the plan in the database is the one of this file (same size, time and SHA-256, the
   * SHA-256 read only when the rest matches), batch and currency: then it need not be made again.
   */
  async planMatches(p: {batchId: string; size: number; mtimeMs: number; defaultCurrency: string}, sha256: () => Promise<string>): Promise<boolean> {
    const m = this.db.prepare('SELECT * FROM plan_meta').get<{batch_id: string; file_sha256: string; size: number; mtime_ms: number; default_currency: string; rows_digest: string | null}>()
    if (!m || !m.rows_digest || m.batch_id !== p.batchId || Number(m.size) !== p.size || m.mtime_ms !== p.mtimeMs || m.default_currency !== p.defaultCurrency) return false
    if (m.file_sha256 !== (await sha256())) return false
    this.digest = m.rows_digest
    return true
  }

  /** Writes the plan from `rows` (valid rows, in file order) in one pass, keying each; returns how many. */
  async writePlan(batchId: string, rows: AsyncIterable<ImportRow> | Iterable<ImportRow>): Promise<number> {
    const db = this.db
    db.transaction(() => db.exec('DELETE FROM plan_meta; DELETE FROM plan; DELETE FROM ids; CREATE TEMP TABLE IF NOT EXISTS occ (fp TEXT PRIMARY KEY, n INTEGER NOT NULL) WITHOUT ROWID; DELETE FROM occ'))
    const insert = db.prepare('INSERT INTO plan (idx, line, key, cell_key, fp, n, src, dst, amount, currency, currency_given, auto_approve, metadata) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)')
    const id = db.prepare('INSERT OR IGNORE INTO ids (id) VALUES (?)')
    const occurrence = db.prepare('INSERT INTO occ (fp, n) VALUES (?, 1) ON CONFLICT (fp) DO UPDATE SET n = n + 1 RETURNING n')
    let idx = 0
    let batch: ImportRow[] = []
    const digest = new RowsDigest()
    // Inserted a thousand rows at a time, each group in a transaction of its own: no transaction
    // is held across the reading of the file (another connection, even in this process, waits for none).
    const insertBatch = () =>
      db.transaction(() => {
        for (const r of batch) {
          digest.add(r)
          const fp = contentHash(r.fingerprint)
          // Rows with a key cell are not numbered: their key is theirs whatever the other rows.
          const n = r.idempotency_key ? 0 : Number(occurrence.get<{n: number}>(fp)!.n)
          const key = r.idempotency_key ?? deriveKey(batchId, r.fingerprint, n)
          const aa = r.auto_approve === undefined ? null : r.auto_approve ? 1 : 0
          id.run(r.from_subaccount_id)
          id.run(r.to_subaccount_id)
          insert.run(idx++, r.line, key, r.idempotency_key ? 1 : 0, fp, n, r.from_subaccount_id, r.to_subaccount_id, r.amount_in_minor_units, r.currency, r.currencyGiven ? 1 : 0, aa, r.client_metadata ? JSON.stringify(r.client_metadata) : null)
        }
        batch = []
      })
    for await (const r of rows) if (batch.push(r) >= 1000) insertBatch()
    insertBatch()
    this.digest = digest.hex()
    db.transaction(() => {
      db.prepare(`UPDATE plan SET done = (SELECT ${DONE} FROM ${this.j} j WHERE j.key = plan.key) WHERE key IN (SELECT key FROM ${this.j} WHERE state = 'done')`).run()
      this.refigure()
    })
    return idx
  }

  /** Counts and totals per currency and done state, read from the plan whole (after it is written or its currencies change). */
  private refigure(): void {
    this.db.exec('DELETE FROM figures; INSERT INTO figures SELECT currency, done, COUNT(*), SUM(amount) FROM plan GROUP BY currency, done')
  }

  /** Marks the plan as this file's (after it was written whole and without errors). */
  keepPlan(p: {batchId: string; sha256: string; size: number; mtimeMs: number; defaultCurrency: string; rows: number}): void {
    const sql = 'INSERT INTO plan_meta (one, batch_id, file_sha256, size, mtime_ms, default_currency, rows, rows_digest) VALUES (1, ?, ?, ?, ?, ?, ?, ?)'
    this.db.prepare(sql).run(p.batchId, p.sha256, p.size, p.mtimeMs, p.defaultCurrency, p.rows, this.digest)
  }

  /**
   * The plan's figures in one pass: rows, rows still to send, rows never sent (no key in the
   * journal), rows whose move did not settle (`open`), and the totals per currency, in minor
   * units, of the rows to send, of those settled and of those awaiting approval.
   */
  summary(): {rows: number; pending: number; fresh: number; open: number; pendingTotals: Record<string, number>; doneTotals: Record<string, number>; awaiting: {n: number; totals: Record<string, number>}} {
    const out = {rows: 0, pending: 0, fresh: 0, open: 0, pendingTotals: {} as Record<string, number>, doneTotals: {} as Record<string, number>, awaiting: {n: 0, totals: {} as Record<string, number>}}
    const rows = this.db.prepare('SELECT currency AS c, done, n, amount FROM figures WHERE n > 0').all<{c: string; done: number; n: number; amount: number | bigint}>()
    const exact = (c: string, v: number | bigint) => {
      const t = Number(v)
      if (!Number.isSafeInteger(t)) throw new UsageError(`The total in ${c} is too large to handle exactly.`)
      return t
    }
    for (const r of rows) {
      out.rows += Number(r.n)
      if (!r.done) out.pending += Number(r.n)
      if (r.done === 2) out.awaiting.n += Number(r.n)
      ;[out.pendingTotals, out.doneTotals, out.awaiting.totals][r.done][r.c] = exact(r.c, r.amount)
    }
    // Rows to send that were sent before (their answer lost, or refused): few, read from the journal's side.
    const open = this.j === 'journal' ? 'journal j INDEXED BY journal_open' : `${this.j} j`
    const unfinished = this.db.prepare(`SELECT COUNT(*) AS n, SUM(j.move_id IS NOT NULL) AS open FROM ${open} CROSS JOIN plan p ON p.key = j.key WHERE j.state <> 'done' AND p.done = 0`).get<{n: number; open: number | null}>()
    out.fresh = out.pending - Number(unfinished?.n ?? 0)
    out.open = Number(unfinished?.open ?? 0)
    return out
  }

  /** What the journal recorded of a move that did not settle, kept while it is sent again (for the replay that may settle it now). */
  openMove(key: string): {id: string; status: string} | undefined {
    const r = this.db.prepare(`SELECT move_id AS id, move_status AS status FROM journal WHERE key = ? AND state <> 'done' AND move_id IS NOT NULL`).get<{id: string; status: string}>(key)
    return r ? {id: r.id, status: r.status} : undefined
  }

  /** The moves of rows recorded as created awaiting approval, by line. */
  awaitingMoves(): Array<{line: number; move_id: string}> {
    return this.db.prepare(`SELECT line, move_id FROM journal WHERE state = 'done' AND lower(move_status) = 'created' AND move_id IS NOT NULL ORDER BY line`).all<{line: number; move_id: string}>()
  }

  /** Rows not done yet, in file order, read a page at a time (the database stays usable between rows). */
  *pending(): Generator<PlannedRow> {
    const page = this.db.prepare(`SELECT p.* ${this.pendingFrom} AND p.idx > ? ORDER BY p.idx LIMIT ${PAGE}`)
    let after = -1
    for (;;) {
      const rows = page.all<PlanRowDb>(after)
      for (const r of rows) yield rowOf(r)
      if (rows.length < PAGE) return
      after = rows[rows.length - 1].idx
    }
  }

  /** Every source and destination id of the file (kept while the plan is written). */
  subaccountIds(): string[] {
    return this.db.prepare('SELECT id FROM ids').all<{id: string}>().map((r) => r.id)
  }

  /**
   * The problems of the rows still to send, by line, found in the database rather than row by row:
   * a source or destination in `missing`, a currency given that is not its source's (`currencies`),
   * an amount in minor units without a currency from a source that names none (`unnamed`: no
   * currency is assumed for it).
   */
  rowProblems(missing: string[], currencies: Map<string, string>, unnamed: string[] = []): RowError[] {
    const problems = new Map<number, string[]>()
    const add = (line: number, text: string) => problems.set(Number(line), [...(problems.get(Number(line)) ?? []), text])
    if (missing.length) {
      const list = missing.map(() => '?').join(', ')
      const rows = this.db.prepare(`SELECT p.line AS line, p.src AS src, p.dst AS dst ${this.pendingFrom} AND (p.src IN (${list}) OR p.dst IN (${list})) ORDER BY p.idx`).all<{line: number; src: string; dst: string}>(...missing, ...missing)
      for (const r of rows) {
        if (missing.includes(r.src)) add(r.line, `source subaccount ${r.src} was not found for this API key`)
        if (missing.includes(r.dst)) add(r.line, `destination subaccount ${r.dst} was not found for this API key`)
      }
    }
    const wrong = this.db.prepare(`SELECT p.line AS line, p.currency AS c ${this.pendingFrom} AND p.src = ? AND p.currency_given = 1 AND p.currency <> ?`)
    for (const [src, currency] of currencies) for (const r of wrong.all<{line: number; c: string}>(src, currency)) add(r.line, `amount is in ${r.c} but subaccount ${src} holds ${currency}`)
    const unknown = this.db.prepare(`SELECT p.line AS line ${this.pendingFrom} AND p.src = ? AND p.currency_given = 0`)
    for (const src of unnamed) for (const r of unknown.all<{line: number}>(src)) add(r.line, `the currency of subaccount ${src} is not known (the API did not return one): give the row a currency cell`)
    return [...problems].sort((a, b) => a[0] - b[0]).map(([line, texts]) => ({line, message: texts.join('; ')}))
  }

  /** A row in minor units without a currency takes its source's: sets it on every such pending row of `src`. */
  setCurrency(src: string, currency: string): number {
    const changed = this.db.prepare('UPDATE plan SET currency = ? WHERE src = ? AND currency_given = 0 AND currency <> ? AND done = 0').run(currency, src, currency).changes
    if (changed) this.refigure()
    return changed
  }

  /**
   * How the journal stands to the file: `changed`, rows sent before whose content changed (a key
   * cell sent with other content; or a new row on a line the journal sent a row from, whose
   * content the file now holds fewer times than the journal sent it); `missing`, lines of
   * journaled rows that may have made a move and whose keys no row of the file has any more.
   */
  compare(): {changed: RowError[]; missing: number[]} {
    const missing = this.db
      .prepare(`SELECT j.line AS line FROM journal j LEFT JOIN plan p ON p.key = j.key WHERE p.key IS NULL AND ${moved('j')} ORDER BY j.line`)
      .all<{line: number}>()
      .map((r) => Number(r.line))
    const changed: RowError[] = this.db
      .prepare(`SELECT p.line AS line FROM plan p JOIN journal j ON j.key = p.key WHERE p.fp <> j.fp`)
      .all<{line: number}>()
      .map((r) => ({line: Number(r.line), message: 'its idempotency_key was sent before with other content'}))
    // New rows on lines the journal sent another content from (an index probe per new row).
    const onSentLines = this.db.prepare(
      `SELECT p.line AS line, s.fp AS fp FROM plan p LEFT JOIN journal j ON j.key = p.key JOIN journal s ON s.line = p.line AND s.fp <> p.fp AND ${moved('s')} WHERE j.key IS NULL`,
    )
    const fewer = this.db.prepare(`SELECT (SELECT COUNT(*) FROM journal j WHERE j.fp = ? AND ${moved('j')}) > (SELECT COUNT(*) FROM plan WHERE fp = ?) AS x`)
    const seen = new Set<number>()
    for (const p of onSentLines.all<{line: number; fp: string}>()) {
      if (seen.has(Number(p.line)) || !fewer.get<{x: number}>(p.fp, p.fp)?.x) continue
      seen.add(Number(p.line))
      changed.push({line: Number(p.line), message: 'this line held a row that was sent, and the file no longer holds it'})
    }
    return {changed: changed.sort((a, b) => a.line - b.line), missing}
  }

  /**
   * Lines of rows whose content a journal entry that may have made a move has too, as many per
   * content as there are such entries (the rows a new batch sends again). Rows with a key cell
   * keep their key and are not counted.
   */
  resent(): number[] {
    return this.db
      .prepare(
        `SELECT p.line AS line FROM plan p WHERE p.cell_key = 0 AND p.n <= (SELECT COUNT(*) FROM journal j WHERE j.fp = p.fp AND j.derived = 1 AND ${moved('j')}) ORDER BY p.line`,
      )
      .all<{line: number}>()
      .map((r) => Number(r.line))
  }

  /** Lines of rows whose content another row of the file has too (each such row after the first). */
  repeats(): number[] {
    return this.db.prepare('SELECT line FROM plan INDEXED BY plan_repeats WHERE n > 1 ORDER BY line').all<{line: number}>().map((r) => Number(r.line))
  }

  /** Records what happened to a row's key; committed with the others within the next 50 ms (or at flush). */
  record(row: Pick<PlannedRow, 'key' | 'fp' | 'line' | 'n'>, rec: JournalRecord): void {
    this.queue.push([row, rec])
    if (this.queue.length >= 500) this.flush()
    else this.timer ??= setTimeout(() => this.flush(), 50)
  }

  /** Takes in records from elsewhere (the control store's journal of this batch), each on the line its key has in this plan, and commits them. */
  absorb(records: ReadonlyArray<[Pick<PlannedRow, 'key' | 'fp' | 'line' | 'n'>, JournalRecord]>): void {
    const lineOf = this.db.prepare('SELECT line FROM plan WHERE key = ?')
    for (const [row, rec] of records) this.queue.push([{...row, line: Number(lineOf.get<{line: number}>(row.key)?.line ?? row.line)}, rec])
    this.flush()
  }

  /** Commits every record queued. */
  flush(): void {
    if (this.timer) clearTimeout(this.timer)
    this.timer = undefined
    if (!this.queue.length) return
    const upsert = this.db.prepare(
      `INSERT INTO journal (key, fp, derived, line, state, kind, move_id, move_status, http_status, warning, error_status, error_code, message, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (key) DO UPDATE SET fp = excluded.fp, line = excluded.line, state = excluded.state, kind = COALESCE(excluded.kind, journal.kind), move_id = COALESCE(excluded.move_id, journal.move_id),
       move_status = COALESCE(excluded.move_status, journal.move_status),
       http_status = excluded.http_status, warning = excluded.warning, error_status = excluded.error_status, error_code = excluded.error_code, message = excluded.message, at = excluded.at
       WHERE journal.state <> 'done' OR excluded.state = 'done'`,
    )
    const batch = this.queue.splice(0)
    const at = new Date(systemClock.now()).toISOString()
    const markDone = this.db.prepare('UPDATE plan SET done = ? WHERE key = ? AND done = 0 RETURNING currency, amount, done')
    const move = this.db.prepare('INSERT INTO figures VALUES (?, ?, ?, ?) ON CONFLICT (currency, done) DO UPDATE SET n = n + excluded.n, amount = amount + excluded.amount')
    this.db.transaction(() => {
      for (const [{key, fp, line, n}, r] of batch) {
        const row = r.state === 'done' ? markDone.get<{currency: string; amount: number; done: number}>(r.move_status?.toLowerCase() === 'created' ? 2 : 1, key) : undefined
        if (row) move.run(row.currency, 0, -1, -row.amount)
        if (row) move.run(row.currency, row.done, 1, row.amount)
        const done = r.state === 'done' || r.state === 'open' ? r : undefined
        const failed = r.state === 'failed' ? r : undefined
        upsert.run(key, fp, n > 0 ? 1 : 0, line, r.state, done?.kind ?? null, done?.move_id ?? null, done?.move_status ?? null, done?.http_status ?? null, done?.warning ?? null, failed?.error_status ?? null, failed?.error_code ?? null, failed?.message ?? null, at)
      }
    })
  }

  close(): void {
    this.flush()
    this.db.close()
  }
}
