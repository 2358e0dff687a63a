/**
 * The local webhook receiver behind `payops webhooks listen`: an HTTP(S) server that verifies
 * each delivery's signature in constant time against every given secret, rejects stale timestamps,
 * answers at once, drops duplicate event ids, and optionally forwards the raw body and signature
 * headers to another URL (after answering). It never prints: accepted events go to `onEvent`, log
 * lines to `log`; the command decides the format.
 *
 * Answers: 200 accepted (also for duplicates and for types outside `--events`); 400 missing
 * headers, malformed timestamp, malformed JSON or not an event envelope; 401 bad signature or
 * stale timestamp; 404 another path; 405 another method; 413 a body over the size limit.
 */
import {loadUndici} from '../api/transport.js'
import {createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse} from 'node:http'
import {createServer as createHttpsServer} from 'node:https'
import type {AddressInfo} from 'node:net'
import {SIGNATURE_HEADER, TIMESTAMP_HEADER, describeFailure, verify, type VerifyFailure} from './signature.js'
import type {WebhookEvent} from './samples.js'

export const MAX_BODY_BYTES = 1024 * 1024
/** Past this, an oversized body is not drained: the 413 is sent and the connection closed. */
const MAX_DRAIN_BYTES = 8 * MAX_BODY_BYTES
export const FORWARD_TIMEOUT_MS = 10_000

export type Rejection = VerifyFailure | 'malformed_json' | 'invalid_envelope' | 'not_found' | 'method_not_allowed' | 'payload_too_large'

export const REJECTION_STATUS: Record<Rejection, number> = {
  missing_header: 400,
  malformed_timestamp: 400,
  malformed_json: 400,
  invalid_envelope: 400,
  bad_signature: 401,
  stale_timestamp: 401,
  not_found: 404,
  method_not_allowed: 405,
  payload_too_large: 413,
}

/** Remembers the latest `capacity` event ids (oldest forgotten first). */
export class RecentIds {
  private readonly ids = new Set<string>()
  constructor(private readonly capacity = 100_000) {}

  /** True when `id` was already seen; records it otherwise. */
  seen(id: string): boolean {
    if (this.ids.has(id)) return true
    this.ids.add(id)
    if (this.ids.size > this.capacity) this.ids.delete(this.ids.values().next().value as string)
    return false
  }

  get size(): number {
    return this.ids.size
  }
}

export type Decision =
  | {outcome: 'accepted'; status: 200; event: WebhookEvent; secretIndex: number}
  | {outcome: 'duplicate'; status: 200; event: WebhookEvent; secretIndex: number}
  | {outcome: 'filtered'; status: 200; event: WebhookEvent; secretIndex: number}
  | {outcome: 'rejected'; status: number; reason: Rejection; message: string}

export interface DecideOptions {
  secrets: readonly string[]
  toleranceSec?: number
  /** Only these types are accepted and printed; others are answered 200 and ignored. */
  events?: ReadonlySet<string>
  seen: RecentIds
  now?: number
}

function reject(reason: Rejection, message: string): Decision {
  return {outcome: 'rejected', status: REJECTION_STATUS[reason], reason, message}
}

/** Where a request may go before its body is read: undefined when it may proceed. */
export function checkRoute(method: string | undefined, rawUrl: string | undefined, path: string): Decision | undefined {
  const url = rawUrl ?? '/'
  const q = url.indexOf('?')
  const p = q === -1 ? url : url.slice(0, q)
  if (p !== path) return reject('not_found', `no webhook endpoint at ${p} (listening on ${path})`)
  if (method !== 'POST') return reject('method_not_allowed', `${method ?? '?'} is not allowed: webhooks are delivered with POST`)
  return undefined
}

/**
 * Decides on one delivery from its headers and raw body: signature first (so that nothing of an
 * unauthentic request is trusted), then the JSON envelope, then duplicates and the type filter.
 */
export function decide(signature: string | undefined, timestamp: string | undefined, rawBody: Buffer, opts: DecideOptions): Decision {
  const v = verify({secrets: opts.secrets, signature, timestamp, rawBody, toleranceSec: opts.toleranceSec, now: opts.now})
  if (!v.ok) return reject(v.reason, describeFailure(v.reason, opts.toleranceSec))
  let parsed: unknown
  try {
    parsed = JSON.parse(rawBody.toString('utf8'))
  } catch {
    return reject('malformed_json', 'the body is not valid JSON')
  }
  const o = parsed as Record<string, unknown> | null
  if (!o || typeof o !== 'object' || Array.isArray(o) || typeof o.id !== 'string' || o.id === '' || typeof o.type !== 'string' || !o.data || typeof o.data !== 'object' || Array.isArray(o.data)) {
    return reject('invalid_envelope', 'the body is not an event envelope {id, type, data}')
  }
  const event: WebhookEvent = {id: o.id, type: o.type, data: o.data as Record<string, unknown>}
  if (opts.seen.seen(event.id)) return {outcome: 'duplicate', status: 200, event, secretIndex: v.secretIndex}
  if (opts.events && !opts.events.has(event.type)) return {outcome: 'filtered', status: 200, event, secretIndex: v.secretIndex}
  return {outcome: 'accepted', status: 200, event, secretIndex: v.secretIndex}
}

