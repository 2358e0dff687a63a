/** The event types of the spec's Events section. */
export const WEBHOOK_EVENT_TYPES = ['payout.debited', 'payout.settled', 'payout.failed', 'payin.settled', 'payin.failed', 'subaccount.credit_received'] as const
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number]

/** What each type means (the Trigger column): the catalog GET /api/webhooks/event-types serves. */
export const EVENT_TYPE_DESCRIPTIONS: Record<WebhookEventType, string> = {
  'payout.debited': 'Funds debited from the sender\'s account',
  'payout.settled': 'Payout settled to the recipient',
  'payout.failed': 'Payout failed during processing',
  'payin.settled': 'Payin settled and funds received',
  'payin.failed': 'Payin failed during processing',
  'subaccount.credit_received': 'Inbound credit received on a virtual subaccount',
}
