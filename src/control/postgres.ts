/**
 * The team engine of the control store: PostgreSQL through `pg`, loaded on first use (commands
 * that never reach a team store do not pay for it). Every record is appended through the
 * store's SECURITY DEFINER functions (src/control/migrations.ts), which stamp the role that
 * logged in; this module never writes a table itself.
 */
import type {Client} from 'pg'
import {UsageError} from '../errors.js'
import type {Limits} from '../config/index.js'
import {pgpassPassword} from './pgpass.js'
import {retryable, storeError} from './errors.js'
import {inTurn} from './turns.js'
import {PgRecords} from './records-pg.js'
import {PG_MIGRATIONS, TEAM_ROLES} from './migrations.js'
import {describeStore, type DatabaseAddress} from './url.js'
import {BATCH_SQL, batchOf, IMPORT_ROW_FIELDS, JOURNAL_SQL, journalEntryOf} from './import-batches.js'
import {limitsOf, type ImportBatch, type ImportJournalEntry, type ApprovalRequest, type ApprovalRequestInput, type ControlStore, type Decision, type Decided, type IntentInput, type OutcomeInput, type DecisionView, type IntentRecord, type OutcomeRecord, type PolicyEntry, type StoreStatus} from './types.js'

export interface PgConnectOptions {
  address: DatabaseAddress
  /** The command's environment: PGPASSWORD, PGPASSFILE, PGUSER, HOME. */
  env: NodeJS.ProcessEnv
  /** Milliseconds to wait for the server before the store counts as unreachable (default 10,000). */
  connectTimeoutMs?: number
}

/** How often a decision is tried again after a serialization failure or a deadlock. */
const DECIDE_ATTEMPTS = 20

function sslOption(search: string): false | {rejectUnauthorized: boolean} {
  const mode = new URLSearchParams(search).get('sslmode')
  if (mode === 'require' || mode === 'no-verify') return {rejectUnauthorized: false}
  if (mode === 'verify-ca' || mode === 'verify-full') return {rejectUnauthorized: true}
  return false
}

/** A connected client (pg loaded now); an unreachable store is exit 7 naming it. */
export async function connectPg(opts: PgConnectOptions): Promise<Client> {
  const {default: pg} = await import('pg')
  const a = opts.address
  const env = opts.env
  const user = a.user ?? env.PGUSER ?? env.USER ?? 'postgres'
  const client = new pg.Client({
    host: a.host,
    port: a.port,
    database: a.database,
    user,
    // libpq's order: the URL, then PGPASSWORD, then the password file.
    // (pg takes undefined as "no password": the server's refusal then says so.)
    password: (async () => a.password ?? env.PGPASSWORD ?? pgpassPassword(env, {host: a.host, port: a.port, database: a.database, user})) as () => Promise<string>,
    ssl: sslOption(a.search),
    connectionTimeoutMillis: opts.connectTimeoutMs ?? 10_000,
    application_name: 'payops',
  })
  // A connection lost later surfaces on the next query; an 'error' event must not end the process.
  client.on('error', () => undefined)
  try {
    await client.connect()
  } catch (err) {
    await client.end().catch(() => undefined)
    throw storeError(err, describeStore(a))
  }
  return client
}

const num = (v: unknown) => (v === null || v === undefined ? 0 : Number(v))
const iso = (v: unknown) => (v instanceof Date ? v.toISOString() : String(v))
const dayOf = (v: unknown) => (v instanceof Date ? v.toISOString().slice(0, 10) : String(v).slice(0, 10))

function intentOf(r: Record<string, unknown>): IntentRecord {
  return {
    seq: num(r.seq), at: iso(r.at), day: dayOf(r.day), actor: String(r.actor), entity: String(r.entity), kind: String(r.kind),
    currency: String(r.currency), amount: num(r.amount), destination: (r.destination as string | null) ?? null,
    status: r.status as IntentRecord['status'], detail: (r.detail as Record<string, unknown>) ?? {},
  }
}

