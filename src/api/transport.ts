/**
 * How bytes reach the API. One-shot commands use Node's own HTTP client (http-transport.ts),
 * which hands a request needing a proxy or CAs of its own to `FetchTransport` here: undici's fetch
 * with a dispatcher. Bulk commands (`moves import`, `--all`) use `PoolTransport`: the undici
 * package's pooled Agent with many keep-alive connections, loaded only there. Both undici ones take
 * the run's way out (src/net.ts): through undici's ProxyAgent when a proxy applies, and trusting
 * NODE_EXTRA_CA_CERTS and the profile's ca-file.
 */
import type {Readable} from 'node:stream'
import {createBrotliDecompress, createGunzip, createInflate} from 'node:zlib'
import type {Dispatcher} from 'undici'
import {PayopsError, ResponseTooLargeError} from '../errors.js'
import {loadUndici} from '../interop.js'
import {dispatcherFor, proxyRefusal, redactProxyUrl, routeFor, trustedCas, type AgentOptions, type NetworkSettings} from '../net.js'

/**
 * Every answer is read up to this many bytes once decoded (gzip, deflate and br alike, counted as
 * they are inflated), on both transports: past it, reading stops and the request fails (exit 1).
 */
export const MAX_RESPONSE_BYTES = 16 * 1024 * 1024

/** The body's text, read chunk by chunk and given up (with `stop`) as soon as it passes the cap. */
export async function readCapped(chunks: AsyncIterable<Uint8Array>, req: WireRequest, stop: () => void, max = MAX_RESPONSE_BYTES): Promise<string> {
  const parts: Buffer[] = []
  let size = 0
  for await (const chunk of chunks) {
    size += chunk.byteLength
    if (size > max) {
      stop()
      throw new ResponseTooLargeError(`${req.method} ${new URL(req.url).pathname}: the answer is over ${max / 1024 / 1024} MiB once decoded; payops stopped reading it (is the base URL right?).`)
    }
    parts.push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength))
  }
  return Buffer.concat(parts, size).toString('utf8')
}

/** The decoded body of an undici response: its content-encoding (gzip, deflate, br; several in order) undone as it streams. */
export function decoded(body: Readable, encoding: string | string[] | undefined): Readable {
  const codings = (Array.isArray(encoding) ? encoding.join(',') : (encoding ?? '')).split(',').map((c) => c.trim().toLowerCase()).filter((c) => c && c !== 'identity')
  let out = body
  for (const coding of codings.reverse()) {
    const next = coding === 'gzip' || coding === 'x-gzip' ? createGunzip() : coding === 'deflate' ? createInflate() : coding === 'br' ? createBrotliDecompress() : undefined
    if (!next) throw Object.assign(new Error(`unsupported content-encoding ${coding}`), {code: 'EENCODING'})
    out.on('error', (err) => next.destroy(err))
    out = out.pipe(next)
  }
  return out
}

export interface WireRequest {
  url: string
  method: string
  headers: Record<string, string>
  body?: string
  timeoutMs: number
}

export interface WireResponse {
  status: number
  headers: Record<string, string | string[] | undefined>
  text: string
  /** The proxy the answer came through (as shown, without credentials); undefined when direct. */
  via?: string
}

export interface Transport {
  send(req: WireRequest): Promise<WireResponse>
  close(): Promise<void>
}

type ErrorLike = {code?: unknown; name?: unknown; message?: unknown; cause?: unknown; errors?: unknown}

/** The error itself, then its causes and (for AggregateError) its members, innermost last. */
function errorChain(err: unknown, depth = 0, out: ErrorLike[] = []): ErrorLike[] {
  if (!err || typeof err !== 'object' || depth > 6) return out
  const e = err as ErrorLike
  out.push(e)
  errorChain(e.cause, depth + 1, out)
  if (Array.isArray(e.errors)) for (const member of e.errors) errorChain(member, depth + 1, out)
  return out
}

/**
 * A transport error with a stable code (ECONNREFUSED, ECONNRESET, ETIMEDOUT, ...). Node's fetch
 * throws `TypeError: fetch failed` with the socket's error in `cause`, which may itself be an
 * AggregateError (one member per address tried); the innermost string code is the real reason.
 */
export function wireError(err: unknown, via?: string): Error & {code: string; via?: string; proxyStatus?: number} {
  const refused = via ? proxyRefusal(err) : undefined
  // A proxy that answered the tunnel (or the forwarded request) with 407, 403...: nothing reached the API.
  if (refused !== undefined) return Object.assign(new Error(`the proxy answered ${refused}`), {code: 'PROXY_REFUSED', via, proxyStatus: refused})
  const chain = errorChain(err)
  const timedOut = chain.some((e) => e.name === 'TimeoutError')
  let code = ''
  for (const e of chain) if (typeof e.code === 'string' && e.code) code = e.code
  if (timedOut) code = 'ETIMEDOUT'
  if (!code) {
    // No code anywhere: use the innermost specific error name, else its message, never "Error".
    const inner = [...chain].reverse()
    const named = inner.find((e) => typeof e.name === 'string' && !/^(Type|Aggregate)?Error$/.test(e.name))
    const told = inner.find((e) => typeof e.message === 'string' && e.message.trim() !== '' && e.message !== 'fetch failed')
    code = (named?.name as string | undefined) ?? (told ? String(told.message).replace(/\s+/g, ' ').trim().slice(0, 60) : 'ERROR')
  }
  const top = chain[0]
  const message = typeof top?.message === 'string' ? top.message : String(err)
  return Object.assign(new Error(message), via ? {code, via} : {code})
}

