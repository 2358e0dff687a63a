/**
 * The one-machine engine of the control store: SQLite in the config dir (`controls.sqlite`,
 * purpose `controls`, through src/db). A decision is one `BEGIN IMMEDIATE` transaction: the write
 * lock is taken before today's total is read, so decisions of several processes on this machine
 * run one after another. Records are stamped with the local operator (the profile's operator name,
 * the OS user and host): on one machine there is no other identity to be had. The audit trail is
 * kept in the same file (src/audit/store.ts, on a connection of its own), so the machine's control
 * records are one store; its writers and these take the one write lock in turn.
 */
import {mkdirSync} from 'node:fs'
import {join} from 'node:path'
import {openDatabase, type Database} from '../db/index.js'
import {LocalNotFoundError, AuthError} from '../errors.js'
import type {Limits} from '../config/index.js'
import {StoreConflictError} from './errors.js'
import {inTurn} from './turns.js'
import {CONTROLS_FILE, CONTROLS_SCHEMA} from './sqlite-schema.js'
import {SqliteRecords} from './records-sqlite.js'
import {IMPORT_ROW_FIELDS, batchOf, BATCH_SQL, JOURNAL_SQL, journalEntryOf} from './import-batches.js'
import {limitsOf, type ImportBatch, type ImportJournalEntry, type ApprovalRequest, type ApprovalRequestInput, type ControlStore, type Decision, type Decided, type OutcomeInput, type DecisionView, type IntentRecord, type OutcomeRecord, type PolicyEntry, type StoreStatus} from './types.js'

export {CONTROLS_FILE, CONTROLS_SCHEMA}

export interface SqliteOptions {
  configDir: string
  /** The entity (key fingerprint) this run's records are for. */
  entity: string
  /** Who records: the local operator, described. */
  actor: string
  /** The command's clock (the day a decision counts towards). */
  now: () => number
}

const parse = (v: unknown): Record<string, unknown> => (typeof v === 'string' ? (JSON.parse(v) as Record<string, unknown>) : {})

function intentOf(r: Record<string, unknown>): IntentRecord {
  return {
    seq: Number(r.seq), at: String(r.at), day: String(r.day), actor: String(r.actor), entity: String(r.entity), kind: String(r.kind),
    currency: String(r.currency), amount: Number(r.amount), destination: (r.destination as string | null) ?? null,
    status: r.status as IntentRecord['status'], detail: parse(r.detail),
  }
}

function approvalOf(r: Record<string, unknown>): ApprovalRequest {
  return {
    id: Number(r.id), at: String(r.at), maker: String(r.maker), kind: String(r.kind), currency: String(r.currency), amount: Number(r.amount),
    destination: (r.destination as string | null) ?? null, detail: parse(r.detail),
    decision: r.decision ? {decision: r.decision as 'approved' | 'rejected', checker: String(r.checker), at: String(r.decided_at), note: (r.note as string | null) ?? null} : null,
  }
}

const APPROVALS_SQL = `SELECT r.*, d.decision, d.checker, d.at AS decided_at, d.note
  FROM approval_requests r LEFT JOIN approval_decisions d ON d.request_id = r.id`

export class SqliteControlStore implements ControlStore {
  readonly engine = 'sqlite' as const
  readonly location: string
  readonly records: SqliteRecords

  private constructor(private readonly db: Database, private readonly opts: SqliteOptions) {
    this.location = db.path
    this.records = new SqliteRecords(db, opts.actor, () => this.at())
  }

  static open(opts: SqliteOptions): SqliteControlStore {
    mkdirSync(opts.configDir, {recursive: true, mode: 0o700})
    return new SqliteControlStore(openDatabase(join(opts.configDir, CONTROLS_FILE), CONTROLS_SCHEMA, {synchronous: 'FULL'}), opts)
  }

  private at(): string {
    return new Date(this.opts.now()).toISOString()
  }

  async status(): Promise<StoreStatus> {
    const v = this.db.prepare('SELECT version FROM payops_schema').get<{version: number}>()
    return {engine: 'sqlite', store: this.location, schema_version: Number(v?.version ?? 0), actor: this.opts.actor, roles: [], entity: this.opts.entity}
  }

  /** BEGIN IMMEDIATE: the write lock first, then today's total, the decision and its intent, then COMMIT. */
  decide<T>(fn: (view: DecisionView) => Decision<T> | Promise<Decision<T>>): Promise<Decided<T>> {
    // One after another within this process (a second connection's BEGIN IMMEDIATE would wait for
    // the write lock synchronously, holding up the very event loop the first one needs).
    return inTurn(this.location, () => this.decideNow(fn))
  }

