/**
 * The local webhook receiver behind `payops webhooks listen`: an HTTP(S) server that verifies
 * each delivery's signature in constant time against every given secret, rejects stale timestamps,
 * answers at once, drops duplicate event ids, and optionally forwards the raw body and signature
 * headers to another URL (after answering) through a bounded queue. It never prints: accepted
 * events go to `onEvent`, log lines to `log`; the command decides the format.
 *
 * Answers: 200 accepted (also for duplicates and for types outside `--events`); 400 missing
 * headers, malformed timestamp, malformed JSON, not an event envelope, an event nested deeper than
 * MAX_EVENT_DEPTH, or a request the HTTP parser rejects; 401 bad signature or stale timestamp;
 * 404 another path; 405 another method; 408 a request not received in time; 413 a body over the
 * size limit; 431 headers too large; 503 with Retry-After when the forward queue is full.
 *
 * Robustness: every request and every event is handled inside its own guard, so nothing one
 * request carries (nesting, size, bytes, a printer or forwarder that throws) stops the server;
 * a request's headers must arrive within HEADERS_TIMEOUT_MS and the whole of it within
 * REQUEST_TIMEOUT_MS (Node's own timers, which also close a connection that never sends a byte);
 * open connections are capped overall and per remote address, and at a cap the connection that
 * has waited longest for a complete request makes room (connections.ts), so stalled sockets
 * cannot shut out a sender; a keep-alive connection carries at most MAX_REQUESTS_PER_CONNECTION.
 */
import {readCappedBody} from '../body.js'
import {createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse} from 'node:http'
import {createServer as createHttpsServer} from 'node:https'
import type {AddressInfo, Socket} from 'node:net'
import type {Duplex} from 'node:stream'
import {ConnectionSlots} from './connections.js'
import {Forwarder} from './forwarder.js'
import {systemClock} from '../context/host.js'
import {
  DEFAULT_MAX_CONNECTIONS,
  DEFAULT_MAX_CONNECTIONS_PER_ADDRESS,
  MAX_REQUESTS_PER_CONNECTION,
  HEADERS_TIMEOUT_MS,
  KEEP_ALIVE_TIMEOUT_MS,
  MAX_BODY_BYTES,
  REQUEST_TIMEOUT_MS,
  TIMEOUT_CHECK_INTERVAL_MS,
} from './limits.js'
import {escapeControls} from './safety.js'
import {SIGNATURE_HEADER, TIMESTAMP_HEADER} from './signature.js'
import type {WebhookEvent} from './samples.js'
import type {ForwardRoute} from './routes.js'

export {FORWARD_TIMEOUT_MS, MAX_BODY_BYTES, MAX_EVENT_DEPTH} from './limits.js'
export * from './decide.js'
import {REJECTION_STATUS, checkRoute, decide, emptyStats, reject, RecentIds, type Rejected, type Rejection} from './decide.js'
import {ThrottledLog} from './throttled-log.js'
/** Past this, an oversized body is not drained: the 413 is sent and the connection closed. */
const MAX_DRAIN_BYTES = 8 * MAX_BODY_BYTES

export interface AcceptedEvent {
  event: WebhookEvent
  timestamp: string
  secretIndex: number
  receivedAt: string
}

/** A verified event that is not a duplicate (accepted, or outside --events): what the event store keeps. */
export interface VerifiedDelivery extends AcceptedEvent {
  body: Buffer
  /** The request's headers as they arrived (name, value, name, value…). */
  rawHeaders: readonly string[]
}

export type {ForwardResult, RouteStats} from './forwarder.js'
import type {ForwardResult} from './forwarder.js'

