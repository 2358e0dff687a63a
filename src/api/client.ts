/**
 * The one HTTP client every command goes through: base URL and key, JSON in and out, typed errors,
 * retries with backoff, an optional redacted debug trace, and schema parsing of `data`.
 * It never prints: traces go to the `trace` sink the caller provides.
 */
import type * as z from 'zod/mini'
import {NetworkError, PayopsError, ResponseError, ResponseTooLargeError, UsageError} from '../errors.js'
import {systemClock} from '../context/host.js'
import {isLoopbackHost, routeFor, type NetworkSettings} from '../net.js'
import {oneLine} from '../text.js'
import {auditInfo, recordRequest, type AuditHook} from './audit-info.js'

export {newOpId, recordRequest, type AuditHook, type AuditInfo, type AuditOutcome, type RequestRecord} from './audit-info.js'
import {describeIssues} from './schemas/common.js'
import {describeHeader, redact, registerSecret, registerUrlSecrets} from './redact.js'
import {headerValue, isProxyRefusal, readAnswer, redirectRefused, refusedForGood, truncate, unreachable} from './answer.js'
import {buildQuery, refuseQueryOrFragment, type QueryValue} from './url.js'
import {canonicalSegments, moneyRoutesIn, routeLabel} from './money-routes.js'
import {HttpTransport} from './http-transport.js'
import {PoolTransport, type Transport, type WireResponse} from './transport.js'
import {DEFAULT_POLICY, RETRYABLE_STATUSES, failedBeforeSending, isRetryableMethod, nextDelay, parseRetryAfter, type RetryPolicy} from './retry.js'
import type {Page} from './paginate.js'


export interface ClientOptions {
  /** `http` (Node's own HTTP client, undici's fetch for a proxy or CAs of its own; the default) or `pool` (the undici package's pooled Agent, for bulk work). */
  transport?: 'http' | 'pool' | Transport
  /** Records every mutating request before it is sent and after (the audit trail). */
  audit?: AuditHook
  baseUrl: string
  apiKey?: string
  /** Overall time for one call, retries included, in milliseconds. */
  timeoutMs?: number
  maxRetries?: number
  retryPolicy?: Partial<RetryPolicy>
  /** Receives debug trace lines (already redacted). */
  trace?: (line: string) => void
  /** More header names (lower case) whose values traces redact (PAYOPS_REDACT_HEADERS). */
  redactHeaders?: readonly string[]
  userAgent?: string
  sleep?: (ms: number) => Promise<void>
  /**
   * The wall clock that times attempts against the deadline (default: the host's system clock):
   * the transport's own timeouts run on real time, so the deadline does too.
   */
  now?: () => number
  random?: () => number
  /** The proxy and CAs of the run (src/net.ts); without it, requests go direct with Node's defaults. */
  network?: NetworkSettings
}

export {isLoopbackHost, oneLine}
export type {ApiResponse, HttpMethod, Out, RequestOptions, SendOptions, Unshown} from './request.js'
import type {ApiResponse, Call, Out, RequestOptions, Unshown} from './request.js'
export {baseUrlPath, buildQuery, fillPath, p, type QueryValue} from './url.js'


/** A `Date` header this close to the machine's clock (ms) is the same clock: HTTP dates are whole seconds. */
export const SERVICE_SKEW_TOLERANCE_MS = 120_000

export class ApiClient {
  readonly baseUrl: URL
  private readonly apiKey?: string
  private readonly timeoutMs: number
  private readonly policy: RetryPolicy
  private readonly trace?: (line: string) => void
  private readonly redactHeaders: readonly string[]
  private readonly sleep: (ms: number) => Promise<void>
  private readonly now: () => number
  private readonly random: () => number
  private readonly userAgent: string
  private readonly audit?: AuditHook
  private readonly transport: Transport

