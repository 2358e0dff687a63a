/**
 * Account transfers between two treasury accounts of the caller's entity, with their states:
 * created -> approved -> initiated -> settled (or failed).
 *
 * - create (assumed path, see PATHS.transferCreate), auto_approve false: `created`, 201.
 * - create, auto_approve true (default): approved, then initiated at once, 201 `initiated`; with
 *   async initiation enabled for the entity: 202 `approved`, then initiated after `delay_ms` and
 *   settled after another `delay_ms`.
 * - create with an `Idempotency-Key` that was used before: a new transfer, like any other create.
 *   The spec promises idempotency for move create only, so the emulator honours no key here: a
 *   client that leaned on it would be tested against a promise the service never made.
 * - approve: only from `created` -> `approved`, 200 (then advances on its own when async is on).
 * - a transfer approved with a `scheduled_date` after today (America/New_York) stays `approved`
 *   until the emulator's clock reaches that day (scheduler.ts), async or not.
 * - Settlement adds a bank line to both accounts (debit on the source; credit on the destination,
 *   converted with the indicative rate when the currencies differ).
 *
 * Control API (no key, loopback only):
 * - POST /_emulator/async-transfers        {entity, enabled, delay_ms?} async initiation per entity
 * - POST /_emulator/transfers/{id}/advance {status?} one step, or to `initiated|settled|failed`
 */
import * as z from 'zod/mini'
import {PATHS} from '../interface/paths.js'
import {
  ACH_RAILS,
  ConversionEstimateQuery,
  FINAL_TRANSFER_STATUSES,
  INSTANT_RAILS,
  RailOptionsQuery,
  TransferCreateRequest,
  TransfersQuery,
  expandRails,
  type TransferRail,
} from '../interface/transfers.js'
import type {AppContext} from '../app.js'
import {convertMinor, hasRate} from '../store/fx.js'
import {HttpError, notFound, validationError} from '../lib/http-error.js'
import {created, ok, parseInput, type Reply, type RequestContext} from '../server/handler.js'
import {paginate} from '../server/pagination.js'
import type {Router} from '../server/router.js'
import {ENTITY_ROLES, type AccountTransferRecord, type Entity, type Store, type TransferStatus, type TreasuryAccountRecord} from '../store/index.js'
import {stepTransfer, waitsForSendDay} from '../lifecycle/transfer-steps.js'
import {findAccount} from './treasury.js'

export const DEFAULT_ASYNC_DELAY_MS = 1000

export function transferView(t: AccountTransferRecord) {
  const v: Record<string, unknown> = {
    id: t.id,
    from_account_id: t.from_account_id,
    to_account_id: t.to_account_id,
    amount_in_minor_units: t.amount_in_minor_units,
    currency_code: t.currency_code,
    rail: t.rail,
    status: t.status,
    scheduled_date: t.scheduled_date,
    created_at: t.created_at,
    updated_at: t.updated_at,
  }
  if (t.client_metadata !== null) v.client_metadata = t.client_metadata
  return v
}

export function findTransfer(entity: Entity, id: string): AccountTransferRecord {
  const t = entity.accountTransfers.get(id)
  if (!t) throw notFound(`account transfer ${id} not found`)
  return t
}

/** Rails a transfer between these accounts may use (create checks the rail against this). */
export function allowedRails(from: TreasuryAccountRecord, to: TreasuryAccountRecord): TransferRail[] {
  if (from.currency_code === 'USD' && to.currency_code === 'USD') return [...INSTANT_RAILS, ...ACH_RAILS, 'wire']
  return ['wire']
}

/** The rail-options answer: display names as the spec's example shows them. */
export function supportedRailNames(from: TreasuryAccountRecord, to: TreasuryAccountRecord): string[] {
  return from.currency_code === 'USD' && to.currency_code === 'USD' ? ['ACH', 'RTP', 'Wire'] : ['Wire']
}

function asyncDelay(entity: Entity): number | undefined {
  const v = entity.transferSettings.get('delay_ms')
  return v === undefined ? undefined : Number(v)
}

const AsyncBody = z.object({
  entity: z.enum(ENTITY_ROLES, {message: `entity must be one of ${ENTITY_ROLES.join(', ')}`}),
  enabled: z.boolean({message: 'enabled must be a boolean'}),
  delay_ms: z.optional(z.int('delay_ms must be a whole number').check(z.gte(0, 'delay_ms must be 0 to 600000'), z.lte(600_000, 'delay_ms must be 0 to 600000'))),
})