function approvalOf(r: Record<string, unknown>): ApprovalRequest {
  return {
    id: num(r.id), at: iso(r.at), maker: String(r.maker), kind: String(r.kind), currency: String(r.currency), amount: num(r.amount),
    destination: (r.destination as string | null) ?? null, detail: (r.detail as Record<string, unknown>) ?? {},
    decision: r.decision ? {decision: r.decision as 'approved' | 'rejected', checker: String(r.checker), at: iso(r.decided_at), note: (r.note as string | null) ?? null} : null,
  }
}

const APPROVALS_SQL = `SELECT r.*, d.decision, d.checker, d.at AS decided_at, d.note
  FROM payops.approval_requests r LEFT JOIN payops.approval_decisions d ON d.request_id = r.id`

export class PgControlStore implements ControlStore {
  readonly engine = 'postgres' as const
  readonly location: string
  readonly records: PgRecords

  constructor(
    private readonly client: Client,
    address: DatabaseAddress,
    /** The entity (key fingerprint) this profile's records are for. */
    private readonly entity: string,
  ) {
    this.location = describeStore(address)
    this.records = new PgRecords((sql, params) => this.q(sql, params), entity)
  }

  /** Opens the store for `entity`: its schema must be this payops's and bound to the same entity. */
  /** `entity` null: a member without the key, whose records are for the entity the store serves. */
  static async open(opts: PgConnectOptions & {entity: string | null}): Promise<PgControlStore> {
    const client = await connectPg(opts)
    const store = new PgControlStore(client, opts.address, opts.entity ?? '')
    try {
      const version = await store.schemaVersion()
      const where = store.location
      if (version < PG_MIGRATIONS.length) throw new UsageError(`The team store ${where} is at schema ${version}; this payops needs ${PG_MIGRATIONS.length}: run \`payops team init --database-url URL\` as its administrator.`)
      if (version > PG_MIGRATIONS.length) throw new UsageError(`The team store ${where} was set up by a newer payops (schema ${version}; this one knows ${PG_MIGRATIONS.length}). Upgrade payops.`)
      const bound = await store.boundEntity()
      if (bound === null) throw new UsageError(`The team store ${where} serves no entity yet: run \`payops team init\` under a profile with the entity's key.`)
      if (opts.entity === null) return new PgControlStore(store.client, opts.address, bound)
      if (bound !== opts.entity) throw new UsageError(`The team store ${where} serves another entity: the key in use is not the one it was set up with (fingerprint ${opts.entity.slice(0, 12)}…, the store's ${bound.slice(0, 12)}…). Nothing was done.`)
      return store
    } catch (err) {
      await store.close()
      throw err
    }
  }

  /** The entity (key fingerprint) this store's records are for. */
  get entityId(): string {
    return this.entity
  }

  /** One statement of the store's other modules (src/control/requests.ts), in its turn on this connection. */
  sql<R extends Record<string, unknown> = Record<string, unknown>>(text: string, params: unknown[] = []): Promise<R[]> {
    return this.q<R>(text, params)
  }

  /** One statement, in its turn on this store's connection (never inside another's decision). */
  private q<R extends Record<string, unknown> = Record<string, unknown>>(sql: string, params: unknown[] = []): Promise<R[]> {
    return inTurn(this.client, () => this.query<R>(sql, params)).catch((err: unknown) => {
      throw storeError(err, this.location)
    })
  }

  private async query<R extends Record<string, unknown> = Record<string, unknown>>(sql: string, params: unknown[] = []): Promise<R[]> {
    try {
      return (await this.client.query(sql, params)).rows as R[]
    } catch (err) {
      if (retryable(err)) throw err
      throw storeError(err, this.location)
    }
  }