export interface ListenerStats {
  received: number
  verified: number
  rejected: Partial<Record<Rejection, number>>
  duplicates: number
  filtered: number
  forwarded: number
  forward_failed: number
}

export function emptyStats(): ListenerStats {
  return {received: 0, verified: 0, rejected: {}, duplicates: 0, filtered: 0, forwarded: 0, forward_failed: 0}
}

/** `received 5, verified 3, rejected 2 (bad_signature 1, stale_timestamp 1), duplicates 0, …` */
export function formatSummary(s: ListenerStats, forwarding: boolean): string {
  const rejectedTotal = Object.values(s.rejected).reduce((a, b) => a + (b ?? 0), 0)
  const reasons = Object.entries(s.rejected)
    .filter(([, n]) => n)
    .map(([r, n]) => `${r} ${n}`)
    .join(', ')
  const parts = [
    `received ${s.received}`,
    `verified ${s.verified}`,
    `rejected ${rejectedTotal}${reasons ? ` (${reasons})` : ''}`,
    `duplicates ${s.duplicates}`,
    `filtered ${s.filtered}`,
  ]
  if (forwarding) parts.push(`forwarded ${s.forwarded}${s.forward_failed ? ` (failed ${s.forward_failed})` : ''}`)
  return parts.join(', ')
}

export interface AcceptedEvent {
  event: WebhookEvent
  timestamp: string
  secretIndex: number
  receivedAt: string
}

export interface ListenerOptions {
  host: string
  port: number
  path: string
  secrets: readonly string[]
  toleranceSec?: number
  events?: ReadonlySet<string>
  forwardTo?: string
  tls?: {cert: string | Buffer; key: string | Buffer}
  maxBodyBytes?: number
  onEvent: (accepted: AcceptedEvent) => void
  log: (line: string) => void
}

export class WebhookListener {
  readonly stats = emptyStats()
  private readonly seen = new RecentIds()
  private server?: Server
  private readonly forwards = new Set<Promise<void>>()
  private forwardAgent?: import('undici').Agent
  private undici?: typeof import('undici')

  constructor(private readonly opts: ListenerOptions) {}

  get url(): string {
    const addr = this.server?.address() as AddressInfo | null | undefined
    if (!addr) throw new Error('the listener is not started')
    const host = addr.address.includes(':') ? `[${addr.address}]` : addr.address
    return `${this.opts.tls ? 'https' : 'http'}://${host}:${addr.port}${this.opts.path}`
  }