const AdvanceBody = z.object({
  status: z.optional(z.enum(['initiated', 'settled', 'failed'], {message: 'status must be initiated, settled or failed'})),
})

const NEXT: Partial<Record<TransferStatus, TransferStatus>> = {created: 'approved', approved: 'initiated', initiated: 'settled', debited: 'settled'}

/** With async initiation on, an approved or initiated transfer takes its next step after the delay. */
function scheduleAsync(store: Store, entity: Entity, t: AccountTransferRecord): void {
  const delay = asyncDelay(entity)
  if (delay === undefined) return
  const entityId = entity.id
  const timer = setTimeout(() => {
    const e = store.entities.get(entityId)
    const current = e?.accountTransfers.get(t.id)
    if (!e || current !== t || t.held) return // reset since, or held
    if (t.status === 'approved' && waitsForSendDay(store, t)) return // the clock initiates it on its day
    if (t.status === 'approved') stepTransfer(store, e, t, 'initiated')
    else if (t.status === 'initiated') stepTransfer(store, e, t, 'settled')
    else return
    scheduleAsync(store, e, t)
  }, delay)
  timer.unref()
}

/** GET /api/treasury/account-transfers: the filters of the spec, OR within a repeated one. */
function listTransfers(ctx: RequestContext): Reply {
  const q = parseInput(TransfersQuery, ctx.query)
  const accounts = q.account_id && q.account_id.length ? new Set(q.account_id) : undefined
  const rails = q.rail && q.rail.length ? expandRails(q.rail) : undefined
  const statuses = q.status && q.status.length ? new Set<string>(q.status) : undefined
  const gte = q.created_at_gte === undefined ? undefined : Date.parse(q.created_at_gte)
  const lte = q.created_at_lte === undefined ? undefined : Date.parse(q.created_at_lte)
  const amin = q.amount_in_minor_units_gte
  const amax = q.amount_in_minor_units_lte
  const filtered = accounts || rails || statuses || gte !== undefined || lte !== undefined || amin !== undefined || amax !== undefined
  const filter = filtered
    ? (t: AccountTransferRecord) =>
        (!accounts || accounts.has(t.from_account_id) || accounts.has(t.to_account_id)) &&
        (!rails || rails.has(t.rail as TransferRail)) &&
        (!statuses || statuses.has(t.status)) &&
        (amin === undefined || t.amount_in_minor_units >= amin) &&
        (amax === undefined || t.amount_in_minor_units <= amax) &&
        (gte === undefined || Date.parse(t.created_at) >= gte) &&
        (lte === undefined || Date.parse(t.created_at) <= lte)
    : undefined
  const scope = ['account-transfers', [...(accounts ?? [])].sort(), [...(rails ?? [])].sort(), [...(statuses ?? [])].sort(), amin, amax, gte, lte].join('|')
  return ok(paginate(ctx.entity.accountTransfers.items, {limit: q.limit, order: q.order ?? 'desc', cursor: q.cursor, filter, scope}, transferView))
}

/** GET .../conversion-estimate: the indicative conversion of an amount between two accounts. */
function estimate(ctx: RequestContext): Reply {
  const q = parseInput(ConversionEstimateQuery, ctx.query)
  if (q.from_account_id === q.to_account_id) throw validationError('invalid account pair: from_account_id and to_account_id must differ')
  const from = findAccount(ctx.entity, q.from_account_id)
  const to = findAccount(ctx.entity, q.to_account_id)
  if (!hasRate(from.currency_code) || !hasRate(to.currency_code)) {
    throw validationError(`invalid account pair: no indicative rate between ${from.currency_code} and ${to.currency_code}`)
  }
  let conversion
  try {
    conversion = convertMinor(q.amount_in_minor_units, from.currency_code, to.currency_code)
  } catch (err) {
    throw validationError(`amount_in_minor_units: ${(err as Error).message}`)
  }
  return ok({
    data: {
      source_currency_code: from.currency_code,
      source_amount_in_minor_units: q.amount_in_minor_units,
      destination_currency_code: to.currency_code,
      destination_amount_in_minor_units: conversion.destinationMinor,
      indicative_fx_rate: conversion.rateText,
    },
  })
}