  async schemaVersion(): Promise<number> {
    const rows = await this.q<{v: unknown}>(`SELECT CASE WHEN to_regclass('payops.schema_versions') IS NULL THEN 0
      ELSE (SELECT coalesce(max(version), 0) FROM payops.schema_versions) END AS v`)
    return num(rows[0]?.v)
  }

  async boundEntity(): Promise<string | null> {
    const rows = await this.q<{entity: string}>('SELECT entity FROM payops.binding')
    return rows[0]?.entity ?? null
  }

  async status(): Promise<StoreStatus> {
    const [who] = await this.q<{actor: string}>('SELECT session_user::text AS actor')
    const roles = await this.q<{role: string}>(`SELECT r AS role FROM unnest($1::text[]) r WHERE pg_has_role(session_user, r, 'MEMBER')`, [[...TEAM_ROLES]])
    return {engine: 'postgres', store: this.location, schema_version: await this.schemaVersion(), actor: who.actor, roles: roles.map((r) => r.role), entity: await this.boundEntity()}
  }

  private view(day: string): DecisionView {
    return {
      day,
      totalToday: async (currency) => {
        const rows = await this.query<{total: unknown}>('SELECT total FROM payops.daily_totals WHERE entity = $1 AND day = $2 AND currency = $3', [this.entity, day, currency])
        return num(rows[0]?.total)
      },
      limits: async () => limitsOf(await this.latestPolicies((sql) => this.query(sql))),
    }
  }

  /**
   * One transaction per decision, under the entity's advisory lock (transaction-scoped, taken as
   * its first statement and released by its commit): decisions on one entity run one after
   * another across every connection and machine, and each statement after the lock, at READ
   * COMMITTED, sees every decision committed before it. `append_intent` takes the same lock itself
   * (schema 6), so a direct call waits its turn too. A deadlock runs the decision again.
   */
  decide<T>(fn: (view: DecisionView) => Decision<T> | Promise<Decision<T>>): Promise<Decided<T>> {
    // The connection is this store's: its decisions (and other statements) take turns on it.
    return inTurn(this.client, () => this.decideNow(fn))
  }

  /** BEGIN and the lock in one round trip (the entity, a hex fingerprint, is written in the statement). */
  private lockStatement(): string {
    if (!/^[0-9a-f]{16,128}$/.test(this.entity)) throw new Error(`not an entity fingerprint: ${this.entity.slice(0, 16)}`)
    return `BEGIN; SELECT pg_advisory_xact_lock(hashtextextended('payops:decide:${this.entity}', 0)), payops.today()::text AS day`
  }

  private async decideNow<T>(fn: (view: DecisionView) => Decision<T> | Promise<Decision<T>>): Promise<Decided<T>> {
    for (let attempt = 1; ; attempt++) {
      try {
        const began = (await this.client.query(this.lockStatement()).catch((err: unknown) => {
          throw retryable(err) ? err : storeError(err, this.location)
        })) as unknown as Array<{rows: Array<{day: string}>}>
        const day = began[1].rows[0].day
        const decision = await fn(this.view(day))
        await this.appendOutcomes(decision.outcomes ?? [])
        const intent = decision.intent ? await this.append(decision.intent) : undefined
        const intents = await this.appendMany(decision.intents ?? [])
        await this.query('COMMIT')
        return {value: decision.value, intent, ...(decision.intents && {intents})}
      } catch (err) {
        await this.client.query('ROLLBACK').catch(() => undefined)
        if (retryable(err) && attempt < DECIDE_ATTEMPTS) continue
        // The store's own errors are said plainly; the decision's own go as they are.
        throw retryable(err) ? storeError(err, this.location) : err
      }
    }
  }

  private async append(i: IntentInput): Promise<IntentRecord> {
    const rows = await this.query('SELECT * FROM payops.append_intent($1, $2, $3, $4, $5, $6, $7)', [this.entity, i.kind, i.currency, i.amount, i.destination ?? null, i.status, JSON.stringify(i.detail ?? {})])
    return intentOf(rows[0])
  }

