/**
 * The one HTTP client every command goes through: base URL and key, JSON in and out, typed errors,
 * retries with backoff, an optional redacted debug trace, and schema parsing of `data`.
 * It never prints: traces go to the `trace` sink the caller provides.
 */
import type * as z from 'zod/mini'
import {ApiError, NetworkError, PayopsError, ResponseError, ResponseTooLargeError, UsageError} from '../errors.js'
import {isLoopbackHost, routeFor, type NetworkSettings} from '../net.js'
import {oneLine} from '../text.js'
import {parseJson} from '../json.js'
import {auditInfo, recordRequest, type AuditHook} from './audit-info.js'

export {newOpId, recordRequest, type AuditHook, type AuditInfo, type AuditOutcome, type RequestRecord} from './audit-info.js'
import {describeIssues, readErrorBody} from './schemas/common.js'
import {describeHeader, redact, registerSecret, registerUrlSecrets} from './redact.js'
import {canonicalSegments, moneyRoutesIn, routeLabel} from './money-routes.js'
import {FetchTransport, PoolTransport, type Transport} from './transport.js'
import {DEFAULT_POLICY, RETRYABLE_STATUSES, failedBeforeSending, isRetryableMethod, nextDelay, parseRetryAfter, type RetryPolicy} from './retry.js'
import type {Page} from './paginate.js'

export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE'
export type QueryValue = string | number | boolean | undefined | null | Array<string | number>

export interface ClientOptions {
  /** `fetch` (Node's bundled undici; the default) or `pool` (the undici package's pooled Agent, for bulk work). */
  transport?: 'fetch' | 'pool'
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
  random?: () => number
  /** The proxy and CAs of the run (src/net.ts); without it, requests go direct with Node's defaults. */
  network?: NetworkSettings
}

export interface RequestOptions<S extends z.ZodMiniType | undefined = undefined> {
  method: HttpMethod
  path: string
  query?: Record<string, QueryValue>
  body?: unknown
  /** Raw body bytes, sent as they are (the `api --input` command). */
  rawBody?: string
  headers?: Record<string, string>
  idempotencyKey?: string
  /**
   * The spec promises that this request, repeated with its Idempotency-Key, cannot act twice (move
   * create, the only such request): it may be re-sent after a failure that may have reached the
   * server. Any other request that changes something is re-sent only after a failure that proves
   * it never left (connection refused, DNS); otherwise its caller finds out what happened.
   */
  idempotent?: boolean
  /** Schema of the `data` member of the envelope. */
  schema?: S
  /**
   * The spec shows no answer for this request: its status code decides what happened, so a 2XX
   * without `data` (or with no body) is success with `data` undefined, and a `data` object the
   * schema does not read is kept as it came (what the caller hoped for may be missing from it).
   */
  shapeNotShown?: boolean
  /** Parse the whole body with the schema instead of its `data` member. */
  bare?: boolean
  /** The caller records this request in the audit trail itself (the movement pipeline does). */
  skipAudit?: boolean
  /**
   * Sent by the movement pipeline (plan, guard, record): the only sender allowed to reach an
   * endpoint that moves money. Any other request whose resolved path reaches one is refused.
   */
  movement?: boolean
}

/** Per-call options the resource areas pass through. */
export interface SendOptions {
  skipAudit?: boolean
  movement?: boolean
}

export interface ApiResponse<T> {
  status: number
  data: T
  warning?: string | null
  requestId?: string
  body: unknown
  headers: Record<string, string | string[] | undefined>
  /** Attempts made (1 when the first answer was used). */
  attempts: number
  /**
   * An earlier attempt of this call failed in a way that leaves it unknown whether the server
   * acted on it (a network error, a timeout, or a retryable status such as a 500 after commit).
   */
  earlierAttemptUncertain: boolean
  /** When the first attempt was sent (local clock, ms). */
  sentAt: number
}

type Out<S> = S extends z.ZodMiniType ? z.output<S> : unknown

/** The data of an answer the spec does not show: the resource when it came whole, else what came of it, or nothing. */
export type Unshown<T> = T | Record<string, unknown> | undefined

export {isLoopbackHost, oneLine}

/** Encodes each interpolated value as one path segment: p`/api/moves/${id}`. */
export function p(strings: TemplateStringsArray, ...values: Array<string | number>): string {
  let out = strings[0]
  values.forEach((v, i) => {
    const s = String(v)
    if (s === '') throw new UsageError('An id argument is empty.')
    if (s === '.' || s === '..') throw new UsageError(`"${s}" is not a valid id.`)
    out += encodeURIComponent(s) + strings[i + 1]
  })
  return out
}