export function register(router: Router, app: AppContext): void {
  const {store} = app

  function create(ctx: RequestContext): Reply {
    const entity = ctx.entity
    const input = parseInput(TransferCreateRequest, ctx.body)
    const from = findAccount(entity, input.from_account_id)
    const to = findAccount(entity, input.to_account_id)
    if (input.currency_code !== from.currency_code) {
      throw validationError(`incompatible currency: currency_code ${input.currency_code} differs from the source account's currency ${from.currency_code}`)
    }
    if (!allowedRails(from, to).includes(input.rail)) {
      throw validationError(`unsupported rail ${input.rail} between ${from.currency_code} and ${to.currency_code} accounts: ACH and instant rails need two USD accounts; use wire`)
    }
    const t = store.transfers.create(entity, {
      from_account_id: from.id,
      to_account_id: to.id,
      amount_in_minor_units: input.amount_in_minor_units,
      currency_code: input.currency_code,
      rail: input.rail,
      client_metadata: input.client_metadata,
      scheduled_date: input.scheduled_date,
    })
    if (input.auto_approve === false) return created({data: transferView(t)})
    store.transfers.setStatus(entity, t, 'approved')
    // Scheduled for a later day: queued for initiation until the emulator's clock reaches it.
    if (waitsForSendDay(store, t)) return created({data: transferView(t)})
    if (asyncDelay(entity) !== undefined) {
      scheduleAsync(store, entity, t)
      return {status: 202, body: {data: transferView(t)}}
    }
    store.transfers.setStatus(entity, t, 'initiated')
    return created({data: transferView(t)})
  }

  // Any Idempotency-Key header is ignored (see above).
  router.add('POST', PATHS.transferCreate, (ctx) => create(ctx))

  router.add('POST', PATHS.transferApprove, (ctx) => {
    const entity = ctx.entity
    const t = findTransfer(entity, ctx.params.account_transfer_id)
    if (t.status !== 'created') throw validationError(`account transfer cannot be approved in status ${t.status}`)
    store.transfers.setStatus(entity, t, 'approved')
    scheduleAsync(store, entity, t)
    return ok({data: transferView(t)})
  })

  router.add('GET', PATHS.transfers, (ctx) => listTransfers(ctx))

  router.add('GET', PATHS.conversionEstimate, (ctx) => estimate(ctx))

  router.add('GET', PATHS.railOptions, (ctx) => {
    const q = parseInput(RailOptionsQuery, ctx.query)
    if (q.from_account_id === q.to_account_id) throw validationError('invalid account pair: from_account_id and to_account_id must differ')
    const from = findAccount(ctx.entity, q.from_account_id)
    const to = findAccount(ctx.entity, q.to_account_id)
    return ok({data: {supported_rails: supportedRailNames(from, to)}})
  })
  registerControl(router, app)
}

/** The control API: async initiation per entity, and a transfer's next step (or a chosen one) by hand. */
function registerControl(router: Router, {store}: AppContext): void {

  router.add('POST', '/_emulator/async-transfers', (ctx) => {
    const body = parseInput(AsyncBody, ctx.body)
    const entity = store.entityByRole(body.entity)
    if (!entity) throw notFound(`entity ${body.entity} not found`)
    if (body.enabled) entity.transferSettings.set('delay_ms', String(body.delay_ms ?? DEFAULT_ASYNC_DELAY_MS))
    else entity.transferSettings.delete('delay_ms')
    store.changed()
    return ok({entity: body.entity, enabled: body.enabled, delay_ms: asyncDelay(entity) ?? null})
  })

  router.add('POST', '/_emulator/transfers/{account_transfer_id}/advance', (ctx) => {
    const body = parseInput(AdvanceBody, ctx.body)
    const id = ctx.params.account_transfer_id
    let found: {entity: Entity; t: AccountTransferRecord} | undefined
    for (const e of store.entities.values()) {
      const t = e.accountTransfers.get(id)
      if (t) found = {entity: e, t}
    }
    if (!found) throw notFound(`account transfer ${id} not found`)
    const {entity, t} = found
    if (FINAL_TRANSFER_STATUSES.includes(t.status)) throw new HttpError(400, 'VALIDATION_ERROR', `account transfer is ${t.status} and cannot advance`)
    const target = body.status ?? NEXT[t.status]
    if (!target) throw validationError(`account transfer in status ${t.status} has no next step`)
    if (target === 'initiated' && t.status !== 'created' && t.status !== 'approved') {
      throw validationError(`account transfer in status ${t.status} cannot move to initiated`)
    }
    stepTransfer(store, entity, t, target)
    return ok({data: transferView(t)})
  })
}