  private async decideNow<T>(fn: (view: DecisionView) => Decision<T> | Promise<Decision<T>>): Promise<Decided<T>> {
    const day = this.at().slice(0, 10)
    const view: DecisionView = {
      day,
      totalToday: async (currency) => Number(this.db.prepare('SELECT total FROM daily_totals WHERE entity = ? AND day = ? AND currency = ?').get<{total: number}>(this.opts.entity, day, currency)?.total ?? 0),
      limits: () => this.limits(),
    }
    this.db.exec('BEGIN IMMEDIATE')
    try {
      const decision = await fn(view)
      if (decision.outcomes?.length) this.appendOutcomes(decision.outcomes)
      const intent = decision.intent ? this.append(day, decision.intent) : undefined
      const intents = decision.intents?.map((i) => this.append(day, i))
      this.db.exec('COMMIT')
      return {value: decision.value, intent, ...(intents && {intents})}
    } catch (err) {
      try {
        this.db.exec('ROLLBACK')
      } catch {
        // The transaction is already gone.
      }
      throw err
    }
  }

  private append(day: string, i: NonNullable<Decision<unknown>['intent']>): IntentRecord {
    const {entity, actor} = this.opts
    const r = this.db
      .prepare('INSERT INTO intents (at, day, actor, entity, kind, currency, amount, destination, status, detail) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING *')
      .get<Record<string, unknown>>(this.at(), day, actor, entity, i.kind, i.currency, i.amount, i.destination ?? null, i.status, JSON.stringify(i.detail ?? {}))!
    if (i.status === 'allowed') {
      this.db
        .prepare('INSERT INTO daily_totals (entity, day, currency, total, last_seq) VALUES (?, ?, ?, ?, ?) ON CONFLICT (entity, day, currency) DO UPDATE SET total = total + excluded.total, last_seq = excluded.last_seq')
        .run(entity, day, i.currency, i.amount, Number(r.seq))
    }
    return intentOf(r)
  }

  async recordOutcome(intentSeq: number, status: string, detail: Record<string, unknown> = {}): Promise<void> {
    this.db.prepare('INSERT INTO outcomes (intent_seq, at, actor, status, detail) VALUES (?, ?, ?, ?, ?)').run(intentSeq, this.at(), this.opts.actor, status, JSON.stringify(detail))
  }

  async recordOutcomes(list: readonly OutcomeInput[]): Promise<void> {
    this.db.transaction(() => this.appendOutcomes(list))
  }

  private appendOutcomes(list: readonly OutcomeInput[]): void {
    const insert = this.db.prepare('INSERT INTO outcomes (intent_seq, at, actor, status, detail) VALUES (?, ?, ?, ?, ?)')
    for (const o of list) insert.run(o.intentSeq, this.at(), this.opts.actor, o.status, JSON.stringify(o.detail ?? {}))
  }

  async outcomes(intentSeq?: number): Promise<OutcomeRecord[]> {
    const rows =
      intentSeq === undefined
        ? this.db.prepare('SELECT o.* FROM outcomes o JOIN intents i ON i.seq = o.intent_seq WHERE i.entity = ? ORDER BY o.seq').all<Record<string, unknown>>(this.opts.entity)
        : this.db.prepare('SELECT * FROM outcomes WHERE intent_seq = ? ORDER BY seq').all<Record<string, unknown>>(intentSeq)
    return rows.map((r) => ({seq: Number(r.seq), intent_seq: Number(r.intent_seq), at: String(r.at), actor: String(r.actor), status: String(r.status), detail: parse(r.detail)}))
  }

  async intentFor(resourceId: string): Promise<IntentRecord | undefined> {
    const r = this.db
      .prepare(`SELECT i.* FROM intents i JOIN outcomes o ON o.intent_seq = i.seq
        WHERE i.entity = ? AND i.kind LIKE '%.create' AND json_extract(o.detail, '$.id') = ? ORDER BY i.seq DESC LIMIT 1`)
      .get<Record<string, unknown>>(this.opts.entity, resourceId)
    return r ? intentOf(r) : undefined
  }

  async intents(): Promise<IntentRecord[]> {
    return this.db.prepare('SELECT * FROM intents WHERE entity = ? ORDER BY seq').all<Record<string, unknown>>(this.opts.entity).map(intentOf)
  }

  async policies(): Promise<PolicyEntry[]> {
    const rows = this.db
      .prepare('SELECT p.key, p.value, p.actor, p.at FROM policies p WHERE p.seq = (SELECT max(seq) FROM policies q WHERE q.key = p.key) ORDER BY p.key')
      .all<{key: string; value: string | null; actor: string; at: string}>()
    return rows.filter((r) => r.value !== null && r.value !== 'null').map((r) => ({key: r.key, value: JSON.parse(r.value!), set_by: r.actor, set_at: r.at}))
  }

  async setPolicy(key: string, value: unknown): Promise<PolicyEntry> {
    const at = this.at()
    this.db.prepare('INSERT INTO policies (at, actor, key, value) VALUES (?, ?, ?, ?)').run(at, this.opts.actor, key, JSON.stringify(value ?? null))
    return {key, value, set_by: this.opts.actor, set_at: at}
  }

