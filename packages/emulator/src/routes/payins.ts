/**
 * Payins: GET /api/payins/{id} (404 PAYIN_NOT_FOUND for unknown ids and other entities' payins),
 * and the control API that stands in for payin creation and processing, which the spec does not
 * show:
 *
 * - POST /_emulator/payins  `{entity?, payer_id?, amount_in_minor_units, currency_code?, rail?,
 *   scheduled_date?, client_metadata?}` -> 201 `{data: Payin}`. Without payer_id the entity's
 *   newest payer with a default payment method pays; a payer without one is a 400.
 * - POST /_emulator/payins/{id}/advance `{status}` -> 200 `{data: Payin, transitions: [...]}`.
 *   Allowed steps: created -> approved -> initiated -> debited -> settled; failed from approved,
 *   initiated or debited; canceled from created or approved. A later state on that happy path is
 *   reached by walking through the states between. Anything else is 409 INVALID_STATE_TRANSITION.
 *   Becoming `initiated` assigns the end_to_end_id; `settled` emits payin.settled, `failed`
 *   emits payin.failed.
 * - GET /_emulator/payins?entity=test -> `{data: [Payin]}` newest first.
 */
import {PATHS} from '../interface/paths.js'
import * as z from 'zod/mini'
import {ClientMetadata} from '../interface/common.js'
import {CalendarDate, PAYIN_RAILS, PAYIN_STATUSES, type PayinStatus} from '../interface/parties.js'
import type {AppContext} from '../app.js'
import {HttpError, notFound, validationError} from '../lib/http-error.js'
import {created, ok, parseInput} from '../server/handler.js'
import type {Router} from '../server/router.js'
import {stepPayin} from '../lifecycle/payin-steps.js'
import {ENTITY_ROLES, type Entity, type PayinRecord} from '../store/index.js'

export function payinView(p: PayinRecord) {
  const payment_method: Record<string, string> = {account_last_four: p.payment_method.account_last_four, routing_number: p.payment_method.routing_number}
  if (p.payment_method.end_to_end_id !== null) payment_method.end_to_end_id = p.payment_method.end_to_end_id
  return {
    id: p.id,
    payer_id: p.payer_id,
    amount_in_minor_units: p.amount_in_minor_units,
    amount_in_cents: p.amount_in_minor_units,
    currency_code: p.currency_code,
    rail: p.rail,
    status: p.status as string,
    status_recorded_at: p.status_recorded_at,
    payin_metadata: {payment_method, payer: {name: p.payer.name, email: p.payer.email}},
    client_metadata: p.client_metadata,
    scheduled_date: p.scheduled_date,
    created_at: p.created_at,
    updated_at: p.updated_at,
  }
}

export function findPayin(entity: Entity, id: string): PayinRecord {
  const p = entity.payins.get(id)
  if (!p) throw notFound(`payin ${id} not found`, 'PAYIN_NOT_FOUND')
  return p
}

/** The states each state may move to in one step. */
export const PAYIN_TRANSITIONS: Record<PayinStatus, readonly PayinStatus[]> = {
  created: ['approved', 'canceled'],
  approved: ['initiated', 'failed', 'canceled'],
  initiated: ['debited', 'failed'],
  debited: ['settled', 'failed'],
  settled: [],
  failed: [],
  canceled: [],
}
const HAPPY_PATH: readonly PayinStatus[] = ['created', 'approved', 'initiated', 'debited', 'settled']

/** The steps from `from` to `to`, or undefined when `to` cannot be reached. */
export function payinPath(from: PayinStatus, to: PayinStatus): PayinStatus[] | undefined {
  if (PAYIN_TRANSITIONS[from].includes(to)) return [to]
  const i = HAPPY_PATH.indexOf(from)
  const j = HAPPY_PATH.indexOf(to)
  if (i >= 0 && j > i) return HAPPY_PATH.slice(i + 1, j + 1) as PayinStatus[]
  return undefined
}

