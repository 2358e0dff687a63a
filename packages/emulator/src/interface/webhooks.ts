/**
 * Webhook endpoints (spec: Webhook configuration, PATCH /api/webhooks/{webhook_id}; create and list
 * "not shown" take the same fields). The URL is HTTPS only, as the Limits say, except plain http
 * to a loopback address, which the emulator takes so that a local receiver can be tested.
 */
import * as z from 'zod/mini'
import {isLoopbackHost} from '../lib/net.js'
import {PageQuery} from './common.js'
import {WEBHOOK_EVENT_TYPES, type WebhookEventType} from './events.js'

/** Why `url` cannot be a webhook endpoint, or undefined when it can. */
function urlProblem(url: string): string | undefined {
  let u: URL
  try {
    u = new URL(url)
  } catch {
    return `"${url}" is not a valid URL`
  }
  if (u.username || u.password) return 'must not carry credentials'
  if (u.protocol === 'https:') return undefined
  if (u.protocol === 'http:') return isLoopbackHost(u.hostname) ? undefined : 'must use https:// (plain http:// is accepted only for loopback addresses)'
  return 'must be an https:// URL'
}

export const WebhookUrl = z.string({message: 'url is required'}).check(
  z.maxLength(2048, 'url must be at most 2048 characters'),
  z.superRefine((v: string, ctx) => {
    const problem = urlProblem(v)
    if (problem) ctx.addIssue({code: 'custom', message: problem})
  }),
)

/** An allowlist: at least one known type; kept sorted and without repeats. */
export const EventTypeList = z.pipe(
  z
    .array(z.enum(WEBHOOK_EVENT_TYPES, {message: `unknown event type; subscribable types: ${WEBHOOK_EVENT_TYPES.join(', ')}`}), {message: 'event_types must be a list'})
    .check(z.minLength(1, 'event_types must name at least one event type')),
  z.transform((list: WebhookEventType[]) => [...new Set(list)].sort()),
)

export const Description = z.string({message: 'description must be a string'}).check(z.maxLength(500, 'description must be at most 500 characters'))

export const WebhookCreateRequest = z.object({url: WebhookUrl, description: z.nullish(Description), event_types: EventTypeList})

/** Only the given fields change; `event_types` replaces the allowlist. */
export const WebhookUpdateRequest = z.object({url: z.optional(WebhookUrl), description: z.nullish(Description), event_types: z.optional(EventTypeList)})

export const WebhookListQuery = z.object(PageQuery)
