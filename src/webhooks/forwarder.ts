/**
 * The forwarding side of the listener: a bounded queue of verified events, one dispatcher per
 * target origin, and each event's raw body and signature headers POSTed to its routes' URLs
 * after the sender has its answer. Results go to `onForward`, lines to `log`.
 */
import {loadUndici} from '../interop.js'
import {runDispatcher} from '../net.js'
import {ForwardQueue} from './forward-queue.js'
import {DEFAULT_FORWARD_CONCURRENCY, DEFAULT_FORWARD_QUEUE, FORWARD_TIMEOUT_MS} from './limits.js'
import {escapeControls} from './safety.js'
import {SIGNATURE_HEADER, TIMESTAMP_HEADER} from './signature.js'
import type {WebhookEvent} from './samples.js'
import type {ListenerStats} from './decide.js'
import type {DeliveryResult} from './event-store.js'
import {routeLabel, routesFor, type ForwardRoute} from './routes.js'

/** The result of one forward: what the event store keeps of a delivery (its route's pattern null for --forward-to), with the event. */
export interface ForwardResult extends Omit<DeliveryResult, 'kind'> {
  event: WebhookEvent
}

/** Counts of one route, in the summary. */
export interface RouteStats {
  route: string | null
  url: string
  forwarded: number
  failed: number
}

/** What the forwarder takes of the listener's options. */
export interface ForwarderOptions {
  routes?: readonly ForwardRoute[]
  forwardConcurrency?: number
  forwardQueue?: number
  forwardTimeoutMs?: number
  onForward?: (result: ForwardResult) => void
  log: (line: string) => void
}

export interface ForwardJob {
  event: WebhookEvent
  body: Buffer
  signature: string
  timestamp: string
  /** Index into the listener's routes. */
  route: number
}

export class Forwarder {
  readonly queue: ForwardQueue<ForwardJob>
  /** One dispatcher per forward target's origin (each decides its own proxy route). */
  private readonly forwardAgents = new Map<string, import('undici').Dispatcher>()
  private undici?: typeof import('undici')
  readonly routeStats: RouteStats[]

  constructor(
    /** Every forward target: the --forward routes, then --forward-to (pattern null). */
    private readonly routes: readonly ForwardRoute[],
    private readonly opts: ForwarderOptions,
    private readonly stats: ListenerStats,
    private readonly now: () => number,
  ) {
    this.routeStats = routes.map((r) => ({route: r.pattern, url: r.url, forwarded: 0, failed: 0}))
    this.queue = new ForwardQueue(opts.forwardConcurrency ?? DEFAULT_FORWARD_CONCURRENCY, opts.forwardQueue ?? DEFAULT_FORWARD_QUEUE, (job) => this.forward(job))
  }

  /** Loads undici and opens a dispatcher per target origin. */
  async start(): Promise<void> {
    this.undici = await loadUndici()
    for (const {url} of this.routes) {
      const origin = new URL(url).origin
      if (!this.forwardAgents.has(origin)) this.forwardAgents.set(origin, await runDispatcher(this.undici, url, {keepAliveTimeout: 5_000, connections: this.queue.concurrency}))
    }
  }

  /** Whether the queue can take an event of this type (to every route it goes to). */
  hasRoomFor(type: string): boolean {
    return this.queue.hasRoomFor(routesFor(type, this.routes).length)
  }

  /** Queues an event for every route it matches (room was checked in the same tick). */
  offer(job: Omit<ForwardJob, 'route'>): void {
    for (const route of routesFor(job.event.type, this.routes)) this.queue.offer({...job, route})
  }

  private async forward({event, body, signature, timestamp, route}: ForwardJob): Promise<void> {
    const target = this.routes[route].url
    const counts = this.routeStats[route]
    const at = new Date(this.now()).toISOString()
    const result = (status: number | null, ok: boolean, error: string | null) => {
      if (ok) counts.forwarded++
      else counts.failed++
      try {
        this.opts.onForward?.({event, route: this.routes[route].pattern, url: target, status, ok, error, duration_ms: this.now() - started, at})
      } catch (err) {
        this.opts.log(`could not store the forward of ${what}: ${escapeControls(String((err as Error)?.message ?? err))}`)
      }
    }
    const via = this.opts.routes?.length ? ` (route ${escapeControls(routeLabel(this.routes[route]))})` : ''
    const timeoutMs = this.opts.forwardTimeoutMs ?? FORWARD_TIMEOUT_MS
    const what = `${escapeControls(event.id)} (${escapeControls(event.type)})`
    const started = this.now()
    try {
      const res = await this.undici!.request(target, {
        method: 'POST',
        headers: {'content-type': 'application/json', [SIGNATURE_HEADER]: signature, [TIMESTAMP_HEADER]: timestamp, 'user-agent': 'payops-webhooks-listen'},
        body,
        dispatcher: this.forwardAgents.get(new URL(target).origin),
        signal: AbortSignal.timeout(timeoutMs),
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      })
      await res.body.dump().catch(() => undefined)
      const ok = res.statusCode >= 200 && res.statusCode < 300
      if (ok) this.stats.forwarded++
      else this.stats.forward_failed++
      result(res.statusCode, ok, ok ? null : `answered ${res.statusCode}`)
      this.opts.log(`forwarded ${what} to ${target}${via}: ${res.statusCode} in ${this.now() - started} ms`)
    } catch (err) {
      this.stats.forward_failed++
      const e = err as {code?: string; name?: string; message?: string}
      const why = /Timeout|Abort/.test(e.name ?? '') ? `timed out after ${timeoutMs / 1000} s` : (e.code ?? e.message ?? 'error')
      result(null, false, why)
      this.opts.log(`forward of ${what} to ${target}${via} failed: ${why}`)
    }
  }

  /** Lets queued and in-flight forwards finish for up to `graceMs`, counts what was dropped, and closes the dispatchers. */
  async stop(graceMs: number): Promise<void> {
    const queue = this.queue
    if (!(await queue.drain(graceMs))) {
      const jobs = queue.stopAndTake()
      for (const job of jobs) this.routeStats[job.route].failed++
      const dropped = jobs.length
      if (dropped) {
        this.stats.forward_failed += dropped
        this.opts.log(`${dropped} queued forward${dropped === 1 ? ' was' : 's were'} not sent: stopping`)
      }
    }
    await Promise.all([...this.forwardAgents.values()].map((a) => a.destroy().catch(() => undefined)))
    // Forwards cut short by the agent's end record their failure.
    await queue.drain(500)
  }
}