  /**
   * A group's intents in one statement: `append_intent` called once per row, in the rows' order
   * (WITH ORDINALITY), each call seeing the ones before it (the function is VOLATILE: its own
   * check of the team's policies reads the day's total as the earlier calls left it).
   */
  private async appendMany(list: readonly IntentInput[]): Promise<IntentRecord[]> {
    if (list.length <= 1) return list.length ? [await this.append(list[0])] : []
    const col = <T>(f: (i: IntentInput) => T) => list.map(f)
    const rows = await this.query(
      `SELECT r.* FROM unnest($2::text[], $3::text[], $4::bigint[], $5::text[], $6::text[], $7::jsonb[]) WITH ORDINALITY AS u(kind, currency, amount, destination, status, detail, n)
         CROSS JOIN LATERAL payops.append_intent($1, u.kind, u.currency, u.amount, u.destination, u.status, u.detail) r ORDER BY u.n`,
      [this.entity, col((i) => i.kind), col((i) => i.currency), col((i) => i.amount), col((i) => i.destination ?? null), col((i) => i.status), col((i) => JSON.stringify(i.detail ?? {}))],
    )
    if (rows.length !== list.length) throw new Error(`the team store recorded ${rows.length} of ${list.length} intents`)
    return rows.map(intentOf)
  }

  /** Outcomes in one statement (inside the caller's transaction). */
  private async appendOutcomes(list: readonly OutcomeInput[]): Promise<void> {
    if (list.length === 0) return
    await this.query(
      `SELECT payops.record_outcome(u.seq, u.status, u.detail) FROM unnest($1::bigint[], $2::text[], $3::jsonb[]) WITH ORDINALITY AS u(seq, status, detail, n) ORDER BY u.n`,
      [list.map((o) => o.intentSeq), list.map((o) => o.status), list.map((o) => JSON.stringify(o.detail ?? {}))],
    )
  }

  async recordOutcome(intentSeq: number, status: string, detail: Record<string, unknown> = {}): Promise<void> {
    await this.q('SELECT payops.record_outcome($1, $2, $3)', [intentSeq, status, JSON.stringify(detail)])
  }

  /** One transaction (one commit) for the outcomes of a group of requests. */
  async recordOutcomes(list: readonly OutcomeInput[]): Promise<void> {
    if (list.length === 1) return this.recordOutcome(list[0].intentSeq, list[0].status, list[0].detail)
    await inTurn(this.client, async () => {
      try {
        await this.query('BEGIN')
        await this.appendOutcomes(list)
        await this.query('COMMIT')
      } catch (err) {
        await this.client.query('ROLLBACK').catch(() => undefined)
        throw storeError(err, this.location)
      }
    })
  }

  async outcomes(intentSeq?: number): Promise<OutcomeRecord[]> {
    const rows =
      intentSeq === undefined
        ? await this.q('SELECT o.* FROM payops.outcomes o JOIN payops.intents i ON i.seq = o.intent_seq WHERE i.entity = $1 ORDER BY o.seq', [this.entity])
        : await this.q('SELECT * FROM payops.outcomes WHERE intent_seq = $1 ORDER BY seq', [intentSeq])
    return rows.map((r) => ({seq: num(r.seq), intent_seq: num(r.intent_seq), at: iso(r.at), actor: String(r.actor), status: String(r.status), detail: (r.detail as Record<string, unknown>) ?? {}}))
  }

  async intents(): Promise<IntentRecord[]> {
    return (await this.q('SELECT * FROM payops.intents WHERE entity = $1 ORDER BY seq', [this.entity])).map(intentOf)
  }

  async intentFor(resourceId: string): Promise<IntentRecord | undefined> {
    const rows = await this.q(
      `SELECT i.* FROM payops.intents i JOIN payops.outcomes o ON o.intent_seq = i.seq
        WHERE i.entity = $1 AND i.kind LIKE '%.create' AND o.detail->>'id' = $2 ORDER BY i.seq DESC LIMIT 1`,
      [this.entity, resourceId],
    )
    return rows[0] ? intentOf(rows[0]) : undefined
  }