  constructor(opts: ClientOptions) {
    let url: URL
    try {
      url = new URL(opts.baseUrl)
    } catch {
      throw new UsageError(`Base URL "${opts.baseUrl}" is not a valid URL.`)
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:') {
      throw new UsageError(`Base URL "${opts.baseUrl}" must use https:// (or http:// to a loopback address).`)
    }
    registerUrlSecrets(url)
    if (url.protocol === 'http:' && opts.apiKey && !isLoopbackHost(url.hostname)) {
      throw new UsageError(`Refusing to send an API key over plain http:// to ${url.host}; use https:// (http is allowed only to loopback).`)
    }
    refuseQueryOrFragment(url, opts.baseUrl)
    this.baseUrl = url
    this.apiKey = opts.apiKey
    registerSecret(opts.apiKey)
    this.timeoutMs = opts.timeoutMs ?? 30_000
    this.policy = {...DEFAULT_POLICY, ...opts.retryPolicy, maxRetries: opts.maxRetries ?? opts.retryPolicy?.maxRetries ?? DEFAULT_POLICY.maxRetries}
    this.trace = opts.trace
    this.redactHeaders = opts.redactHeaders ?? []
    this.sleep = opts.sleep ?? ((ms) => new Promise((r) => setTimeout(r, ms)))
    this.now = opts.now ?? systemClock.now
    this.random = opts.random ?? Math.random
    this.userAgent = opts.userAgent ?? 'payops'
    this.audit = opts.audit
    this.transport = typeof opts.transport === 'object' ? opts.transport : opts.transport === 'pool' ? new PoolTransport(undefined, opts.network) : new HttpTransport(opts.network)
    if (opts.network) this.log(`connection to ${url.origin}: ${routeFor(url, opts.network).why}`)
  }

  url(path: string, query?: Record<string, QueryValue>): string {
    const base = this.baseUrl.href.replace(/\/+$/, '')
    return base + (path.startsWith('/') ? path : `/${path}`) + buildQuery(query)
  }

  /** The path the server receives: the base URL's path joined with `path`. */
  resolvedPath(path: string): string {
    return this.baseUrl.pathname.replace(/\/+$/, '') + (path.startsWith('/') ? path : `/${path}`)
  }

