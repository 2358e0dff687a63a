/**
 * Sample `data` of each event type, as the spec's event table lists it (what `POST
 * /_emulator/events` sends when no data is given), and the envelope as it goes on the wire.
 */
import {randomUUID} from 'node:crypto'
import type {WebhookEventType} from '../interface/events.js'

/** Realistic `data` for one event type. */
export function sampleData(type: WebhookEventType): Record<string, unknown> {
  switch (type) {
    case 'payout.debited':
    case 'payout.settled':
    case 'payout.failed':
      return {payout_id: randomUUID()}
    case 'payin.settled':
    case 'payin.failed':
      return {payin_id: randomUUID()}
    case 'subaccount.credit_received':
      return {subaccount_id: randomUUID(), amount_cents: 125_000, amount_in_minor_units: 125_000}
  }
}

/** The envelope exactly as it is sent: `{id, type, data}`, compact JSON. */
export function serializeEvent(event: {id: string; type: string; data: Record<string, unknown>}): string {
  return JSON.stringify({id: event.id, type: event.type, data: event.data})
}
