/**
 * Moves between two subaccounts of the caller's entity, with the spec's state table:
 *
 * - create, auto_approve true (default): created -> approved -> settled in one request, 201;
 *   if settlement fails the move stays `approved`, 207 with `warning`.
 * - create, auto_approve false: `created`, 201.
 * - create replayed with the same Idempotency-Key: 200 with the existing move, states in upper
 *   case; only a `created` move continues (approval and settlement, when the replay
 *   auto-approves, as the state table says); any other move (an `approved` one left by a 207
 *   included) comes back as it is. A `canceled` or `failed` move is 409 IDEMPOTENCY_KEY_CONFLICT.
 * - a key reused with another body ("A key that was used for one move cannot be used for another
 *   move"): the replay's body is validated and compared with the move (from, to, amount,
 *   client_metadata); a difference is 409 IDEMPOTENCY_KEY_CONFLICT and changes nothing.
 *   `auto_approve` is not compared: the state table continues a `created` move precisely when its
 *   create is replayed with auto_approve true (the spec's Move state table).
 * - approve: only from `created`; 201 settled (in the drifted example shape), or 207 approved.
 * - cancel (DELETE): only from `created`; 200 with the canceled move.
 * - approve and cancel ignore an Idempotency-Key: the spec promises one on create only.
 *
 * Two identical requests in flight cannot both create a move: requests carrying the same
 * Idempotency-Key run one after the other (per entity), and the lookup-then-insert itself never
 * awaits.
 */
import {PATHS} from '../interface/paths.js'
import {MoveCreateRequest} from '../interface/moves.js'
import type {AppContext} from '../app.js'
import {HttpError, notFound, validationError} from '../lib/http-error.js'
import {created, ok, parseInput, type Reply, type RequestContext} from '../server/handler.js'
import {KeyedMutex} from '../server/locks.js'
import type {Router} from '../server/router.js'
import {iso, type Entity, type MoveRecord} from '../store/index.js'
import {findSubaccount} from './subaccounts.js'

export const MAX_IDEMPOTENCY_KEY_LENGTH = 255

export function moveView(m: MoveRecord) {
  const at = iso(m.status_ms)
  return {
    id: m.id,
    from_subaccount_id: m.from_subaccount_id,
    to_subaccount_id: m.to_subaccount_id,
    amount_in_minor_units: m.amount_in_minor_units,
    amount_in_cents: m.amount_in_minor_units,
    currency_code: m.currency_code,
    status: m.status as string,
    status_recorded_at: at,
    client_metadata: m.client_metadata ?? {},
    created_at: iso(m.created_ms),
    updated_at: at,
  }
}

/** The approve response as the spec's example shows it (renamed ids, upper-case status). */
export function approvedMoveView(m: MoveRecord) {
  return {
    id: m.id,
    source_subaccount_id: m.from_subaccount_id,
    destination_subaccount_id: m.to_subaccount_id,
    amount_in_minor_units: m.amount_in_minor_units,
    amount_in_cents: m.amount_in_minor_units,
    currency_code: m.currency_code,
    status: m.status.toUpperCase(),
    settled_at: Number.isNaN(m.settled_ms) ? null : iso(m.settled_ms),
    description: m.client_metadata?.description ?? null,
    client_metadata: m.client_metadata ?? {},
    created_at: iso(m.created_ms),
    updated_at: iso(m.status_ms),
  }
}

export function findMove(entity: Entity, id: string): MoveRecord {
  const m = entity.moves.get(id)
  if (!m) throw notFound(`move ${id} not found`)
  return m
}

/**
 * Approves a `created` move and settles it, unless the control API armed a settlement failure:
 * then it stays `approved` and a warning comes back. Only create, approve and the replay of a
 * `created` move call it: nothing continues an `approved` move (the spec's state table).
 */
function approveAndSettle(app: AppContext, entity: Entity, move: MoveRecord): {warning?: string} {
  if (move.status === 'created') app.store.moves.setStatus(move, 'approved')
  if (app.faults.takeSettlementFailure()) {
    return {warning: `move ${move.id} was approved but its settlement failed; it remains approved`}
  }
  app.store.moves.settle(entity, move)
  return {}
}