export interface ListenerOptions {
  host: string
  port: number
  path: string
  secrets: readonly string[]
  toleranceSec?: number
  events?: ReadonlySet<string>
  forwardTo?: string
  /** `--forward TYPE=URL` routes, in the order given; events no route matches go to `forwardTo`. */
  routes?: readonly ForwardRoute[]
  /** Forwards in flight at once (default DEFAULT_FORWARD_CONCURRENCY). */
  forwardConcurrency?: number
  /** Verified events waiting for a forward slot (default DEFAULT_FORWARD_QUEUE); past it, 503. */
  forwardQueue?: number
  /** Abandon a forward after this (default FORWARD_TIMEOUT_MS). */
  forwardTimeoutMs?: number
  /** Open connections at once (default DEFAULT_MAX_CONNECTIONS). */
  maxConnections?: number
  /** Open connections from one remote address (default DEFAULT_MAX_CONNECTIONS_PER_ADDRESS, at most maxConnections). */
  maxConnectionsPerAddress?: number
  tls?: {cert: string | Buffer; key: string | Buffer}
  maxBodyBytes?: number
  maxDepth?: number
  /** Request timeouts (defaults in limits.ts); tests shorten them. */
  headersTimeoutMs?: number
  requestTimeoutMs?: number
  onEvent: (accepted: AcceptedEvent) => void
  /** Whether an event id was received before this listener started (the event store): its deliveries are duplicates. */
  known?: (id: string) => boolean
  /** Every verified event that is not a duplicate, before it is forwarded (the event store). */
  onVerified?: (delivery: VerifiedDelivery) => void
  /** The result of each forward. */
  onForward?: (result: ForwardResult) => void
  log: (line: string) => void
  /** The clock of receipt times and forward durations (default: the host's system clock). */
  now?: () => number
}

export class WebhookListener {
  readonly stats = emptyStats()
  private readonly seen = new RecentIds()
  private server?: Server
  private readonly forwarder?: Forwarder
  private readonly now: () => number
  private readonly queueFullLog: ThrottledLog
  private readonly dropLog: ThrottledLog
  /** Rejections by reason: the first line at once, then one line a second with the count and the latest. */
  private readonly rejectionLogs = new Map<string, {log: ThrottledLog; latest: string}>()
  private readonly rejectedSockets = new WeakSet<Duplex>()
  private readonly slots: ConnectionSlots
  private readonly secrets: string[]

  constructor(private readonly opts: ListenerOptions) {
    this.secrets = [...opts.secrets]
    this.now = opts.now ?? systemClock.now
    // Every forward target: the --forward routes, then --forward-to (pattern null).
    const routes = [...(opts.routes ?? []), ...(opts.forwardTo ? [{pattern: null, url: opts.forwardTo}] : [])]
    if (routes.length > 0) this.forwarder = new Forwarder(routes, opts, this.stats, this.now)
    if (opts.routes?.length && this.forwarder) this.stats.routes = this.forwarder.routeStats
    const c = this.forwarder?.queue
    this.queueFullLog = new ThrottledLog(opts.log, (n) =>
      `rejected 503 queue_full: ${n === 1 ? 'a verified event was' : `${n} verified events were`} answered 503 with Retry-After (${c?.inFlight ?? 0} forwards in flight, ${c?.queued ?? 0} queued)`,
    )
    this.dropLog = new ThrottledLog(
      opts.log,
      (n) =>
        `rejected too_many_connections: closed ${n} connection${n === 1 ? '' : 's'} over the limit of ${this.slots.max} open at once and ${this.slots.perAddress} per address (the one waiting longest for a complete request goes first)`,
    )
    const max = opts.maxConnections ?? DEFAULT_MAX_CONNECTIONS
    this.slots = new ConnectionSlots(max, Math.min(max, opts.maxConnectionsPerAddress ?? DEFAULT_MAX_CONNECTIONS_PER_ADDRESS), () => {
      this.stats.received++
      this.count('too_many_connections')
      this.dropLog.hit()
    })
  }

  /** Accepts deliveries signed with `secret` from now on (an endpoint registered after the start). */
  addSecret(secret: string): void {
    if (!this.secrets.includes(secret)) this.secrets.push(secret)
  }

  /** Connections open now. */
  get openConnections(): number {
    return this.slots.open
  }

  /** Forwards in flight and waiting (zeros when not forwarding). */
  get forwardLoad(): {inFlight: number; queued: number} {
    return {inFlight: this.forwarder?.queue.inFlight ?? 0, queued: this.forwarder?.queue.queued ?? 0}
  }

  get url(): string {
    const addr = this.server?.address() as AddressInfo | null | undefined
    if (!addr) throw new Error('the listener is not started')
    const host = addr.address.includes(':') ? `[${addr.address}]` : addr.address
    return `${this.opts.tls ? 'https' : 'http'}://${host}:${addr.port}${this.opts.path}`
  }

