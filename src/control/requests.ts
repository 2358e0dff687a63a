/**
 * Money requests of members without the key, in the team store: a member's `moves create`,
 * `transfers create` or import row is an approval request of kind `move.create` or
 * `transfer.create` (its maker the role that logged in; its route, amount and Idempotency-Key
 * recorded with it), another member approves it (`decide_approval`), and the worker, where the
 * key lives, claims it and records what became of it (`claim_request`, `record_execution`:
 * src/control/migrations-requests.ts). Only a team store (PostgreSQL) holds them.
 */
import {UsageError} from '../errors.js'
import type {PgControlStore} from './postgres.js'
import type {ApprovalRequest, ControlStore} from './types.js'

export const MONEY_KINDS = ['move.create', 'transfer.create'] as const
export type MoneyKind = (typeof MONEY_KINDS)[number]

export const isMoneyKind = (kind: string): kind is MoneyKind => (MONEY_KINDS as readonly string[]).includes(kind)

/** What a member asks for: the parameters the worker sends, exactly. */
export interface MoneyRequestInput {
  kind: MoneyKind
  currency: string
  /** Minor units. */
  amount: number
  from: string
  to: string
  idempotency_key: string
  auto_approve: boolean
  rail?: string
  scheduled_date?: string
  metadata?: Record<string, unknown>
}

export interface ExecutionOutcome {
  at: string
  worker: string
  status: 'carried_out' | 'failed' | 'unknown'
  resource_id: string | null
  detail: Record<string, unknown>
}

export interface MoneyRequest extends ApprovalRequest {
  kind: MoneyKind
  /** `req-12`: how commands name it. */
  ref: string
  from: string
  idempotency_key: string
  params: {auto_approve: boolean; rail?: string; scheduled_date?: string; metadata?: Record<string, unknown>}
  /** The worker's claim, once one claimed it. */
  claim: null | {at: string; worker: string; idempotency_key: string; /** Seconds since the claim, by the store's clock. */ age_s: number}
  /** What the worker recorded, in order (the last one stands). */
  outcomes: ExecutionOutcome[]
}

export interface Claim {
  /** `first`: claimed now; `resume`: claimed before without a final outcome (it may have been sent). */
  attempt: 'first' | 'resume'
  claimed_at: string
  claimed_by: string
  idempotency_key: string
}

export const requestRef = (id: number): string => `req-${id}`

/** The request a `req-N` names (undefined: not such a name). */
export function parseRequestRef(s: string): number | undefined {
  const m = /^req-(\d{1,15})$/.exec(s.trim())
  return m ? Number(m[1]) : undefined
}

function teamOnly(store: ControlStore): PgControlStore {
  if (store.engine !== 'postgres') throw new UsageError('Money requests live in a team store: bind one (`payops profiles set NAME team URL`, or `profiles add NAME --team URL` for a member without the key).')
  return store as PgControlStore
}

const iso = (v: unknown) => (v instanceof Date ? v.toISOString() : String(v))
const str = (v: unknown) => (typeof v === 'string' ? v : '')

function moneyRequestOf(r: Record<string, unknown>): MoneyRequest {
  const detail = (r.detail as Record<string, unknown>) ?? {}
  const params = (detail.params as MoneyRequest['params']) ?? {auto_approve: true}
  return {
    id: Number(r.id), ref: requestRef(Number(r.id)), at: iso(r.at), maker: String(r.maker), kind: r.kind as MoneyKind, currency: String(r.currency),
    amount: Number(r.amount), destination: (r.destination as string | null) ?? null, detail, from: str(detail.from), idempotency_key: str(detail.idempotency_key), params,
    decision: r.decision ? {decision: r.decision as 'approved' | 'rejected', checker: String(r.checker), at: iso(r.decided_at), note: (r.note as string | null) ?? null} : null,
    claim: r.claimed_at ? {at: iso(r.claimed_at), worker: String(r.claimed_by), idempotency_key: String(r.claimed_key), age_s: Number(r.claim_age_s)} : null,
    outcomes: ((r.outcomes as Array<Record<string, unknown>>) ?? []).map((o) => ({
      at: iso(o.at), worker: String(o.worker), status: o.status as ExecutionOutcome['status'], resource_id: (o.resource_id as string | null) ?? null, detail: (o.detail as Record<string, unknown>) ?? {},
    })),
  }
}

