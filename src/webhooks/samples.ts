/**
 * Sample events per type, with `data` as the spec's event table shows it. Used by
 * `webhooks trigger` and by the emulator's `POST /_emulator/events` when no data is given.
 */
import {randomUUID} from 'node:crypto'
import type {WebhookEventType} from '../api/schemas/events.js'
import {UsageError} from '../errors.js'

export interface WebhookEvent {
  id: string
  type: string
  data: Record<string, unknown>
}

export function newEventId(): string {
  return `evt_${randomUUID()}`
}

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

/**
 * Applies `--data k=v` overrides: a field the sample holds as an integer must be a whole number
 * (and stays an integer); other fields are strings.
 */
export function applyOverrides(data: Record<string, unknown>, overrides: Record<string, string> | undefined): Record<string, unknown> {
  const out = {...data}
  for (const [k, v] of Object.entries(overrides ?? {})) {
    if (typeof data[k] === 'number') {
      if (!/^-?\d+$/.test(v) || !Number.isSafeInteger(Number(v))) throw new UsageError(`--data ${k}=${v}: ${k} must be a whole number.`)
      out[k] = Number(v)
    } else {
      out[k] = v
    }
  }
  // The legacy duplicate follows the canonical amount unless both were given.
  if (overrides && 'amount_in_minor_units' in overrides && !('amount_cents' in overrides) && 'amount_cents' in out) out.amount_cents = out.amount_in_minor_units
  return out
}

/** The envelope exactly as it is sent: `{id, type, data}`, compact JSON. */
export function serializeEvent(event: WebhookEvent): string {
  return JSON.stringify({id: event.id, type: event.type, data: event.data})
}
