/**
 * Subaccounts: create, get, and the activity list (transfer lines from moves, bai2 lines from
 * simulated inbound credits).
 */
import {PATHS} from '../interface/paths.js'
import {ActivityQuery, SubaccountCreateRequest} from '../interface/subaccounts.js'
import type {AppContext} from '../app.js'
import {notFound, validationError} from '../lib/http-error.js'
import {created, ok, parseInput} from '../server/handler.js'
import {paginate} from '../server/pagination.js'
import type {Router} from '../server/router.js'
import {ActivityList, type ActivityEntry, type ActivityRecord, type Entity, type SubaccountRecord} from '../store/index.js'

export function subaccountView(s: SubaccountRecord) {
  return {
    id: s.id,
    name: s.name,
    account_number: s.account_number,
    routing_number: s.routing_numbers.ach,
    routing_numbers: {ach: s.routing_numbers.ach, wire: s.routing_numbers.wire},
    total_incoming_in_minor_units: s.total_incoming_in_minor_units,
    total_outgoing_in_minor_units: s.total_outgoing_in_minor_units,
    total_incoming_cents: s.total_incoming_in_minor_units,
    total_outgoing_cents: s.total_outgoing_in_minor_units,
    currency_code: s.currency_code,
    created_at: s.created_at,
    updated_at: s.updated_at,
  }
}

/** USD lines carry only `amount_in_cents`; other currencies also `amount_in_minor_units`. */
export function activityView(a: ActivityRecord) {
  const v: Record<string, unknown> = {
    id: a.id,
    source: a.source,
    direction: a.direction,
    amount_in_cents: a.amount_in_minor_units,
    effective_at: a.effective_at,
    currency_code: a.currency_code,
  }
  if (a.currency_code !== 'USD') v.amount_in_minor_units = a.amount_in_minor_units
  return v
}

/** The caller's subaccount, or 404 (unknown ids and other entities' ids alike). */
export function findSubaccount(entity: Entity, id: string): SubaccountRecord {
  const s = entity.subaccounts.get(id)
  if (!s) throw notFound(`subaccount ${id} not found`)
  return s
}

export function register(router: Router, app: AppContext): void {
  router.add('POST', PATHS.subaccounts, (ctx) => {
    const body = parseInput(SubaccountCreateRequest, ctx.body)
    const entity = ctx.entity
    const main = entity.mainAccount()
    if (!main || main.currency_code !== 'USD') {
      throw validationError(`subaccounts are not supported for the operating account currency ${main?.currency_code ?? '(none)'}`)
    }
    return created({data: subaccountView(app.store.subaccounts.create(entity, {name: body.name, currency_code: main.currency_code}))})
  })

  router.add('GET', PATHS.subaccount, (ctx) => ok({data: subaccountView(findSubaccount(ctx.entity, ctx.params.subaccount_id))}))

  router.add('GET', PATHS.subaccountActivity, (ctx) => {
    const q = parseInput(ActivityQuery, ctx.query)
    const sub = findSubaccount(ctx.entity, ctx.params.subaccount_id)
    const gte = q.effective_at_gte === undefined ? undefined : Date.parse(q.effective_at_gte)
    const lte = q.effective_at_lte === undefined ? undefined : Date.parse(q.effective_at_lte)
    const filtered = q.direction !== undefined || q.amount_gte !== undefined || q.amount_lte !== undefined || gte !== undefined || lte !== undefined
    const list = ctx.entity.activity.get(sub.id) ?? new ActivityList(sub.id)
    const filter = filtered
      ? (a: ActivityEntry) =>
          (q.direction === undefined || list.directionOf(a) === q.direction) &&
          (q.amount_gte === undefined || a.amount_in_minor_units >= q.amount_gte) &&
          (q.amount_lte === undefined || a.amount_in_minor_units <= q.amount_lte) &&
          (gte === undefined || list.effectiveMsOf(a) >= gte) &&
          (lte === undefined || list.effectiveMsOf(a) <= lte)
      : undefined
    const scope = ['activity', sub.id, q.direction, q.amount_gte, q.amount_lte, gte, lte].join('|')
    return ok(paginate(list, {limit: q.limit, order: q.order ?? 'desc', cursor: q.cursor, filter, scope}, (a) => activityView(list.line(a))))
  })
}