  async start(): Promise<string> {
    await this.forwarder?.start()
    const handler = (req: IncomingMessage, res: ServerResponse) => {
      // A keep-alive connection carries at most MAX_REQUESTS_PER_CONNECTION requests: the last one's
      // answer closes it (Node's maxRequestsPerSocket would keep it open and answer 503 to a sender
      // that does not read `Connection: close`, failing every delivery after it).
      const socket = req.socket as Socket & {payopsRequests?: number}
      socket.payopsRequests = (socket.payopsRequests ?? 0) + 1
      if (socket.payopsRequests >= MAX_REQUESTS_PER_CONNECTION) res.setHeader('connection', 'close')
      try {
        this.handle(req, res)
      } catch (err) {
        this.internalError(res, err)
      }
    }
    const headersTimeout = this.opts.headersTimeoutMs ?? HEADERS_TIMEOUT_MS
    const requestTimeout = Math.max(headersTimeout, this.opts.requestTimeoutMs ?? REQUEST_TIMEOUT_MS)
    const common = {keepAlive: true, connectionsCheckingInterval: Math.min(TIMEOUT_CHECK_INTERVAL_MS, headersTimeout)}
    const server = this.opts.tls
      ? createHttpsServer({...common, cert: this.opts.tls.cert, key: this.opts.tls.key, handshakeTimeout: headersTimeout}, handler)
      : createHttpServer(common, handler)
    server.headersTimeout = headersTimeout
    server.requestTimeout = requestTimeout
    server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS
    // A connection that goes quiet mid-request (or never sends a byte) is closed after this.
    server.setTimeout(requestTimeout)
    // The connection limits (overall and per address) are kept here, not by `maxConnections`, which
    // would refuse the newest connection: a flood of stalled sockets would shut senders out.
    server.on('connection', (socket: Socket) => this.slots.admit(socket))
    server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => this.clientError(err, socket))
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

  private count(reason: Rejection): void {
    this.stats.rejected[reason] = (this.stats.rejected[reason] ?? 0) + 1
  }

  /** A request Node's HTTP parser rejected, or one that did not arrive in time: counted, logged, answered when possible. */
  private clientError(err: NodeJS.ErrnoException, socket: Duplex): void {
    // A peer that hung up is not a request to reject; a socket already rejected is not counted twice.
    if (err.code === 'ECONNRESET' || err.code === 'EPIPE' || this.rejectedSockets.has(socket)) {
      socket.destroy()
      return
    }
    this.rejectedSockets.add(socket)
    this.slots.closing(socket as Socket)
    const reason: Rejection = err.code === 'HPE_HEADER_OVERFLOW' ? 'headers_too_large' : err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 'request_timeout' : 'malformed_request'
    const status = REJECTION_STATUS[reason]
    // When the request already reached the handler (a body too slow, or cut short), it was counted there.
    const inResponse = (socket as unknown as {_httpMessage?: ServerResponse})._httpMessage
    if (inResponse && reason !== 'request_timeout') {
      socket.destroy()
      return
    }
    if (!inResponse) this.stats.received++
    this.count(reason)
    const why = reason === 'request_timeout' ? 'the request did not arrive in time' : reason === 'headers_too_large' ? 'the request headers are too large' : `the HTTP parser rejected the request (${err.code ?? 'error'})`
    const peer = (socket as Socket).remoteAddress
    this.logRejection(reason, `rejected ${status} ${reason}: ${why}${peer ? ` (from ${peer})` : ''}`)
    if (socket.writable && !inResponse?.headersSent) {
      const payload = JSON.stringify({error: reason, message: why})
      const text = {400: 'Bad Request', 408: 'Request Timeout', 431: 'Request Header Fields Too Large'}[status as 400 | 408 | 431]
      socket.end(`HTTP/1.1 ${status} ${text}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(payload)}\r\nconnection: close\r\n\r\n${payload}`)
      // If the peer does not read, do not wait for it.
      setTimeout(() => socket.destroy(), 1_000).unref()
    } else socket.destroy()
  }

  private answer(res: ServerResponse, status: number, body: Record<string, unknown>, headers: Record<string, string> = {}): void {
    if (res.headersSent || res.destroyed) return
    const payload = JSON.stringify(body)
    res.writeHead(status, {'content-type': 'application/json', 'content-length': Buffer.byteLength(payload), ...headers})
    res.end(payload)
  }

  private internalError(res: ServerResponse, err: unknown): void {
    try {
      this.answer(res, 500, {error: 'internal_error'})
      this.opts.log(`internal error: ${escapeControls(String((err as Error)?.message ?? err))}`)
    } catch {
      res.destroy()
    }
  }