/** Fills `{name}` placeholders of a path template (the assumed paths) as encoded segments. */
export function fillPath(template: string, params: Record<string, string>): string {
  return template.replace(/\{(\w+)\}/g, (_, name: string) => {
    const v = params[name]
    if (v === undefined) throw new Error(`path parameter ${name} missing for ${template}`)
    return p`${v}`
  })
}

export function buildQuery(query: Record<string, QueryValue> | undefined): string {
  if (!query) return ''
  const params = new URLSearchParams()
  for (const [k, v] of Object.entries(query)) {
    if (v === undefined || v === null) continue
    if (Array.isArray(v)) for (const item of v) params.append(k, String(item))
    else params.append(k, String(v))
  }
  const s = params.toString()
  return s ? `?${s}` : ''
}

/** A query or fragment in the base URL would swallow every request's path (`…/move?` + `/x` is a POST to /move). */
function refuseQueryOrFragment(url: URL, given: string): void {
  if (url.search || url.hash || /[?#]/.test(given)) throw new UsageError(`Base URL "${redact(given)}" has a query or fragment: give SCHEME://HOST[:PORT][/PATH].`)
}

/** The path of a base URL as requests are appended to it (`''` for none or `/`); a query or fragment is refused. */
export function baseUrlPath(baseUrl: string): string {
  let url: URL
  try {
    url = new URL(baseUrl)
  } catch {
    throw new UsageError(`Base URL "${redact(baseUrl)}" is not a valid URL.`)
  }
  registerUrlSecrets(url)
  refuseQueryOrFragment(url, baseUrl)
  return url.pathname.replace(/\/+$/, '')
}

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
    this.random = opts.random ?? Math.random
    this.userAgent = opts.userAgent ?? 'payops'
    this.audit = opts.audit
    this.transport = opts.transport === 'pool' ? new PoolTransport(undefined, opts.network) : new FetchTransport(opts.network)
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
    if (Number.isFinite(at)) this.serviceSkewMs = at - Date.now()
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

  private async send<S extends z.ZodMiniType | undefined = undefined>(opts: RequestOptions<S>): Promise<ApiResponse<Out<S>>> {
    const url = this.url(opts.path, opts.query)
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
    const deadline = Date.now() + this.timeoutMs
    const maxAttempts = this.policy.maxRetries + 1
    // Shown in traces: a request that is not re-sendable has one attempt, unless nothing was sent.
    let shown = retryable ? maxAttempts : 1
    const display = `${opts.method} ${opts.path}${buildQuery(opts.query)}`
    const sentAt = Date.now()
    let uncertain = false

    for (let attempt = 1; ; attempt++) {
      const started = Date.now()
      const remaining = deadline - started
      this.log(`→ ${display} attempt ${attempt}/${shown}` + this.describeHeaders(headers) + (payload ? ` body ${truncate(payload, 500)}` : ''))
      let status: number
      let resHeaders: Record<string, string | string[] | undefined>
      let text: string
      let via: string | undefined
      try {
        if (remaining <= 0) throw Object.assign(new Error('timed out'), {code: 'ETIMEDOUT'})
        const res = await this.transport.send({url, method: opts.method, headers, body: payload, timeoutMs: remaining})
        status = res.status
        resHeaders = res.headers
        text = res.text
        via = res.via
      } catch (err) {
        // An answer too large to read is the server's, whatever its status: not retried. A usage
        // error of the way out (a ca-file that cannot be read) is the operator's: nothing was sent.
        if (err instanceof ResponseTooLargeError || err instanceof PayopsError) throw err
        const e = err as {code?: string; name?: string; message?: string}
        const code = typeof e.code === 'string' ? e.code : (e.name ?? 'ERROR')
        const timedOut = /TIMEOUT|ETIMEDOUT|AbortError|TimeoutError/i.test(code)
        this.log(`← ${display} failed: ${code} after ${Date.now() - started}ms (attempt ${attempt}/${shown})`)
        // A connection that was never made proves nothing was sent: any request may try again.
        const notSent = failedBeforeSending(code)
        const canRetry = attempt < maxAttempts && !refusedForGood(code) && (retryable || notSent)
        if (!notSent) uncertain = true
        if (canRetry) {
          if (!retryable) shown = maxAttempts
          const wait = nextDelay(attempt - 1, this.policy, undefined, this.random)
          if (Date.now() + wait < deadline) {
            await this.sleep(wait)
            continue
          }
        }
        const what = timedOut ? `timed out after ${Math.round(this.timeoutMs / 1000)}s` : unreachable(this.baseUrl, code, err as {via?: string; proxyStatus?: number})
        const tries = attempt > 1 ? ` after ${attempt} attempts` : ''
        const failed = new NetworkError(redact(`${opts.method} ${opts.path}: ${what}${tries}.`), code)
        if (uncertain) Object.assign(failed, {earlierAttemptUncertain: true})
        throw failed
      }
      this.noteServiceDate(headerValue(resHeaders.date))
      const requestId = headerValue(resHeaders['x-request-id'])
      this.log(`← ${status} ${display} in ${Date.now() - started}ms (attempt ${attempt}/${shown})${requestId ? ` request ${requestId}` : ''}` + (text ? ` body ${truncate(text, 500)}` : ''))

      if (status >= 300 && status < 400) throw this.redirectRefused(opts, status, resHeaders, url)
      // A proxy's 407 (or its 401) is the proxy's refusal, never a verdict on the API key: not retried.
      if (isProxyRefusal(status, resHeaders, text, via)) {
        throw new NetworkError(redact(`${opts.method} ${opts.path}: ${unreachable(this.baseUrl, 'PROXY_REFUSED', {via, proxyStatus: status})}.`), 'PROXY_REFUSED')
      }

      // Any answer may come after the server acted (a 5xx after the commit): re-sent only when safe.
      if (RETRYABLE_STATUSES.has(status) && attempt < maxAttempts && retryable) {
        uncertain = true
        const retryAfter = parseRetryAfter(resHeaders['retry-after'])
        const wait = nextDelay(attempt - 1, this.policy, retryAfter, this.random)
        if (Date.now() + wait < deadline) {
          this.log(`  retrying in ${wait}ms${retryAfter !== undefined ? ' (Retry-After)' : ''}`)
          await this.sleep(wait)
          continue
        }
      }
      try {
        const res = this.finish<S>(opts, status, resHeaders, text, requestId)
        return {...res, attempts: attempt, earlierAttemptUncertain: uncertain, sentAt}
      } catch (err) {
        if (uncertain && err instanceof Error) Object.assign(err, {earlierAttemptUncertain: true})
        throw err
      }
    }
  }

  /**
   * A 3xx is never followed (the key and body go only to the base URL), and never retried: it is a
   * misconfigured base URL or a hostile server, so it fails as a network error naming the target.
   */
  private redirectRefused(opts: RequestOptions<z.ZodMiniType | undefined>, status: number, headers: Record<string, string | string[] | undefined>, url: string): NetworkError {
    const location = headerValue(headers.location)
    let target: string | undefined
    if (location !== undefined && location.trim() !== '') {
      try {
        target = new URL(location, url).href
      } catch {
        target = location
      }
    }
    // eslint-disable-next-line no-control-regex
    const shown = target === undefined ? undefined : oneLine(target.replace(/[\u0000-\u001f\u007f-\u009f]/g, ''), 200)
    const what = shown === undefined ? `the server answered ${status} (a redirect without a Location)` : `the server answered ${status} redirecting to ${shown}`
    return new NetworkError(
      redact(`${opts.method} ${opts.path}: ${what}; payops does not follow redirects (the API key is only sent to the configured base URL). Check --base-url.`),
      'REDIRECT',
    )
  }

  private describeHeaders(headers: Record<string, string>): string {
    const parts: string[] = []
    for (const [k, v] of Object.entries(headers)) {
      if (k === 'accept' || k === 'user-agent') continue
      parts.push(describeHeader(k, v, this.redactHeaders))
    }
    return parts.length ? ` [${parts.join(', ')}]` : ''
  }

  private finish<S extends z.ZodMiniType | undefined>(
    opts: RequestOptions<S>,
    status: number,
    headers: Record<string, string | string[] | undefined>,
    text: string,
    requestIdHeader: string | undefined,
  ): Omit<ApiResponse<Out<S>>, 'attempts' | 'earlierAttemptUncertain' | 'sentAt'> {
    const where = `${opts.method} ${opts.path}`
    let body: unknown
    let parsed = false
    if (text.trim() !== '') {
      try {
        body = parseJson(text)
        parsed = true
      } catch {
        parsed = false
      }
    }
    const bodyRequestId = parsed ? readErrorBody(body).requestId : undefined
    const requestId = requestIdHeader ?? bodyRequestId
    if (status >= 400 || status < 200) {
      if (!parsed) {
        const ctype = headerValue(headers['content-type']) ?? 'unknown type'
        const snippet = text.trim() ? `; body (${ctype.split(';')[0]}): ${oneLine(text, 80)}` : ''
        throw new ApiError({status, message: redact(`HTTP ${status} from ${where}${snippet}`), requestId})
      }
      const info = readErrorBody(body)
      throw new ApiError({
        status,
        errorCode: info.errorCode,
        message: redact(oneLine(info.message ?? `HTTP ${status} from ${where}`, 300)),
        requestId,
        details: info.details,
      })
    }
    if (text.trim() !== '' && !parsed) {
      throw new ResponseError(`The server answered ${status} to ${where} with a body that is not JSON: ${oneLine(text, 80)}`, status, requestId)
    }
    let data: unknown = body
    let warning: string | null | undefined
    if (!opts.bare && body !== undefined) {
      if (typeof body !== 'object' || body === null || Array.isArray(body)) {
        throw new ResponseError(`The server answered ${status} to ${where} with JSON that is not an object.`, status, requestId)
      }
      const env = body as Record<string, unknown>
      data = env.data
      warning = typeof env.warning === 'string' ? env.warning : undefined
    }
    if (opts.schema && opts.shapeNotShown) {
      const r = data === undefined ? undefined : (opts.schema as z.ZodMiniType).safeParse(data)
      data = r?.success ? r.data : typeof data === 'object' && data !== null && !Array.isArray(data) ? data : undefined
    } else if (opts.schema) {
      if (!opts.bare && data === undefined && body !== undefined) {
        throw new ResponseError(`Unexpected response to ${where}: the "data" field is missing.`, status, requestId)
      }
      if (data !== undefined) {
        const r = (opts.schema as z.ZodMiniType).safeParse(data)
        if (!r.success) {
          throw new ResponseError(`Unexpected response to ${where}: ${describeIssues(r.error, opts.bare ? '' : 'data')}`, status, requestId)
        }
        data = r.data
      }
    }
    return {status, data: data as Out<S>, warning, requestId, body, headers}
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

/** TLS failures of a certificate no trusted authority signed: a TLS-inspecting proxy, or a private CA. */
const UNTRUSTED_CERT = new Set(['DEPTH_ZERO_SELF_SIGNED_CERT', 'SELF_SIGNED_CERT_IN_CHAIN', 'UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY', 'UNABLE_TO_GET_ISSUER_CERT'])

function refusedForGood(code: string): boolean {
  // A malformed URL, a TLS certificate problem or a proxy's refusal will not improve with a retry.
  return code === 'ERR_INVALID_URL' || code.startsWith('ERR_TLS') || code === 'CERT_HAS_EXPIRED' || UNTRUSTED_CERT.has(code) || code === 'PROXY_REFUSED'
}

/**
 * Whether an answer is a proxy's refusal rather than the API's: a 407 (only a proxy sends one), or
 * a 401 through a proxy that asks for proxy credentials (Proxy-Authenticate) or whose body is not
 * the API's JSON error object.
 */
function isProxyRefusal(status: number, headers: Record<string, string | string[] | undefined>, text: string, via: string | undefined): boolean {
  if (status === 407) return true
  if (status !== 401 || !via) return false
  if (headers['proxy-authenticate'] !== undefined) return true
  try {
    const body = parseJson(text) as unknown
    return typeof body !== 'object' || body === null || Array.isArray(body)
  } catch {
    return true
  }
}

/** Why the API could not be reached, naming the proxy when the request went through one. */
function unreachable(base: URL, code: string, err: {via?: string; proxyStatus?: number}): string {
  const hint = UNTRUSTED_CERT.has(code) ? '; if TLS is inspected on this network, trust its CA with `payops profiles set NAME ca-file FILE.pem` or NODE_EXTRA_CA_CERTS' : ''
  const auth = err.proxyStatus === 407 || err.proxyStatus === 401
  if (code === 'PROXY_REFUSED' && !err.via) {
    return `a proxy on the way to ${base.host} refused the request (it answered ${err.proxyStatus}: proxy authentication required), though payops sends it direct; set the proxy with --proxy, the profile's proxy setting or HTTPS_PROXY, with its credentials in the URL`
  }
  if (!err.via) return `could not reach ${base.origin} (${code}${hint})`
  if (code === 'PROXY_REFUSED') {
    const why = auth ? ': proxy authentication required; check the credentials in the proxy URL' : ''
    return `the proxy ${err.via} refused to pass the request to ${base.host} (it answered ${err.proxyStatus}${why})`
  }
  // Without a tunnel, payops only ever connects to the proxy: a refused or unknown address is the proxy's.
  if (/^(ECONNREFUSED|ENOTFOUND|EAI_AGAIN|EHOSTUNREACH|ENETUNREACH|UND_ERR_CONNECT_TIMEOUT)$/.test(code)) return `could not reach the proxy ${err.via} (${code}) to reach ${base.origin}`
  return `could not reach ${base.origin} through the proxy ${err.via} (${code}${hint})`
}

function headerValue(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v
}

function truncate(s: string, n: number): string {
  return s.length > n ? `${s.slice(0, n)}… (${s.length} bytes)` : s
}