function idempotencyKeyOf(ctx: RequestContext): string | undefined {
  const key = ctx.header('idempotency-key')
  if (key === undefined) return undefined
  if (key.length === 0 || key.length > MAX_IDEMPOTENCY_KEY_LENGTH) {
    throw validationError(`Idempotency-Key must be 1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} characters`)
  }
  return key
}

export const KEY_REUSED_MESSAGE = 'A key that was used for one move cannot be used for another move'

/** Whether a create body describes `move` (from, to, amount, client_metadata; absent metadata = empty). */
function sameMove(move: MoveRecord, input: MoveCreateRequest): boolean {
  const amount = input.amount_in_minor_units ?? input.amount_in_cents
  if (input.from_subaccount_id !== move.from_subaccount_id || input.to_subaccount_id !== move.to_subaccount_id || amount !== move.amount_in_minor_units) return false
  const asked = input.client_metadata ?? {}
  const kept = move.client_metadata ?? {}
  const keys = Object.keys(asked)
  return keys.length === Object.keys(kept).length && keys.every((k) => Object.hasOwn(kept, k) && kept[k] === asked[k])
}

function replay(app: AppContext, entity: Entity, move: MoveRecord, body: unknown): Reply {
  if (move.status === 'canceled' || move.status === 'failed') {
    throw new HttpError(409, 'IDEMPOTENCY_KEY_CONFLICT', `Idempotency-Key was used for move ${move.id}, which is ${move.status}; use a new key`)
  }
  const input = parseInput(MoveCreateRequest, body)
  if (!sameMove(move, input)) throw new HttpError(409, 'IDEMPOTENCY_KEY_CONFLICT', KEY_REUSED_MESSAGE)
  let warning: string | undefined
  // Only a `created` move continues (the state table); an `approved` one is returned as it is.
  if (input.auto_approve !== false && move.status === 'created') warning = approveAndSettle(app, entity, move).warning
  const data = {...moveView(move), status: move.status.toUpperCase()}
  return warning ? {status: 207, body: {data, warning}} : ok({data})
}

function createMove(app: AppContext, ctx: RequestContext, key: string | undefined): Reply {
  const entity = ctx.entity
  if (key !== undefined) {
    const existing = app.store.moves.byIdempotencyKey(entity, key)
    if (existing) return replay(app, entity, existing, ctx.body)
  }
  const input = parseInput(MoveCreateRequest, ctx.body)
  const from = findSubaccount(entity, input.from_subaccount_id)
  const to = findSubaccount(entity, input.to_subaccount_id)
  if (from.currency_code !== to.currency_code) {
    throw validationError(`subaccounts have incompatible currencies (${from.currency_code} and ${to.currency_code})`)
  }
  const move = app.store.moves.create(entity, {
    from_subaccount_id: from.id,
    to_subaccount_id: to.id,
    amount_in_minor_units: (input.amount_in_minor_units ?? input.amount_in_cents)!,
    currency_code: from.currency_code,
    client_metadata: input.client_metadata,
    idempotency_key: key,
  })
  if (input.auto_approve === false) return created({data: moveView(move)})
  const {warning} = approveAndSettle(app, entity, move)
  return warning ? {status: 207, body: {data: moveView(move), warning}} : created({data: moveView(move)})
}

export function register(router: Router, app: AppContext): void {
  const inFlight = new KeyedMutex()
  router.add('POST', PATHS.moveCreate, (ctx) => {
    const key = idempotencyKeyOf(ctx)
    if (key === undefined) return createMove(app, ctx, undefined)
    return inFlight.run(`${ctx.entity.id}\n${key}`, () => createMove(app, ctx, key))
  })

  router.add('POST', PATHS.moveApprove, (ctx) => {
    const entity = ctx.entity
    const move = findMove(entity, ctx.params.move_id)
    if (move.status !== 'created') throw validationError(`move cannot be approved in status ${move.status}`)
    const {warning} = approveAndSettle(app, entity, move)
    return warning ? {status: 207, body: {data: approvedMoveView(move), warning}} : created({data: approvedMoveView(move)})
  })

  router.add('DELETE', PATHS.moveCancel, (ctx) => {
    const move = findMove(ctx.entity, ctx.params.move_id)
    if (move.status !== 'created') throw validationError(`move cannot be canceled in status ${move.status}`)
    app.store.moves.setStatus(move, 'canceled')
    return ok({data: moveView(move)})
  })
}
