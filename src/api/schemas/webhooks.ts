/**
 * Webhook endpoint configuration: request schemas (validated by the CLI before sending and by the
 * emulator on receipt) and the resource schema the client parses responses with.
 */
import {z} from 'zod'
import {Timestamp, drift} from './common.js'
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

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]', '::1'])

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
  if (u.protocol === 'http:' && LOOPBACK_HOSTS.has(u.hostname)) return undefined
  if (u.protocol === 'http:') return 'must use https:// (plain http:// is accepted only for loopback addresses)'
  return 'must be an https:// URL'
}

export const WebhookUrl = z
  .string({message: 'url is required'})
  .max(2048, 'url must be at most 2048 characters')
  .superRefine((v, ctx) => {
    const problem = webhookUrlProblem(v)
    if (problem) ctx.addIssue({code: 'custom', message: problem})
  })

const catalog = WEBHOOK_EVENT_TYPES.join(', ')

export const EventTypeList = z
  .array(z.enum(WEBHOOK_EVENT_TYPES, {message: `unknown event type; subscribable types: ${catalog}`}), {message: 'event_types must be a list'})
  .min(1, 'event_types must name at least one event type')
  .transform((list) => [...new Set(list)].sort())

export const Description = z.string({message: 'description must be a string'}).max(500, 'description must be at most 500 characters')

export const WebhookCreateRequest = z.object({
  url: WebhookUrl,
  description: Description.nullish(),
  event_types: EventTypeList,
})
export type WebhookCreateRequest = z.infer<typeof WebhookCreateRequest>

/** PATCH /api/webhooks/{id}: only the given fields change; `event_types` replaces the allowlist. */
export const WebhookUpdateRequest = z.object({
  url: WebhookUrl.optional(),
  description: Description.nullish(),
  event_types: EventTypeList.optional(),
})
export type WebhookUpdateRequest = z.infer<typeof WebhookUpdateRequest>

export const WebhookListQuery = z.object({
  cursor: z.string().optional(),
  limit: z.coerce.number().int('limit must be an integer').min(1, 'limit must be 1 to 500').max(500, 'limit must be 1 to 500').optional(),
  order: z.enum(['asc', 'desc'], {message: 'order must be asc or desc'}).optional(),
})

/** Webhook configuration; `event_types` is kept sorted. */
export const WebhookEndpoint = drift(
  (o) => (Array.isArray(o.event_types) ? {...o, event_types: [...(o.event_types as unknown[])].sort()} : o),
  z.looseObject({
    id: z.string(),
    url: z.string(),
    description: z.string().nullish(),
    is_active: z.boolean(),
    event_types: z.array(z.string()),
    created_at: Timestamp.optional(),
    updated_at: Timestamp.optional(),
  }),
)
export type WebhookEndpoint = z.infer<typeof WebhookEndpoint>

/** The create response: the configuration plus its signing secret (returned only here). */
export const WebhookEndpointWithSecret = z.intersection(WebhookEndpoint, z.looseObject({secret: z.string().min(1)}))
export type WebhookEndpointWithSecret = z.infer<typeof WebhookEndpointWithSecret>

/** One catalog entry; a bare string entry is read as `{type}`. */
export const EventTypeEntry = z.preprocess(
  (v) => (typeof v === 'string' ? {type: v} : v),
  z.looseObject({type: z.string(), description: z.string().nullish()}),
)
export type EventTypeEntry = z.infer<typeof EventTypeEntry>