  async start(): Promise<string> {
    if (this.opts.forwardTo) {
      this.undici = await loadUndici()
      this.forwardAgent = new this.undici.Agent({keepAliveTimeout: 5_000, connections: 16})
    }
    const handler = (req: IncomingMessage, res: ServerResponse) => this.handle(req, res)
    const server = this.opts.tls ? createHttpsServer({cert: this.opts.tls.cert, key: this.opts.tls.key, keepAlive: true}, handler) : createHttpServer({keepAlive: true}, handler)
    server.on('clientError', (_err, socket) => {
      if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nconnection: close\r\n\r\n')
      else socket.destroy()
    })
    this.server = server
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject)
      server.listen(this.opts.port, this.opts.host, () => {
        server.off('error', reject)
        server.on('error', (err) => this.opts.log(`listener error: ${err.message}`))
        resolve()
      })
    })
    return this.url
  }

  private answer(res: ServerResponse, status: number, body: Record<string, unknown>, headers: Record<string, string> = {}): void {
    if (res.headersSent || res.destroyed) return
    const payload = JSON.stringify(body)
    res.writeHead(status, {'content-type': 'application/json', 'content-length': Buffer.byteLength(payload), ...headers})
    res.end(payload)
  }

  private rejected(res: ServerResponse, req: IncomingMessage, d: Extract<Decision, {outcome: 'rejected'}>, headers?: Record<string, string>): void {
    this.stats.rejected[d.reason] = (this.stats.rejected[d.reason] ?? 0) + 1
    this.answer(res, d.status, {error: d.reason, message: d.message}, headers)
    this.opts.log(`rejected ${d.status} ${d.reason}: ${d.message} (${req.method ?? '?'} ${(req.url ?? '/').split('?')[0]})`)
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    this.stats.received++
    req.on('error', () => undefined)
    const route = checkRoute(req.method, req.url, this.opts.path)
    if (route?.outcome === 'rejected') {
      this.rejected(res, req, route, route.reason === 'method_not_allowed' ? {allow: 'POST'} : undefined)
      return
    }
    const max = this.opts.maxBodyBytes ?? MAX_BODY_BYTES
    const tooLarge = (close: boolean) => {
      const d = reject('payload_too_large', `the body is larger than ${max} bytes`) as Extract<Decision, {outcome: 'rejected'}>
      this.rejected(res, req, d, close ? {connection: 'close'} : undefined)
    }
    const declared = Number(req.headers['content-length'])
    if (Number.isFinite(declared) && declared > MAX_DRAIN_BYTES) {
      tooLarge(true)
      res.once('finish', () => req.destroy())
      return
    }
    const chunks: Buffer[] = []
    let size = 0
    let over = false
    req.on('data', (chunk: Buffer) => {
      size += chunk.length
      if (over) {
        if (size > MAX_DRAIN_BYTES && !res.headersSent) {
          tooLarge(true)
          res.once('finish', () => req.destroy())
        }
        return
      }
      if (size > max) {
        over = true
        chunks.length = 0
      } else chunks.push(chunk)
    })
    req.on('end', () => {
      if (over) return res.headersSent ? undefined : tooLarge(false)
      const body = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size)
      const signature = header(req, SIGNATURE_HEADER)
      const timestamp = header(req, TIMESTAMP_HEADER)
      let d: Decision
      try {
        d = decide(signature, timestamp, body, {secrets: this.opts.secrets, toleranceSec: this.opts.toleranceSec, events: this.opts.events, seen: this.seen})
      } catch (err) {
        this.answer(res, 500, {error: 'internal_error'})
        this.opts.log(`internal error: ${(err as Error).message}`)
        return
      }
      if (d.outcome === 'rejected') return this.rejected(res, req, d)
      // Answer first; everything else happens after the receiver has its 2XX.
      this.answer(res, 200, {received: true, ...(d.outcome === 'accepted' ? {} : {[d.outcome]: true})})
      this.stats.verified++
      if (d.outcome === 'duplicate') {
        this.stats.duplicates++
        this.opts.log(`duplicate ${d.event.id} (${d.event.type}): answered 200, not processed again`)
        return
      }
      if (d.outcome === 'filtered') {
        this.stats.filtered++
        this.opts.log(`ignored ${d.event.id} (${d.event.type}): not in --events`)
        return
      }
      this.opts.onEvent({event: d.event, timestamp: timestamp!, secretIndex: d.secretIndex, receivedAt: new Date().toISOString()})
      if (this.opts.forwardTo) this.forward(d.event, body, signature!, timestamp!)
    })
  }

  private forward(event: WebhookEvent, body: Buffer, signature: string, timestamp: string): void {
    const target = this.opts.forwardTo!
    const started = Date.now()
    const p = this.undici!.request(target, {
      method: 'POST',
      headers: {'content-type': 'application/json', [SIGNATURE_HEADER]: signature, [TIMESTAMP_HEADER]: timestamp, 'user-agent': 'payops-webhooks-listen'},
      body,
      dispatcher: this.forwardAgent,
      signal: AbortSignal.timeout(FORWARD_TIMEOUT_MS),
      headersTimeout: FORWARD_TIMEOUT_MS,
      bodyTimeout: FORWARD_TIMEOUT_MS,
    })
      .then(async (res) => {
        await res.body.dump().catch(() => undefined)
        const ok = res.statusCode >= 200 && res.statusCode < 300
        if (ok) this.stats.forwarded++
        else this.stats.forward_failed++
        this.opts.log(`forwarded ${event.id} (${event.type}) to ${target}: ${res.statusCode} in ${Date.now() - started} ms`)
      })
      .catch((err: unknown) => {
        this.stats.forward_failed++
        const e = err as {code?: string; name?: string; message?: string}
        const why = /Timeout|Abort/.test(e.name ?? '') ? `timed out after ${FORWARD_TIMEOUT_MS / 1000} s` : (e.code ?? e.message ?? 'error')
        this.opts.log(`forward of ${event.id} (${event.type}) to ${target} failed: ${why}`)
      })
      .finally(() => this.forwards.delete(p))
    this.forwards.add(p)
  }

  /** Stops accepting, waits (briefly) for forwards in flight, and closes. */
  async close(graceMs = 3_000): Promise<void> {
    const server = this.server
    if (server) {
      await new Promise<void>((resolve) => {
        const force = setTimeout(() => server.closeAllConnections(), 500)
        force.unref()
        server.close(() => {
          clearTimeout(force)
          resolve()
        })
        server.closeIdleConnections()
      })
    }
    if (this.forwards.size) {
      await Promise.race([Promise.allSettled([...this.forwards]), new Promise((r) => setTimeout(r, graceMs).unref())])
    }
    await this.forwardAgent?.destroy().catch(() => undefined)
  }
}

function header(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name]
  return Array.isArray(v) ? v[0] : v
}