/**
 * The way a transport's requests leave (see src/net.ts): the proxy they go through, shown without
 * credentials, and the undici dispatcher that takes them there (made on first use, for the origin
 * of the first request: a transport serves one base URL).
 */
class Way {
  private made?: Promise<{dispatcher: Dispatcher; undici: typeof import('undici')}>

  constructor(
    private readonly net: NetworkSettings | undefined,
    private readonly opts: AgentOptions,
  ) {}

  /** The proxy a request to `url` goes through, as shown (no credentials); undefined when direct. */
  via(url: string): string | undefined {
    if (!this.net) return undefined
    const proxy = routeFor(url, this.net).proxy
    return proxy ? redactProxyUrl(proxy.href) : undefined
  }

  dispatcher(url: string): Promise<{dispatcher: Dispatcher; undici: typeof import('undici')}> {
    return (this.made ??= (async () => {
      const net = this.net ?? {env: {}}
      const undici = await loadUndici()
      return {undici, dispatcher: dispatcherFor(undici, url, net, this.opts, await trustedCas(net))}
    })())
  }

  async close(): Promise<void> {
    const made = await this.made?.catch(() => undefined)
    this.made = undefined
    await made?.dispatcher.close().catch(() => undefined)
  }
}

/** Node's fetch refuses the WHATWG "bad ports" (1, 6000, 10080, ...) before connecting. */
function isBadPort(err: unknown): boolean {
  return errorChain(err).some((e) => e.message === 'bad port')
}

/**
 * undici's fetch with a dispatcher of its own (the one-shot transport's way through a proxy, or
 * with CAs of the run's own: http-transport.ts hands those requests here), never following
 * redirects: a 3xx comes back as it is and the client refuses it, so the API key and body only
 * ever go to the configured base URL. A port fetch will not connect to (the browser "bad ports"
 * list, which guards web pages, not an operator's own base URL) goes through undici's request
 * instead, as the pool transport would.
 */
export class FetchTransport implements Transport {
  private fallback?: PoolTransport
  private readonly way: Way

  /** With `net`, through its proxy and trusting its extra CAs. */
  constructor(private readonly net?: NetworkSettings) {
    this.way = new Way(net, {connections: 8})
  }

  async send(req: WireRequest): Promise<WireResponse> {
    const via = this.way.via(req.url)
    try {
      const init = {method: req.method, headers: req.headers, body: req.body, redirect: 'manual' as const, signal: AbortSignal.timeout(req.timeoutMs)}
      const {undici, dispatcher} = await this.way.dispatcher(req.url)
      const res = (await undici.fetch(req.url, {...init, dispatcher})) as unknown as Response
      const headers: Record<string, string> = {}
      res.headers.forEach((v, k) => (headers[k] = v))
      // fetch has already undone the content-encoding: what is counted is the decoded body.
      const text = res.body ? await readCapped(res.body, req, () => void res.body?.cancel().catch(() => undefined)) : ''
      return {status: res.status, headers, text, via}
    } catch (err) {
      if (err instanceof ResponseTooLargeError || err instanceof PayopsError) throw err
      if (!isBadPort(err)) throw wireError(err, via)
    }
    this.fallback ??= new PoolTransport(1, this.net)
    return this.fallback.send(req)
  }

  async close(): Promise<void> {
    await this.way.close()
    await this.fallback?.close()
  }
}

export {loadUndici}

/**
 * undici's pooled Agent. `request` never follows redirects (that takes undici's redirect
 * interceptor, which is not used here), so a 3xx comes back as it is and the client refuses it.
 */
export class PoolTransport implements Transport {
  private readonly way: Way

  /** With `net`, the Agent is undici's ProxyAgent when a proxy applies, trusting its extra CAs. */
  constructor(connections = 64, net?: NetworkSettings) {
    this.way = new Way(net, {keepAliveTimeout: 10_000, connections, pipelining: 1})
  }

  async send(req: WireRequest): Promise<WireResponse> {
    const via = this.way.via(req.url)
    try {
      const {undici, dispatcher} = await this.way.dispatcher(req.url)
      const res = await undici.request(req.url, {
        method: req.method as Dispatcher.HttpMethod,
        headers: req.headers,
        body: req.body,
        dispatcher,
        signal: AbortSignal.timeout(req.timeoutMs),
        headersTimeout: req.timeoutMs,
        bodyTimeout: req.timeoutMs,
      })
      const body = decoded(res.body, res.headers['content-encoding'])
      const text = await readCapped(body, req, () => {
        body.destroy()
        res.body.destroy()
      })
      const {'content-encoding': _decoded, ...headers} = res.headers
      return {status: res.statusCode, headers, text, via}
    } catch (err) {
      if (err instanceof ResponseTooLargeError || err instanceof PayopsError) throw err
      throw wireError(err, via)
    }
  }

  async close(): Promise<void> {
    await this.way.close()
  }
}
