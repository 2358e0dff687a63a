/**
 * Webhook endpoint configuration: request schemas (validated by the CLI before sending and by the
 * emulator on receipt) and the resource schema the client parses responses with.
 */
import * as z from 'zod/mini'
import {isLoopbackHost} from '../../net.js'
import {Timestamp, drift, preprocess} from './common.js'
import {WEBHOOK_EVENT_TYPES, WebhookEventType} from './events.js'

/** What each subscribable event type means (the catalog GET /api/webhooks/event-types serves). */
export const EVENT_TYPE_DESCRIPTIONS: Record<WebhookEventType, string> = {
  'payout.debited': 'Funds debited from the sender\'s account',
  'payout.settled': 'Payout settled to the recipient',
  'payout.failed': 'Payout failed during processing',
  'payin.settled': 'Payin settled and funds received',
  'payin.failed': 'Payin failed during processing',
  'subaccount.credit_received': 'Inbound credit received on a virtual subaccount',
}

/**
 * Why `url` cannot be a webhook endpoint, or undefined when it can: HTTPS only, except plain http
 * to a loopback address (127.0.0.1, localhost, ::1), which the emulator accepts for local tests.
 */
export function webhookUrlProblem(url: string): string | undefined {
  let u: URL
  try {
    u = new URL(url)
  } catch {
    return `"${url}" is not a valid URL`
  }
  if (u.username || u.password) return 'must not carry credentials'
  if (u.protocol === 'https:') return undefined
  if (u.protocol === 'http:' && isLoopbackHost(u.hostname)) return undefined
  if (u.protocol === 'http:') return 'must use https:// (plain http:// is accepted only for loopback addresses)'
  return 'must be an https:// URL'
}

export const WebhookUrl = z.string({message: 'url is required'}).check(
  z.maxLength(2048, 'url must be at most 2048 characters'),
  z.superRefine((v: string, ctx) => {
    const problem = webhookUrlProblem(v)
    if (problem) ctx.addIssue({code: 'custom', message: problem})
  }),
)

const catalog = WEBHOOK_EVENT_TYPES.join(', ')

export const EventTypeList = z.pipe(
  z
    .array(z.enum(WEBHOOK_EVENT_TYPES, {message: `unknown event type; subscribable types: ${catalog}`}), {message: 'event_types must be a list'})
    .check(z.minLength(1, 'event_types must name at least one event type')),
  z.transform((list: WebhookEventType[]) => [...new Set(list)].sort()),
)

export const Description = z.string({message: 'description must be a string'}).check(z.maxLength(500, 'description must be at most 500 characters'))

export const WebhookCreateRequest = z.object({
  url: WebhookUrl,
  description: z.nullish(Description),
  event_types: EventTypeList,
})
export type WebhookCreateRequest = z.infer<typeof WebhookCreateRequest>

/** PATCH /api/webhooks/{id}: only the given fields change; `event_types` replaces the allowlist. */
export const WebhookUpdateRequest = z.object({
  url: z.optional(WebhookUrl),
  description: z.nullish(Description),
  event_types: z.optional(EventTypeList),
})
export type WebhookUpdateRequest = z.infer<typeof WebhookUpdateRequest>

export const WebhookListQuery = z.object({
  cursor: z.optional(z.string()),
  limit: z.optional(z.coerce.number().check(z.int('limit must be an integer'), z.gte(1, 'limit must be 1 to 500'), z.lte(500, 'limit must be 1 to 500'))),
  order: z.optional(z.enum(['asc', 'desc'], {message: 'order must be asc or desc'})),
})

/** Webhook configuration; `event_types` is kept sorted. */
export const WebhookEndpoint = drift(
  (o) => (Array.isArray(o.event_types) ? {...o, event_types: [...(o.event_types as unknown[])].sort()} : o),
  z.looseObject({
    id: z.string(),
    url: z.string(),
    description: z.nullish(z.string()),
    is_active: z.boolean(),
    event_types: z.array(z.string()),
    created_at: z.optional(Timestamp),
    updated_at: z.optional(Timestamp),
  }),
)
export type WebhookEndpoint = z.infer<typeof WebhookEndpoint>

/** The create response: the configuration plus its signing secret (returned only here). */
export const WebhookEndpointWithSecret = z.intersection(WebhookEndpoint, z.looseObject({secret: z.string().check(z.minLength(1))}))
export type WebhookEndpointWithSecret = z.infer<typeof WebhookEndpointWithSecret>

/** One catalog entry; a bare string entry is read as `{type}`. */
export const EventTypeEntry = preprocess(
  (v) => (typeof v === 'string' ? {type: v} : v),
  z.looseObject({type: z.string(), description: z.nullish(z.string())}),
)
export type EventTypeEntry = z.infer<typeof EventTypeEntry>
