/**
 * Reading an answer: the envelope and its `data` parsed with the schema, an error body made a typed
 * error, and the failures of the way there (a redirect, a proxy's refusal, an unreachable host)
 * named in one line.
 */
import type * as z from 'zod/mini'
import {ApiError, NetworkError, ResponseError} from '../errors.js'
import {parseJson} from '../json.js'
import {oneLine} from '../text.js'
import type {ApiResponse, Out, RequestOptions} from './request.js'
import {redact} from './redact.js'
import {describeIssues, readErrorBody} from './schemas/common.js'

/** An answer read, before the attempts that led to it are counted. */
export type Answer<S> = Omit<ApiResponse<Out<S>>, 'attempts' | 'earlierAttemptUncertain' | 'sentAt'>

/**
 * A 3xx is never followed (the key and body go only to the base URL), and never retried: it is a
 * misconfigured base URL or a hostile server, so it fails as a network error naming the target.
 */
export function redirectRefused(opts: RequestOptions<z.ZodMiniType | undefined>, status: number, headers: Record<string, string | string[] | undefined>, url: string): NetworkError {
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

export function readAnswer<S extends z.ZodMiniType | undefined>(
  opts: RequestOptions<S>,
  status: number,
  headers: Record<string, string | string[] | undefined>,
  text: string,
  requestIdHeader: string | undefined,
): Answer<S> {
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

/** TLS failures of a certificate no trusted authority signed: a TLS-inspecting proxy, or a private CA. */
const UNTRUSTED_CERT = new Set(['DEPTH_ZERO_SELF_SIGNED_CERT', 'SELF_SIGNED_CERT_IN_CHAIN', 'UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY', 'UNABLE_TO_GET_ISSUER_CERT'])

export function refusedForGood(code: string): boolean {
  // A malformed URL, a TLS certificate problem or a proxy's refusal will not improve with a retry.
  return code === 'ERR_INVALID_URL' || code.startsWith('ERR_TLS') || code === 'CERT_HAS_EXPIRED' || UNTRUSTED_CERT.has(code) || code === 'PROXY_REFUSED'
}

/**
 * Whether an answer is a proxy's refusal rather than the API's: a 407 (only a proxy sends one), or
 * a 401 through a proxy that asks for proxy credentials (Proxy-Authenticate) or whose body is not
 * the API's JSON error object.
 */
export function isProxyRefusal(status: number, headers: Record<string, string | string[] | undefined>, text: string, via: string | undefined): boolean {
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
export function unreachable(base: URL, code: string, err: {via?: string; proxyStatus?: number}): string {
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

export function headerValue(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v
}

export function truncate(s: string, n: number): string {
  return s.length > n ? `${s.slice(0, n)}… (${s.length} bytes)` : s
}
