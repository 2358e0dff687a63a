/** Webhook event types and the envelope, shared by the emulator's deliveries and the CLI's tools. */
import * as z from 'zod/mini'

export const WEBHOOK_EVENT_TYPES = [
  'payout.debited',
  'payout.settled',
  'payout.failed',
  'payin.settled',
  'payin.failed',
  'subaccount.credit_received',
] as const
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number]

export const WebhookEventType = z.enum(WEBHOOK_EVENT_TYPES)

/** `{id, type, data}`: `id` is unique per event and unchanged across retries. */
export const EventEnvelope = z.looseObject({
  id: z.string().check(z.minLength(1)),
  type: z.string().check(z.minLength(1)),
  data: z.record(z.string(), z.unknown()),
})
export type EventEnvelope = z.infer<typeof EventEnvelope>