  async policies(): Promise<PolicyEntry[]> {
    return this.latestPolicies((sql) => this.q(sql))
  }

  private async latestPolicies(run: (sql: string) => Promise<Array<Record<string, unknown>>>): Promise<PolicyEntry[]> {
    const rows = (await run('SELECT DISTINCT ON (key) key, value, actor, at FROM payops.policies ORDER BY key, seq DESC')) as Array<{key: string; value: unknown; actor: string; at: unknown}>
    return rows.filter((r) => r.value !== null).map((r) => ({key: r.key, value: r.value, set_by: r.actor, set_at: iso(r.at)}))
  }

  async setPolicy(key: string, value: unknown): Promise<PolicyEntry> {
    const [r] = await this.q<{key: string; value: unknown; actor: string; at: unknown}>('SELECT * FROM payops.set_policy($1, $2)', [key, JSON.stringify(value ?? null)])
    return {key: r.key, value: r.value, set_by: r.actor, set_at: iso(r.at)}
  }

  async limits(): Promise<Limits> {
    return limitsOf(await this.policies())
  }

  async requestApproval(req: ApprovalRequestInput): Promise<ApprovalRequest> {
    const [r] = await this.q('SELECT * FROM payops.request_approval($1, $2, $3, $4, $5, $6)', [this.entity, req.kind, req.currency, req.amount, req.destination ?? null, JSON.stringify(req.detail ?? {})])
    return approvalOf(r)
  }

  async decideApproval(id: number, decision: 'approved' | 'rejected', note?: string): Promise<ApprovalRequest> {
    await this.q('SELECT payops.decide_approval($1, $2, $3)', [id, decision, note ?? null])
    const [r] = await this.q(`${APPROVALS_SQL} WHERE r.id = $1`, [id])
    return approvalOf(r)
  }

  async approvals(): Promise<ApprovalRequest[]> {
    return (await this.q(`${APPROVALS_SQL} WHERE r.entity = $1 ORDER BY r.id`, [this.entity])).map(approvalOf)
  }

  async importBatch(digest: string, progress = false): Promise<ImportBatch | undefined> {
    const [r] = await this.q(BATCH_SQL('payops.', '$1', '$2', progress), [this.entity, digest])
    return r ? batchOf(r) : undefined
  }

  async importBatchIds(digest: string): Promise<string[]> {
    return (await this.q<{batch_id: string}>('SELECT batch_id FROM payops.import_batches WHERE entity = $1 AND digest = $2 ORDER BY seq', [this.entity, digest])).map((r) => r.batch_id)
  }

  async recordImportBatch(b: {digest: string; batch_id: string; file: string; rows: number; replaces: string | null}): Promise<ImportBatch> {
    await this.q('SELECT payops.record_import_batch($1, $2, $3, $4, $5, $6)', [this.entity, b.digest, b.batch_id, b.file, b.rows, b.replaces])
    return (await this.importBatch(b.digest))!
  }

  async recordImportRows(batchId: string, entries: readonly ImportJournalEntry[]): Promise<void> {
    const rows = entries.map((e) => Object.fromEntries(IMPORT_ROW_FIELDS.map((f) => [f, e[f] ?? null])))
    await this.q('SELECT payops.record_import_rows($1, $2, $3)', [this.entity, batchId, JSON.stringify(rows)])
  }

  async importJournal(batchId: string): Promise<ImportJournalEntry[]> {
    return (await this.q(JOURNAL_SQL('payops.', '$1'), [batchId])).map(journalEntryOf)
  }

  async finishImportBatch(batchId: string): Promise<void> {
    await this.q('SELECT payops.finish_import_batch($1, $2)', [this.entity, batchId])
  }

  async close(): Promise<void> {
    await this.client.end().catch(() => undefined)
  }
}

