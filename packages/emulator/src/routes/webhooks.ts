/**
 * Webhook endpoints (create, list, get, update, delete, enable, disable, the event-type catalog)
 * and the delivery engine that signs and sends events to them, plus its control routes:
 *
 * - POST /_emulator/events                   {entity, type, data?} emits any catalog event -> 201
 * - GET  /_emulator/webhooks/retry-policy    the current retry policy
 * - POST /_emulator/webhooks/retry-policy    {base_delay_ms?, max_attempts?, timeout_ms?}
 * - GET  /_emulator/webhook-deliveries       ?endpoint_id=&event_id= delivery attempts, oldest first
 */
import * as z from 'zod/mini'
import {PATHS} from '../interface/paths.js'
import {EVENT_TYPE_DESCRIPTIONS, WEBHOOK_EVENT_TYPES} from '../interface/events.js'
import {WebhookCreateRequest, WebhookListQuery, WebhookUpdateRequest} from '../interface/webhooks.js'
import {sampleData} from '../webhooks/samples.js'
import {generateSecret} from '../webhooks/signature.js'
import type {AppContext} from '../app.js'
import {WebhookDeliveries} from '../webhooks/delivery.js'
import {notFound} from '../lib/http-error.js'
import {created, ok, parseInput} from '../server/handler.js'
import {paginate} from '../server/pagination.js'
import type {Router} from '../server/router.js'
import {ENTITY_ROLES, type Entity, type WebhookRecord} from '../store/index.js'

export function webhookView(w: WebhookRecord) {
  return {
    id: w.id,
    url: w.url,
    description: w.description,
    is_active: w.is_active,
    event_types: [...w.event_types],
    created_at: w.created_at,
    updated_at: w.updated_at,
  }
}

/** The caller's endpoint, or 404 (unknown ids and other entities' ids alike). */
export function findWebhook(entity: Entity, id: string): WebhookRecord {
  const w = entity.webhooks.get(id)
  if (!w) throw notFound(`webhook endpoint ${id} not found`)
  return w
}

const blankToNull = (d: string | null | undefined) => (d === undefined ? undefined : d === null || d.trim() === '' ? null : d)

const EmitBody = z.object({
  entity: z.enum(ENTITY_ROLES, {message: `entity must be one of ${ENTITY_ROLES.join(', ')}`}),
  type: z.enum(WEBHOOK_EVENT_TYPES, {message: `type must be one of ${WEBHOOK_EVENT_TYPES.join(', ')}`}),
  data: z.optional(z.record(z.string(), z.unknown(), {message: 'data must be an object'})),
})

const PolicyBody = z.object({
  base_delay_ms: z.optional(z.int('base_delay_ms must be a whole number').check(z.gte(0), z.lte(3_600_000))),
  max_attempts: z.optional(z.int('max_attempts must be a whole number').check(z.gte(1), z.lte(20))),
  timeout_ms: z.optional(z.int('timeout_ms must be a whole number').check(z.gte(1), z.lte(60_000))),
})

const DeliveriesQuery = z.object({endpoint_id: z.optional(z.string()), event_id: z.optional(z.string())})

export function register(router: Router, app: AppContext): void {
  const deliveries = new WebhookDeliveries(app)
  ;(app.onClose ??= []).push(() => deliveries.close())

  router.add('GET', PATHS.webhookEventTypes, () => {
    const data = WEBHOOK_EVENT_TYPES.map((type) => ({type, description: EVENT_TYPE_DESCRIPTIONS[type]}))
    return ok({data, has_more: false, total_count: data.length, next_cursor: null, previous_cursor: null})
  })

  router.add('POST', PATHS.webhooks, (ctx) => {
    const body = parseInput(WebhookCreateRequest, ctx.body)
    const rec = app.store.webhooks.create(ctx.entity, {
      url: body.url,
      description: blankToNull(body.description) ?? null,
      event_types: body.event_types,
      secret: generateSecret(),
    })
    return created({data: {...webhookView(rec), secret: rec.secret}})
  })

  router.add('GET', PATHS.webhooks, (ctx) => {
    const q = parseInput(WebhookListQuery, ctx.query)
    return ok(paginate(ctx.entity.webhooks.items, {limit: q.limit, order: q.order ?? 'desc', cursor: q.cursor, scope: 'webhooks'}, webhookView))
  })

  router.add('GET', PATHS.webhook, (ctx) => ok({data: webhookView(findWebhook(ctx.entity, ctx.params.webhook_id))}))

  router.add('PATCH', PATHS.webhook, (ctx) => {
    const hook = findWebhook(ctx.entity, ctx.params.webhook_id)
    const body = parseInput(WebhookUpdateRequest, ctx.body)
    app.store.webhooks.update(ctx.entity, hook, {url: body.url, description: blankToNull(body.description), event_types: body.event_types})
    return ok({data: webhookView(hook)})
  })

  router.add('DELETE', PATHS.webhook, (ctx) => {
    const hook = findWebhook(ctx.entity, ctx.params.webhook_id)
    app.store.webhooks.delete(ctx.entity, hook.id)
    return ok({data: webhookView(hook)})
  })

  for (const [path, active] of [
    [PATHS.webhookEnable, true],
    [PATHS.webhookDisable, false],
  ] as const) {
    router.add('POST', path, (ctx) => {
      const hook = findWebhook(ctx.entity, ctx.params.webhook_id)
      if (hook.is_active !== active) app.store.webhooks.update(ctx.entity, hook, {is_active: active})
      return ok({data: webhookView(hook)})
    })
  }

  // ---- control API ----

  router.add('POST', '/_emulator/events', (ctx) => {
    const body = parseInput(EmitBody, ctx.body)
    const entity = app.store.entityByRole(body.entity)
    if (!entity) throw notFound(`entity ${body.entity} not found`)
    const event = app.events.emit(entity.id, body.type, body.data ?? sampleData(body.type))
    return created({data: event})
  })

  router.add('GET', '/_emulator/webhooks/retry-policy', () => ok({data: deliveries.policy}))

  router.add('POST', '/_emulator/webhooks/retry-policy', (ctx) => {
    const body = parseInput(PolicyBody, ctx.body)
    deliveries.policy = {...deliveries.policy, ...Object.fromEntries(Object.entries(body).filter(([, v]) => v !== undefined))}
    return ok({data: deliveries.policy})
  })

  router.add('GET', '/_emulator/webhook-deliveries', (ctx) => {
    const q = parseInput(DeliveriesQuery, ctx.query)
    return ok({data: deliveries.list(q)})
  })
}