  async limits(): Promise<Limits> {
    return limitsOf(await this.policies())
  }

  async requestApproval(req: ApprovalRequestInput): Promise<ApprovalRequest> {
    const r = this.db
      .prepare('INSERT INTO approval_requests (at, maker, entity, kind, currency, amount, destination, detail) VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING id')
      .get<{id: number}>(this.at(), this.opts.actor, this.opts.entity, req.kind, req.currency, req.amount, req.destination ?? null, JSON.stringify(req.detail ?? {}))!
    return this.approval(Number(r.id))
  }

  private approval(id: number): ApprovalRequest {
    const r = this.db.prepare(`${APPROVALS_SQL} WHERE r.id = ?`).get<Record<string, unknown>>(id)
    if (!r) throw new LocalNotFoundError(`No approval request ${id} in ${this.location}.`)
    return approvalOf(r)
  }

  async decideApproval(id: number, decision: 'approved' | 'rejected', note?: string): Promise<ApprovalRequest> {
    this.db.transaction(() => {
      const req = this.approval(id)
      if (req.maker === this.opts.actor) throw new AuthError(`${this.opts.actor} made approval request ${id} and may not decide it.`)
      if (req.decision) throw new StoreConflictError(`Approval request ${id} is already ${req.decision.decision} (by ${req.decision.checker}).`)
      this.db.prepare('INSERT INTO approval_decisions (request_id, at, checker, decision, note) VALUES (?, ?, ?, ?, ?)').run(id, this.at(), this.opts.actor, decision, note ?? null)
    })
    return this.approval(id)
  }

  async approvals(): Promise<ApprovalRequest[]> {
    return this.db.prepare(`${APPROVALS_SQL} WHERE r.entity = ? ORDER BY r.id`).all<Record<string, unknown>>(this.opts.entity).map(approvalOf)
  }

  async importBatch(digest: string, progress = false): Promise<ImportBatch | undefined> {
    const r = this.db.prepare(BATCH_SQL('', '?', '?', progress)).get<Record<string, unknown>>(this.opts.entity, digest)
    return r ? batchOf(r) : undefined
  }

  async importBatchIds(digest: string): Promise<string[]> {
    return this.db.prepare('SELECT batch_id FROM import_batches WHERE entity = ? AND digest = ? ORDER BY seq').all<{batch_id: string}>(this.opts.entity, digest).map((r) => r.batch_id)
  }

  async recordImportBatch(b: {digest: string; batch_id: string; file: string; rows: number; replaces: string | null}): Promise<ImportBatch> {
    await inTurn(this.location, async () => {
      this.db.exec('BEGIN IMMEDIATE')
      try {
        const latest = this.db.prepare('SELECT batch_id FROM import_batches WHERE entity = ? AND digest = ? ORDER BY seq DESC LIMIT 1').get<{batch_id: string}>(this.opts.entity, b.digest)?.batch_id ?? null
        const known = this.db.prepare('SELECT 1 AS x FROM import_batches WHERE entity = ? AND digest = ? AND batch_id = ?').get(this.opts.entity, b.digest, b.batch_id)
        if (!known) {
          if (latest !== b.replaces) throw new StoreConflictError(`Another import started a batch of these rows meanwhile (batch ${latest}); nothing was sent.`)
          this.db.prepare('INSERT INTO import_batches (entity, digest, batch_id, file, row_count, at, actor) VALUES (?, ?, ?, ?, ?, ?, ?)').run(this.opts.entity, b.digest, b.batch_id, b.file, b.rows, this.at(), this.opts.actor)
        }
        this.db.exec('COMMIT')
      } catch (err) {
        this.db.exec('ROLLBACK')
        throw err
      }
    })
    return (await this.importBatch(b.digest))!
  }

  async recordImportRows(batchId: string, entries: readonly ImportJournalEntry[]): Promise<void> {
    const cols = IMPORT_ROW_FIELDS.join(', ')
    const insert = this.db.prepare(`INSERT INTO import_rows (batch_id, ${cols}, at, actor) VALUES (?, ${IMPORT_ROW_FIELDS.map(() => '?').join(', ')}, ?, ?)`)
    const at = this.at()
    this.db.transaction(() => {
      for (const e of entries) insert.run(batchId, ...IMPORT_ROW_FIELDS.map((f) => e[f] ?? null), at, this.opts.actor)
    })
  }

  async importJournal(batchId: string): Promise<ImportJournalEntry[]> {
    return this.db.prepare(JOURNAL_SQL('', '?')).all<Record<string, unknown>>(batchId).map(journalEntryOf)
  }

  async finishImportBatch(batchId: string): Promise<void> {
    this.db.prepare('INSERT INTO import_finished (batch_id, at, actor) VALUES (?, ?, ?) ON CONFLICT DO NOTHING').run(batchId, this.at(), this.opts.actor)
  }

  async close(): Promise<void> {
    this.db.close()
  }
}
