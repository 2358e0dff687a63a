/**
 * Events produced by real state changes in the emulator (a simulated credit landing on a
 * subaccount, a payin settling or failing, payout events through the control API). Route modules
 * emit; the webhook delivery engine subscribes and signs and sends them to matching endpoints.
 */
import {randomUUID} from 'node:crypto'
import type {WebhookEventType} from '../interface/events.js'

export interface EmulatorEvent {
  id: string
  type: WebhookEventType
  data: Record<string, unknown>
  /** The entity whose endpoints receive it. */
  entity_id: string
  created_at: string
}

export type EventListener = (event: EmulatorEvent) => void

export class EventBus {
  /** `now`: the emulator's clock (events are stamped with the time it shows). */
  constructor(private readonly now: () => string = () => new Date().toISOString()) {}

  private readonly listeners = new Set<EventListener>()
  /** The latest events, newest last (for the control API and tests). */
  readonly recent: EmulatorEvent[] = []

  on(fn: EventListener): () => void {
    this.listeners.add(fn)
    return () => this.listeners.delete(fn)
  }

  emit(entityId: string, type: WebhookEventType, data: Record<string, unknown>): EmulatorEvent {
    const event: EmulatorEvent = {id: `evt_${randomUUID()}`, type, data, entity_id: entityId, created_at: this.now()}
    this.recent.push(event)
    if (this.recent.length > 1000) this.recent.splice(0, this.recent.length - 1000)
    for (const fn of this.listeners) fn(event)
    return event
  }
}
