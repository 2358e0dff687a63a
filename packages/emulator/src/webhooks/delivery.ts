/**
 * Signed webhook deliveries. Every event on the bus goes to each active endpoint of its entity
 * whose allowlist holds its type: a POST of the raw envelope `{id, type, data}` with
 * `X-Webhook-Signature` (sign() with that endpoint's secret) and `X-Webhook-Timestamp`.
 *
 * A delivery succeeds on a 2XX within the timeout (10 s); otherwise it is retried with exponential
 * backoff (base × 2^(n-1)) up to `max_attempts`, with the same event id and body, re-signed with a
 * fresh timestamp each time. Retries stop when the endpoint is deleted or disabled. Nothing here
 * runs inside request handling: the bus only schedules timers, and close() cancels them all.
 */
import {Agent, request} from 'undici'
import {serializeEvent} from './samples.js'
import {SIGNATURE_HEADER, TIMESTAMP_HEADER, sign} from './signature.js'
import type {EventBus, EmulatorEvent} from './events.js'
import type {ModeSwitch} from '../lib/mode-switch.js'
import {deliveryTimestamp, type SpecOnlySwitches} from '../strict/spec-only.js'
import type {Store} from '../store/index.js'

/** What deliveries need of the emulator: its store, its events, the spec-only switches and a log. */
export interface DeliveryApp {
  store: Store
  events: EventBus
  strict?: ModeSwitch
  specOnly?: SpecOnlySwitches
  log: (line: string) => void
}

export interface RetryPolicy {
  base_delay_ms: number
  max_attempts: number
  timeout_ms: number
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {base_delay_ms: 5_000, max_attempts: 6, timeout_ms: 10_000}

export interface DeliveryAttempt {
  event_id: string
  event_type: string
  endpoint_id: string
  attempt: number
  /** The receiver's HTTP status, when it answered. */
  status?: number
  /** Why no status came (connection refused, timeout). */
  error?: string
  ok: boolean
  duration_ms: number
  at: string
  /** When the next attempt is due, if one is scheduled. */
  next_attempt_at?: string
}

interface Job {
  entityId: string
  endpointId: string
  event: EmulatorEvent
  body: string
}

const MAX_LOG = 10_000

export class WebhookDeliveries {
  policy: RetryPolicy = {...DEFAULT_RETRY_POLICY}
  /** Every attempt, oldest first (the latest {@link MAX_LOG}). */
  readonly attempts: DeliveryAttempt[] = []
  private readonly timers = new Set<NodeJS.Timeout>()
  private readonly inFlight = new Set<AbortController>()
  private readonly agent = new Agent({keepAliveTimeout: 5_000, connections: 32})
  private readonly unsubscribe: () => void
  private closed = false

  constructor(private readonly app: DeliveryApp) {
    this.unsubscribe = app.events.on((event) => this.dispatch(event))
  }

  /** Schedules the first attempt for every matching endpoint. */
  dispatch(event: EmulatorEvent): void {
    if (this.closed) return
    const entity = this.app.store.entities.get(event.entity_id)
    if (!entity) return
    let body: string | undefined
    for (const hook of entity.webhooks.items) {
      if (!hook.is_active || !hook.event_types.includes(event.type)) continue
      body ??= serializeEvent(event)
      this.schedule({entityId: entity.id, endpointId: hook.id, event, body}, 1, 0)
    }
  }

  /** Milliseconds before attempt `n` (n >= 2). */
  delayBefore(n: number): number {
    return this.policy.base_delay_ms * 2 ** (n - 2)
  }

  private schedule(job: Job, attempt: number, delayMs: number): void {
    const timer = setTimeout(() => {
      this.timers.delete(timer)
      this.attempt(job, attempt).catch((err: unknown) => this.app.log(`emulator: webhook delivery failed: ${(err as Error)?.message ?? String(err)}`))
    }, delayMs)
    timer.unref()
    this.timers.add(timer)
  }

  private async attempt(job: Job, n: number): Promise<void> {
    if (this.closed) return
    // Looked up again on every attempt: a deleted or disabled endpoint receives nothing more.
    const hook = this.app.store.entities.get(job.entityId)?.webhooks.get(job.endpointId)
    if (!hook || !hook.is_active) return
    const timestamp = deliveryTimestamp(this.app.specOnly?.timestampFormat(this.app.strict?.on ?? false) ?? 'unix', Date.now())
    const controller = new AbortController()
    const timeoutMs = this.policy.timeout_ms
    const timeout = setTimeout(() => controller.abort(), timeoutMs)
    timeout.unref()
    this.inFlight.add(controller)
    const started = Date.now()
    const at = new Date(started).toISOString()
    let status: number | undefined
    let error: string | undefined
    try {
      const res = await request(hook.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'user-agent': 'payops-emulator-webhooks',
          [SIGNATURE_HEADER]: sign(hook.secret, timestamp, job.body),
          [TIMESTAMP_HEADER]: timestamp,
        },
        body: job.body,
        dispatcher: this.agent,
        signal: controller.signal,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      })
      status = res.statusCode
      await res.body.dump().catch(() => undefined)
    } catch (err) {
      const e = err as {code?: string; name?: string; message?: string}
      error = controller.signal.aborted ? (this.closed ? 'canceled' : `timeout after ${timeoutMs} ms`) : (e.code ?? e.name ?? e.message ?? 'error')
    } finally {
      clearTimeout(timeout)
      this.inFlight.delete(controller)
    }
    const ok = status !== undefined && status >= 200 && status < 300
    const record: DeliveryAttempt = {
      event_id: job.event.id,
      event_type: job.event.type,
      endpoint_id: job.endpointId,
      attempt: n,
      ...(status === undefined ? {error} : {status}),
      ok,
      duration_ms: Date.now() - started,
      at,
    }
    if (!ok && !this.closed && n < this.policy.max_attempts) {
      const delay = this.delayBefore(n + 1)
      record.next_attempt_at = new Date(Date.now() + delay).toISOString()
      this.schedule(job, n + 1, delay)
    }
    this.attempts.push(record)
    if (this.attempts.length > MAX_LOG) this.attempts.splice(0, this.attempts.length - MAX_LOG)
  }

  /** Attempts, optionally for one endpoint and/or one event. */
  list(filter: {endpoint_id?: string; event_id?: string} = {}): DeliveryAttempt[] {
    return this.attempts.filter((a) => (!filter.endpoint_id || a.endpoint_id === filter.endpoint_id) && (!filter.event_id || a.event_id === filter.event_id))
  }

  /** Cancels pending retries and in-flight requests; never waits on a receiver. */
  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    this.unsubscribe()
    for (const t of this.timers) clearTimeout(t)
    this.timers.clear()
    for (const c of this.inFlight) c.abort()
    this.inFlight.clear()
    await this.agent.destroy().catch(() => undefined)
  }
}