  private rejected(res: ServerResponse, req: IncomingMessage, d: Rejected, headers?: Record<string, string>): void {
    this.count(d.reason)
    this.answer(res, d.status, {error: d.reason, message: d.message}, headers)
    if (d.reason === 'queue_full') return this.queueFullLog.hit()
    this.logRejection(d.reason, `rejected ${d.status} ${d.reason}: ${d.message} (${req.method ?? '?'} ${escapeControls((req.url ?? '/').split('?')[0])})`)
  }

  /** A flood of rejected requests is not a flood of log lines: one a second per reason, with the count. */
  private logRejection(reason: string, line: string): void {
    let entry = this.rejectionLogs.get(reason)
    if (!entry) {
      const made: {log?: ThrottledLog; latest: string} = {latest: line}
      made.log = new ThrottledLog(this.opts.log, (n) => (n === 1 ? made.latest : `${n} requests rejected (${reason}) in the last second; the latest: ${made.latest}`))
      entry = made as {log: ThrottledLog; latest: string}
      this.rejectionLogs.set(reason, entry)
    }
    entry.latest = line
    entry.log.hit()
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
      this.rejected(res, req, reject('payload_too_large', `the body is larger than ${max} bytes`), close ? {connection: 'close'} : undefined)
    }
    readCappedBody(req, max, MAX_DRAIN_BYTES).then(
      (r) => {
        try {
          // The request is whole: its connection is not pushed out while it is answered.
          const socket = req.socket as Socket
          this.slots.answering(socket)
          res.once('close', () => this.slots.answered(socket))
          if (r.kind === 'body') return this.received(req, res, r.body)
          if (res.headersSent) return
          tooLarge(r.close)
          if (r.close) res.once('finish', () => req.destroy())
        } catch (err) {
          this.internalError(res, err)
        }
      },
      () => undefined,
    )
  }

  private received(req: IncomingMessage, res: ServerResponse, body: Buffer): void {
    const signature = header(req, SIGNATURE_HEADER)
    const timestamp = header(req, TIMESTAMP_HEADER)
    const forwarder = this.forwarder
    const d = decide(signature, timestamp, body, {
      secrets: this.secrets,
      toleranceSec: this.opts.toleranceSec,
      events: this.opts.events,
      seen: this.seen,
      known: this.opts.known,
      maxDepth: this.opts.maxDepth,
      admit: forwarder ? (event) => forwarder.hasRoomFor(event.type) : undefined,
    })
    if (d.outcome === 'rejected') return this.rejected(res, req, d, d.reason === 'queue_full' ? {'retry-after': String(forwarder!.queue.retryAfterSeconds())} : undefined)
    // Answer first; everything else happens after the sender has its 2XX.
    this.answer(res, 200, {received: true, ...(d.outcome === 'accepted' ? {} : {[d.outcome]: true})})
    this.stats.verified++
    const what = `${escapeControls(d.event.id)} (${escapeControls(d.event.type)})`
    if (d.outcome === 'duplicate') {
      this.stats.duplicates++
      this.opts.log(`duplicate ${what}: answered 200, not processed again`)
      return
    }
    const accepted: AcceptedEvent = {event: d.event, timestamp: timestamp!, secretIndex: d.secretIndex, receivedAt: new Date(this.now()).toISOString()}
    this.verified(accepted, req, body)
    if (d.outcome === 'filtered') {
      this.stats.filtered++
      this.opts.log(`ignored ${what}: not in --events`)
      return
    }
    try {
      this.opts.onEvent(accepted)
    } catch (err) {
      this.opts.log(`could not print ${what}: ${escapeControls(String((err as Error)?.message ?? err))}`)
    }
    // Room was checked by `admit` in this same tick, so the queue takes it.
    forwarder?.offer({event: d.event, body, signature: signature!, timestamp: timestamp!})
  }

  /** Hands a verified event to `onVerified` (the store); a failure there is logged, never fatal. */
  private verified(accepted: AcceptedEvent, req: IncomingMessage, body: Buffer): void {
    if (!this.opts.onVerified) return
    try {
      this.opts.onVerified({...accepted, body, rawHeaders: req.rawHeaders})
    } catch (err) {
      this.opts.log(`could not store ${escapeControls(accepted.event.id)}: ${escapeControls(String((err as Error)?.message ?? err))}`)
    }
  }

  /** Stops accepting, lets queued and in-flight forwards finish for up to `graceMs`, and closes. */
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
    this.queueFullLog.flush()
    this.dropLog.flush()
    for (const r of this.rejectionLogs.values()) r.log.flush()
    await this.forwarder?.stop(graceMs)
  }
}

function header(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name]
  return Array.isArray(v) ? v[0] : v
}
