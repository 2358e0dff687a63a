/**
 * How bytes reach the API: Node's own HTTP client, for every command (one GET, a `--all` list, an
 * import with 64 requests in flight alike).
 */
import * as http from 'node:http'
import type {Agent} from 'node:http'

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
 * A transport error with a stable code (ECONNREFUSED, ECONNRESET, ETIMEDOUT, ...). undici may
 * wrap the socket's error in `cause` (Node's fetch throws `TypeError: fetch failed`), which may
 * itself be an AggregateError (one member per address tried); the innermost string code is the
 * real reason.
 */
export function wireError(err: unknown): Error & {code: string} {
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
  return Object.assign(new Error(message), {code})
}

/**
 * Node's own HTTP client (`node:http`, and `node:https` for an https base URL), with keep-alive
 * connections (as many as requests in flight) that do not hold the process open. Nothing to load
 * for http, so a command starts fast: Node's fetch costs about 45 ms more to set up on first use,
 * the undici package's pool about 65 ms. It never follows redirects: a 3xx comes back as it is
 * and the client refuses it, so the API key and body only ever go to the configured base URL.
 * The response body is decoded as UTF-8 (a BOM dropped, as fetch's `text()` does); no
 * Accept-Encoding is sent, so the body comes as it is.
 */
export class HttpTransport implements Transport {
  private readonly agents = new Map<string, Agent>()

  async send(req: WireRequest): Promise<WireResponse> {
    let url: URL
    try {
      url = new URL(req.url)
    } catch (err) {
      throw wireError(err)
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw Object.assign(new Error(`${url.protocol} is not http: or https:`), {code: 'ERR_INVALID_PROTOCOL'})
    }
    const client = url.protocol === 'https:' ? await import('node:https') : http
    let agent = this.agents.get(url.protocol)
    if (!agent) {
      agent = new client.Agent({keepAlive: true})
      this.agents.set(url.protocol, agent)
    }
    const headers: Record<string, string> = {...req.headers}
    if (req.body !== undefined) headers['content-length'] = String(Buffer.byteLength(req.body))
    return new Promise<WireResponse>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined
      const fail = (err: unknown) => {
        clearTimeout(timer)
        reject(wireError(err))
      }
      let request: http.ClientRequest
      try {
        request = client.request(url, {method: req.method, headers, agent}, (res) => {
          const chunks: Buffer[] = []
          res.on('data', (chunk: Buffer) => chunks.push(chunk))
          res.on('error', fail)
          res.on('end', () => {
            clearTimeout(timer)
            if (!res.complete) return fail(Object.assign(new Error('the connection closed before the whole answer arrived'), {code: 'ECONNRESET'}))
            resolve({status: res.statusCode ?? 0, headers: res.headers, text: new TextDecoder().decode(Buffer.concat(chunks))})
          })
        })
      } catch (err) {
        // An invalid header value or method, refused before anything is sent.
        return fail(err)
      }
      timer = setTimeout(() => request.destroy(Object.assign(new Error(`no answer within ${req.timeoutMs} ms`), {name: 'TimeoutError'})), req.timeoutMs)
      request.on('error', fail)
      request.end(req.body)
    })
  }

  async close(): Promise<void> {
    for (const agent of this.agents.values()) agent.destroy()
    this.agents.clear()
  }
}