const REQUESTS_SQL = `SELECT r.*, d.decision, d.checker, d.at AS decided_at, d.note, e.at AS claimed_at, e.worker AS claimed_by, e.idempotency_key AS claimed_key,
  extract(epoch FROM now() - e.at)::float8 AS claim_age_s,
  (SELECT coalesce(jsonb_agg(jsonb_build_object('at', o.at, 'worker', o.worker, 'status', o.status, 'resource_id', o.resource_id, 'detail', o.detail) ORDER BY o.seq), '[]'::jsonb)
     FROM payops.execution_outcomes o WHERE o.request_id = r.id) AS outcomes
  FROM payops.approval_requests r
  LEFT JOIN payops.approval_decisions d ON d.request_id = r.id
  LEFT JOIN payops.executions e ON e.request_id = r.id
  WHERE r.entity = $1 AND r.kind IN ('move.create', 'transfer.create')`

/** Records a member's money request (its maker: the role that logged in). */
export async function recordMoneyRequest(store: ControlStore, m: MoneyRequestInput): Promise<MoneyRequest> {
  teamOnly(store)
  const params = {auto_approve: m.auto_approve, ...(m.rail ? {rail: m.rail} : {}), ...(m.scheduled_date ? {scheduled_date: m.scheduled_date} : {}), ...(m.metadata ? {metadata: m.metadata} : {})}
  const r = await store.requestApproval({kind: m.kind, currency: m.currency, amount: m.amount, destination: m.to, detail: {from: m.from, idempotency_key: m.idempotency_key, params}})
  return (await moneyRequest(store, r.id))!
}

/** Every money request of the store's entity, oldest first. */
export async function moneyRequests(store: ControlStore): Promise<MoneyRequest[]> {
  const pg = teamOnly(store)
  return (await pg.sql(`${REQUESTS_SQL} ORDER BY r.id`, [pg.entityId])).map(moneyRequestOf)
}

export async function moneyRequest(store: ControlStore, id: number): Promise<MoneyRequest | undefined> {
  const pg = teamOnly(store)
  const [r] = await pg.sql(`${REQUESTS_SQL} AND r.id = $2`, [pg.entityId, id])
  return r ? moneyRequestOf(r) : undefined
}

/** The outcome that stands (the last recorded), if any. */
export const lastOutcome = (r: MoneyRequest): ExecutionOutcome | undefined => r.outcomes.at(-1)

/** Carried out or failed: the worker leaves it alone. */
export const isFinished = (r: MoneyRequest): boolean => ['carried_out', 'failed'].includes(lastOutcome(r)?.status ?? '')

/**
 * Takes the request for this connection (a session advisory lock: released when the worker ends,
 * however it ends); false when another worker holds it.
 */
export async function lockRequest(store: ControlStore, id: number): Promise<boolean> {
  const [r] = await teamOnly(store).sql<{ok: boolean}>(`SELECT pg_try_advisory_lock(hashtextextended('payops:request:' || $1::text, 0)) AS ok`, [id])
  return Boolean(r?.ok)
}

export async function unlockRequest(store: ControlStore, id: number): Promise<void> {
  await teamOnly(store).sql(`SELECT pg_advisory_unlock(hashtextextended('payops:request:' || $1::text, 0))`, [id])
}

/** Claims an approved request for the worker (refused by the store when not approved, approved by its maker, or finished). */
export async function claimRequest(store: ControlStore, id: number): Promise<Claim> {
  const pg = teamOnly(store)
  const [r] = await pg.sql('SELECT * FROM payops.claim_request($1, $2)', [pg.entityId, id])
  return {attempt: r.attempt as Claim['attempt'], claimed_at: iso(r.claimed_at), claimed_by: String(r.claimed_by), idempotency_key: String(r.idempotency_key)}
}

/** Records what became of a claimed request. */
export async function recordExecution(store: ControlStore, id: number, status: ExecutionOutcome['status'], resourceId: string | null, detail: Record<string, unknown>): Promise<void> {
  const pg = teamOnly(store)
  await pg.sql('SELECT payops.record_execution($1, $2, $3, $4, $5)', [pg.entityId, id, status, resourceId, JSON.stringify(detail)])
}

/** Where a request stands, in words: requested, approved, carried out, failed, unknown. */
export function requestState(r: MoneyRequest): string {
  if (!r.decision) return 'requested'
  if (r.decision.decision === 'rejected') return 'rejected'
  if (r.decision.checker === r.maker) return 'approved by its own maker (never carried out)'
  const last = lastOutcome(r)
  if (last) return last.status === 'carried_out' ? 'carried out' : last.status
  return r.claim ? 'being carried out' : 'approved'
}
