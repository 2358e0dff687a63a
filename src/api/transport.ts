/**
 * How bytes reach the API. Both transports are undici: `fetch` is the undici bundled in Node
 * (nothing to load, so one-shot commands start fast), `pool` is the undici package's pooled Agent
 * with many keep-alive connections (bulk commands such as `moves import`, loaded only there).
 */
import type {Dispatcher} from 'undici'

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

/** A transport error with a stable code (ECONNREFUSED, ECONNRESET, ETIMEDOUT, ...). */
function wireError(err: unknown): Error & {code: string} {
  const e = err as {code?: unknown; name?: string; message?: string; cause?: {code?: unknown; name?: string}}
  const code =
    (typeof e.cause?.code === 'string' && e.cause.code) ||
    (typeof e.code === 'string' && e.code) ||
    (e.name === 'TimeoutError' || e.cause?.name === 'TimeoutError' ? 'ETIMEDOUT' : '') ||
    e.cause?.name ||
    e.name ||
    'ERROR'
  return Object.assign(new Error(e.message ?? String(err)), {code})
}

export class FetchTransport implements Transport {
  async send(req: WireRequest): Promise<WireResponse> {
    try {
      const res = await fetch(req.url, {method: req.method, headers: req.headers, body: req.body, signal: AbortSignal.timeout(req.timeoutMs)})
      const headers: Record<string, string> = {}
      res.headers.forEach((v, k) => (headers[k] = v))
      return {status: res.status, headers, text: await res.text()}
    } catch (err) {
      throw wireError(err)
    }
  }

  async close(): Promise<void> {}
}

let undiciModule: Promise<typeof import('undici')> | undefined
// Bundled, a CommonJS module may arrive as the namespace's default export.
export const loadUndici = () => (undiciModule ??= import('undici').then((m) => ((m as {Agent?: unknown}).Agent ? m : ((m as {default?: unknown}).default as typeof m))))

export class PoolTransport implements Transport {
  private dispatcher?: Promise<Dispatcher>

  constructor(private readonly connections = 64) {}

  async send(req: WireRequest): Promise<WireResponse> {
    const {request, Agent} = await loadUndici()
    this.dispatcher ??= Promise.resolve(new Agent({keepAliveTimeout: 10_000, connections: this.connections, pipelining: 1}))
    try {
      const res = await request(req.url, {
        method: req.method as Dispatcher.HttpMethod,
        headers: req.headers,
        body: req.body,
        dispatcher: await this.dispatcher,
        signal: AbortSignal.timeout(req.timeoutMs),
        headersTimeout: req.timeoutMs,
        bodyTimeout: req.timeoutMs,
      })
      return {status: res.statusCode, headers: res.headers, text: await res.body.text()}
    } catch (err) {
      throw wireError(err)
    }
  }

  async close(): Promise<void> {
    const d = await this.dispatcher
    this.dispatcher = undefined
    await (d as unknown as {close?: () => Promise<void>})?.close?.()
  }
}
