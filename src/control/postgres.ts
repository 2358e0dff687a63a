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
import {BOOTSTRAP, createRoleSql, MIGRATION_LOCK, PG_MIGRATIONS, TEAM_ROLES} from './migrations.js'
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
        for (const o of decision.outcomes ?? []) await this.query('SELECT payops.record_outcome($1, $2, $3)', [o.intentSeq, o.status, JSON.stringify(o.detail ?? {})])
        const intent = decision.intent ? await this.append(decision.intent) : undefined
        const intents: IntentRecord[] = []
        for (const i of decision.intents ?? []) intents.push(await this.append(i))
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

  async recordOutcome(intentSeq: number, status: string, detail: Record<string, unknown> = {}): Promise<void> {
    await this.q('SELECT payops.record_outcome($1, $2, $3)', [intentSeq, status, JSON.stringify(detail)])
  }

  /** One transaction (one commit) for the outcomes of a group of requests. */
  async recordOutcomes(list: readonly OutcomeInput[]): Promise<void> {
    if (list.length === 1) return this.recordOutcome(list[0].intentSeq, list[0].status, list[0].detail)
    await inTurn(this.client, async () => {
      try {
        await this.query('BEGIN')
        for (const o of list) await this.query('SELECT payops.record_outcome($1, $2, $3)', [o.intentSeq, o.status, JSON.stringify(o.detail ?? {})])
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

export interface InitResult {
  store: string
  schema_version: number
  /** Versions this run applied (none when the store was up to date). */
  applied: number[]
  roles: string[]
  entity: string
  /** Whether this run bound the store to the entity (false: it already was). */
  bound: boolean
}

/**
 * Creates or brings up to date the team store's schema and roles, and binds it to `entity`, under
 * a session advisory lock: two inits at once apply each version once, the second finding the
 * first's work done. Refuses a store bound to another entity.
 */
export async function initPgStore(opts: PgConnectOptions & {entity: string}): Promise<InitResult> {
  const client = await connectPg(opts)
  const where = describeStore(opts.address)
  const run = async (sql: string, params: unknown[] = []) => {
    try {
      return (await client.query(sql, params)).rows as Array<Record<string, unknown>>
    } catch (err) {
      throw storeError(err, where)
    }
  }
  try {
    await run('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK])
    for (const role of TEAM_ROLES) await run(createRoleSql(role))
    await run(BOOTSTRAP)
    const have = num((await run('SELECT coalesce(max(version), 0) AS v FROM payops.schema_versions'))[0].v)
    if (have > PG_MIGRATIONS.length) throw new UsageError(`The team store ${where} was set up by a newer payops (schema ${have}; this one knows ${PG_MIGRATIONS.length}). Upgrade payops.`)
    const applied: number[] = []
    for (let v = have + 1; v <= PG_MIGRATIONS.length; v++) {
      await run('BEGIN')
      try {
        await run(PG_MIGRATIONS[v - 1])
        await run('INSERT INTO payops.schema_versions (version) VALUES ($1)', [v])
        await run('COMMIT')
      } catch (err) {
        await client.query('ROLLBACK').catch(() => undefined)
        throw err
      }
      applied.push(v)
    }
    const inserted = await run('INSERT INTO payops.binding (entity) VALUES ($1) ON CONFLICT DO NOTHING RETURNING entity', [opts.entity])
    const bound = String((await run('SELECT entity FROM payops.binding'))[0].entity)
    if (bound !== opts.entity) throw new UsageError(`The team store ${where} already serves another entity (fingerprint ${bound.slice(0, 12)}…): a store serves one entity; this profile's key is another's. Nothing was bound.`)
    return {store: where, schema_version: PG_MIGRATIONS.length, applied, roles: [...TEAM_ROLES], entity: opts.entity, bound: inserted.length > 0}
  } finally {
    await client.query('SELECT pg_advisory_unlock_all()').catch(() => undefined)
    await client.end().catch(() => undefined)
  }
}