const EntityRole = z.enum(ENTITY_ROLES, {message: `entity must be one of ${ENTITY_ROLES.join(', ')}`})

const CreatePayinBody = z.object({
  entity: z.optional(EntityRole),
  payer_id: z.optional(z.string({message: 'payer_id must be a string'})),
  amount_in_minor_units: z.int('amount_in_minor_units must be a whole number').check(z.positive('amount must be positive')),
  currency_code: z.optional(z.string().check(z.regex(/^[A-Za-z]{3}$/, 'currency_code must be an ISO 4217 code'))),
  rail: z.optional(z.enum(PAYIN_RAILS, {message: `rail must be one of ${PAYIN_RAILS.join(', ')}`})),
  scheduled_date: z.optional(z.nullable(CalendarDate)),
  client_metadata: z.optional(ClientMetadata),
})

const AdvanceBody = z.object({
  status: z.enum(PAYIN_STATUSES, {message: `status must be one of ${PAYIN_STATUSES.join(', ')}`}),
})

export function register(router: Router, app: AppContext): void {
  router.add('GET', PATHS.payin, (ctx) => ok({data: payinView(findPayin(ctx.entity, ctx.params.payin_id))}))

  router.add('POST', '/_emulator/payins', (ctx) => {
    const body = parseInput(CreatePayinBody, ctx.body)
    const role = body.entity ?? 'test'
    const entity = app.store.entityByRole(role)
    if (!entity) throw notFound(`entity ${role} not found`)
    const currency = (body.currency_code ?? 'USD').toUpperCase()
    if (currency !== 'USD') throw validationError(`ACH payins are USD only, not ${currency}`)
    let payer
    if (body.payer_id !== undefined) {
      payer = entity.payers.get(body.payer_id)
      if (!payer) throw notFound(`payer ${body.payer_id} not found in entity ${role}`)
      if (!payer.default_payment_method) throw validationError(`payer ${payer.id} has no default payment method to debit`)
    } else {
      payer = [...entity.payers.items].reverse().find((p) => p.default_payment_method !== null)
      if (!payer) throw validationError(`entity ${role} has no payer with a default payment method`)
    }
    const payin = app.store.payins.create(entity, {
      payer_id: payer.id,
      amount_in_minor_units: body.amount_in_minor_units,
      currency_code: currency,
      rail: body.rail ?? 'standard_ach',
      payment_method: {...payer.default_payment_method!, end_to_end_id: null},
      payer: {name: payer.name, email: payer.email},
      client_metadata: body.client_metadata ?? {},
      scheduled_date: body.scheduled_date ?? null,
    })
    return created({data: payinView(payin)})
  })

  router.add('POST', '/_emulator/payins/{payin_id}/advance', (ctx) => {
    const body = parseInput(AdvanceBody, ctx.body)
    const id = ctx.params.payin_id
    let payin: PayinRecord | undefined
    let entity: Entity | undefined
    for (const e of app.store.entities.values()) {
      const p = e.payins.get(id)
      if (p) {
        payin = p
        entity = e
        break
      }
    }
    if (!payin || !entity) throw notFound(`payin ${id} not found`, 'PAYIN_NOT_FOUND')
    const steps = payinPath(payin.status, body.status)
    if (!steps) throw new HttpError(409, 'INVALID_STATE_TRANSITION', `payin ${id} cannot go from ${payin.status} to ${body.status}`)
    const transitions: string[] = []
    for (const next of steps) {
      transitions.push(`${payin.status}->${next}`)
      stepPayin(app, entity, payin, next)
    }
    return ok({data: payinView(payin), transitions})
  })

  router.add('GET', '/_emulator/payins', (ctx) => {
    const role = parseInput(z.object({entity: z.optional(EntityRole)}), ctx.query).entity ?? 'test'
    const entity = app.store.entityByRole(role)
    if (!entity) throw notFound(`entity ${role} not found`)
    return ok({data: [...entity.payins.items].reverse().map(payinView)})
  })
}