  /**
   * This client for another path under the same origin (same key, way out, audit and
   * connections): `payops api` sends a movement to the very URL it was given.
   */
  under(root: string): ApiClient {
    const c = Object.create(ApiClient.prototype) as ApiClient
    return Object.assign(c, this, {baseUrl: new URL(root.replace(/^\/*/, '/'), this.baseUrl.origin)})
  }

  /**
   * Only the movement pipeline reaches an endpoint that moves money: any other request whose full
   * path (base URL path + path, as the server resolves it, or its tail behind a gateway) is one is
   * refused before anything is sent or recorded.
   */
  private refuseMoneyRoute(opts: RequestOptions<z.ZodMiniType | undefined>): void {
    if (opts.method === 'GET' || opts.movement) return
    const resolved = this.resolvedPath(opts.path)
    const hit = moneyRoutesIn(canonicalSegments(resolved))[0]
    if (hit) {
      throw new UsageError(
        `${opts.method} ${resolved} reaches ${routeLabel(hit.route)}${hit.prefix.length ? ` (behind /${hit.prefix.join('/')})` : ''}, an endpoint that moves money, outside payops' money checks (limits, confirmation, audit); nothing was sent. Check the base URL.`,
      )
    }
  }

  /**
   * How far the service's clock runs from this machine's, as the `Date` header of its latest answer
   * shows it (ms; 0 until an answer carries one, and within SERVICE_SKEW_TOLERANCE_MS of this
   * machine). What a command takes as the service's day ("today" in the books) reads it; no
   * control does (daily caps count by the trail, on this machine's day).
   */
  serviceSkew(): number {
    return Math.abs(this.serviceSkewMs) > SERVICE_SKEW_TOLERANCE_MS ? this.serviceSkewMs : 0
  }

  private serviceSkewMs = 0

  private noteServiceDate(date: string | undefined): void {
    const at = date === undefined || date.length > 64 ? NaN : Date.parse(date)
    if (Number.isFinite(at)) this.serviceSkewMs = at - this.now()
  }

  private log(line: string): void {
    if (this.trace) this.trace(redact(line))
  }

  async close(): Promise<void> {
    await this.transport.close()
  }

  /** A request whose answer the spec does not show (see RequestOptions.shapeNotShown). */
  unshown<S extends z.ZodMiniType>(opts: RequestOptions<S>): Promise<ApiResponse<Unshown<z.output<S>>>> {
    return this.request({...opts, shapeNotShown: true}) as Promise<ApiResponse<Unshown<z.output<S>>>>
  }

  /** Sends one logical request (with retries) and parses the envelope's `data` with `schema`. */
  async request<S extends z.ZodMiniType | undefined = undefined>(opts: RequestOptions<S>): Promise<ApiResponse<Out<S>>> {
    this.refuseMoneyRoute(opts)
    if (!this.audit || opts.method === 'GET' || opts.skipAudit) return this.send(opts)
    // Recorded as sent: the base URL's path joined with the request's.
    const rec = await recordRequest(this.audit, auditInfo({...opts, path: this.resolvedPath(opts.path)}))
    try {
      const res = await this.send(opts)
      // A bare answer (`payops api`) is the whole envelope: its resource is `data`.
      const data = (opts.bare ? ((res.body as {data?: unknown} | undefined)?.data ?? res.data) : res.data) as {id?: unknown} | undefined
      await rec.outcome({status: res.status, request_id: res.requestId ?? null, resource_id: typeof data?.id === 'string' ? data.id : null})
      return res
    } catch (err) {
      const e = err as {status?: number; errorCode?: string; requestId?: string; code?: string}
      await rec.outcome({status: e.status ?? null, request_id: e.requestId ?? null, error_code: e.errorCode ?? e.code ?? (err as Error).name})
      throw err
    }
  }

  /** What every attempt of one call shares: its URL, headers and body, whether it may be re-sent, its deadline. */
  private prepare(opts: RequestOptions<z.ZodMiniType | undefined>): Call {
    const headers: Record<string, string> = {accept: 'application/json', 'user-agent': this.userAgent, ...opts.headers}
    if (this.apiKey) headers['x-api-key'] = this.apiKey
    if (opts.idempotencyKey) headers['idempotency-key'] = opts.idempotencyKey
    let payload: string | undefined
    if (opts.rawBody !== undefined) payload = opts.rawBody
    else if (opts.body !== undefined) payload = JSON.stringify(opts.body)
    if (payload !== undefined && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) {
      headers['content-type'] = 'application/json'
    }
    const hasKey = Object.keys(headers).some((h) => h.toLowerCase() === 'idempotency-key')
    // Re-sent after a failure that may have reached the server: only what the spec makes safe.
    const retryable = isRetryableMethod(opts.method, Boolean(opts.idempotent) && hasKey)
    const maxAttempts = this.policy.maxRetries + 1
    const sentAt = this.now()
    return {
      opts,
      url: this.url(opts.path, opts.query),
      headers,
      payload,
      retryable,
      deadline: sentAt + this.timeoutMs,
      maxAttempts,
      // Shown in traces: a request that is not re-sendable has one attempt, unless nothing was sent.
      shown: retryable ? maxAttempts : 1,
      display: `${opts.method} ${opts.path}${buildQuery(opts.query)}`,
      sentAt,
      uncertain: false,
    }
  }

  private async send<S extends z.ZodMiniType | undefined = undefined>(opts: RequestOptions<S>): Promise<ApiResponse<Out<S>>> {
    const call = this.prepare(opts)
    for (let attempt = 1; ; attempt++) {
      const started = this.now()
      this.log(`→ ${call.display} attempt ${attempt}/${call.shown}` + this.describeHeaders(call.headers) + (call.payload ? ` body ${truncate(call.payload, 500)}` : ''))
      const res = await this.transmit(call, attempt, started)
      if (res === 'again') continue
      const {status, headers, text, via} = res
      this.noteServiceDate(headerValue(headers.date))
      const requestId = headerValue(headers['x-request-id'])
      this.log(`← ${status} ${call.display} in ${this.now() - started}ms (attempt ${attempt}/${call.shown})${requestId ? ` request ${requestId}` : ''}` + (text ? ` body ${truncate(text, 500)}` : ''))

      if (status >= 300 && status < 400) throw redirectRefused(opts, status, headers, call.url)
      // A proxy's 407 (or its 401) is the proxy's refusal, never a verdict on the API key: not retried.
      if (isProxyRefusal(status, headers, text, via)) {
        throw new NetworkError(redact(`${opts.method} ${opts.path}: ${unreachable(this.baseUrl, 'PROXY_REFUSED', {via, proxyStatus: status})}.`), 'PROXY_REFUSED')
      }
      if (await this.retriedStatus(call, attempt, status, headers)) continue
      try {
        const answer = readAnswer<S>(opts, status, headers, text, requestId)
        return {...answer, attempts: attempt, earlierAttemptUncertain: call.uncertain, sentAt: call.sentAt}
      } catch (err) {
        if (call.uncertain && err instanceof Error) Object.assign(err, {earlierAttemptUncertain: true})
        throw err
      }
    }
  }

  /** One attempt on the wire: the answer, or 'again' after a failure worth another attempt (slept already); other failures throw. */
  private async transmit(call: Call, attempt: number, started: number): Promise<WireResponse | 'again'> {
    const {opts} = call
    try {
      const remaining = call.deadline - started
      if (remaining <= 0) throw Object.assign(new Error('timed out'), {code: 'ETIMEDOUT'})
      return await this.transport.send({url: call.url, method: opts.method, headers: call.headers, body: call.payload, timeoutMs: remaining})
    } catch (err) {
      // An answer too large to read is the server's, whatever its status: not retried. A usage
      // error of the way out (a ca-file that cannot be read) is the operator's: nothing was sent.
      if (err instanceof ResponseTooLargeError || err instanceof PayopsError) throw err
      const e = err as {code?: string; name?: string; message?: string}
      const code = typeof e.code === 'string' ? e.code : (e.name ?? 'ERROR')
      const timedOut = /TIMEOUT|ETIMEDOUT|AbortError|TimeoutError/i.test(code)
      this.log(`← ${call.display} failed: ${code} after ${this.now() - started}ms (attempt ${attempt}/${call.shown})`)
      // A connection that was never made proves nothing was sent: any request may try again.
      const notSent = failedBeforeSending(code)
      const canRetry = attempt < call.maxAttempts && !refusedForGood(code) && (call.retryable || notSent)
      if (!notSent) call.uncertain = true
      if (canRetry) {
        if (!call.retryable) call.shown = call.maxAttempts
        const wait = nextDelay(attempt - 1, this.policy, undefined, this.random)
        if (this.now() + wait < call.deadline) {
          await this.sleep(wait)
          return 'again'
        }
      }
      const what = timedOut ? `timed out after ${Math.round(this.timeoutMs / 1000)}s` : unreachable(this.baseUrl, code, err as {via?: string; proxyStatus?: number})
      const tries = attempt > 1 ? ` after ${attempt} attempts` : ''
      const failed = new NetworkError(redact(`${opts.method} ${opts.path}: ${what}${tries}.`), code)
      if (call.uncertain) Object.assign(failed, {earlierAttemptUncertain: true})
      throw failed
    }
  }

  /** Any answer may come after the server acted (a 5xx after the commit): re-sent only when safe (true: slept, send again). */
  private async retriedStatus(call: Call, attempt: number, status: number, headers: Record<string, string | string[] | undefined>): Promise<boolean> {
    if (!RETRYABLE_STATUSES.has(status) || attempt >= call.maxAttempts || !call.retryable) return false
    call.uncertain = true
    const retryAfter = parseRetryAfter(headers['retry-after'], this.now())
    const wait = nextDelay(attempt - 1, this.policy, retryAfter, this.random)
    if (this.now() + wait >= call.deadline) return false
    this.log(`  retrying in ${wait}ms${retryAfter !== undefined ? ' (Retry-After)' : ''}`)
    await this.sleep(wait)
    return true
  }

  private describeHeaders(headers: Record<string, string>): string {
    const parts: string[] = []
    for (const [k, v] of Object.entries(headers)) {
      if (k === 'accept' || k === 'user-agent') continue
      parts.push(describeHeader(k, v, this.redactHeaders))
    }
    return parts.length ? ` [${parts.join(', ')}]` : ''
  }


  /** GETs one page of a list endpoint and parses each item with `item`. */
  async page<S extends z.ZodMiniType>(path: string, query: Record<string, QueryValue>, item: S): Promise<Page<z.output<S>>> {
    const res = await this.request({method: 'GET', path, query})
    const where = `GET ${path}`
    const body = res.body as Record<string, unknown> | undefined
    if (!body || typeof body !== 'object' || !Array.isArray(body.data)) {
      throw new ResponseError(`Unexpected response to ${where}: "data" is not a list.`, res.status, res.requestId)
    }
    const items: Array<z.output<S>> = []
    for (let i = 0; i < body.data.length; i++) {
      const r = item.safeParse(body.data[i])
      if (!r.success) throw new ResponseError(`Unexpected response to ${where}: ${describeIssues(r.error, `data[${i}]`)}`, res.status, res.requestId)
      items.push(r.data)
    }
    const nextCursor = typeof body.next_cursor === 'string' ? body.next_cursor : null
    const hasMore = typeof body.has_more === 'boolean' ? body.has_more : Boolean(nextCursor)
    const totalCount = typeof body.total_count === 'number' ? body.total_count : null
    const previousCursor = typeof body.previous_cursor === 'string' ? body.previous_cursor : null
    return {items, hasMore, nextCursor, previousCursor, totalCount}
  }
}

