/**
 * Request handling shared by every route: body reading (1 MB cap) and JSON parsing (64 levels
 * deep at most), API-key authentication, the control API's guard (loopback Host, no foreign
 * Origin, JSON writes), the error body layout, and JSON responses with an `x-request-id`.
 *
 * Error bodies are `{"error_code", "message", "request_id"}` (the spec names the `error_code`
 * field and shows no layout). Handlers throw {@link HttpError}; anything else becomes a 500
 * INTERNAL_ERROR and the server keeps serving.
 */
import {randomBytes} from 'node:crypto'
import type {IncomingMessage, OutgoingHttpHeaders, ServerResponse} from 'node:http'
import {readCappedBody} from './body.js'
import {isLoopbackHost} from '../lib/net.js'
import type {AppContext} from '../app.js'
import {driftBody} from '../drift/drift.js'
import {withoutCursor} from '../strict/spec-only.js'
import {strictBody} from '../strict/strict.js'
import {HttpError, validationError} from '../lib/http-error.js'
import type {Fault} from '../faults/transport.js'
import {RequestContext} from './handler.js'
import type {Router} from './router.js'

export const MAX_BODY_BYTES = 1024 * 1024
/** Past this, an oversized body is not even drained: the connection is closed after the 413. */
const MAX_DRAIN_BYTES = 32 * MAX_BODY_BYTES
const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH'])
const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE'])

// Request ids come from a pooled random buffer: one syscall per 512 requests.
const ID_BYTES = 8
let idPool = Buffer.alloc(0)
let idOffset = 0
export function newRequestId(): string {
  if (idOffset + ID_BYTES > idPool.length) {
    idPool = randomBytes(ID_BYTES * 512)
    idOffset = 0
  }
  const id = idPool.toString('hex', idOffset, idOffset + ID_BYTES)
  idOffset += ID_BYTES
  return `req_${id}`
}

/** The `(req, res)` listener of an emulator server over `router`. */
export function createRequestListener(router: Router, app: AppContext): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    handle(req, res, router, app).catch((err: unknown) => {
      app.log(`emulator: failed to answer ${req.method} ${req.url}: ${(err as Error)?.stack ?? String(err)}`)
      if (!res.headersSent) res.destroy()
    })
  }
}

async function handle(req: IncomingMessage, res: ServerResponse, router: Router, app: AppContext): Promise<void> {
  const requestId = newRequestId()
  const method = req.method ?? 'GET'
  const url = req.url ?? '/'
  const q = url.indexOf('?')
  const path = q === -1 ? url : url.slice(0, q)
  try {
    // Only an origin-form target (`/path`): `*/…` or `http://…` forms are not routed at all.
    if (!path.startsWith('/')) throw new HttpError(404, 'NOT_FOUND', `no route for ${method} ${path}`)
    const match = router.match(method, path)
    // The guard decides on the route the router chose, so no spelling of a path reaches the control API unguarded.
    if (match.kind !== 'not_found' && match.pattern.startsWith('/_emulator')) guardControl(req, method)
    else if (path === '/_emulator' || path.startsWith('/_emulator/')) guardControl(req, method)
    if (match.kind === 'not_found') throw new HttpError(404, 'NOT_FOUND', `no route for ${method} ${path}`)
    if (match.kind === 'method_not_allowed') {
      throw new HttpError(405, 'METHOD_NOT_ALLOWED', `${method} is not allowed on ${match.pattern}; allowed: ${match.allow.join(', ')}`, {
        allow: match.allow.join(', '),
      })
    }
    const ctx = new RequestContext({requestId, method, path, rawQuery: q === -1 ? '' : url.slice(q + 1), params: match.params, req})
    const isApi = path.startsWith('/api/')
    if (isApi) app.requests.add(method, path)
    if (isApi) authenticate(ctx, app, method)
    if (BODY_METHODS.has(method)) ctx.body = parseJsonBody(await readBody(req))
    const fault = isApi ? app.transport?.pick(method) : undefined
    if (fault?.kind === 'latency') await new Promise((r) => setTimeout(r, app.transport!.latencyMs))
    else if (fault?.phase === 'before') return injectFault(req, res, fault, requestId, app)
    const reply = await match.handler(ctx)
    // What the request changed is in the state file (--state) before anything is answered.
    app.commit?.()
    // 'after': the handler committed its change; the client sees only the fault.
    if (fault && fault.kind !== 'latency') return injectFault(req, res, fault, requestId, app)
    const drifted = isApi && app.drift?.on ? driftBody(method, match.pattern, reply.status, reply.body) : reply.body
    const strict = isApi && (app.strict?.on ?? false)
    const minimal = strict ? strictBody(method, match.pattern, reply.status, drifted) : drifted
    const body = isApi && method === 'GET' && app.specOnly?.cursorless(strict) ? withoutCursor(reply.status, minimal) : minimal
    // The HTTP Date of an answer is the emulator's clock (moved by `emulator clock`), as a service's is its own.
    send(res, reply.status, body, requestId, {...reply.headers, date: new Date(app.store.peekMs()).toUTCString(), ...(await drainUnread(req))})
  } catch (err) {
    app.commit?.()
    if (err instanceof HttpError) {
      sendError(res, err.status, err.code, err.message, requestId, {...err.headers, ...(await drainUnread(req))}, err.problems)
    } else {
      app.log(`emulator: internal error in ${method} ${path} (${requestId}): ${(err as Error)?.stack ?? String(err)}`)
      sendError(res, 500, 'INTERNAL_ERROR', 'internal error', requestId)
    }
  }
}

/**
 * A request answered before its body was read (refused early, or a GET that carried one) has the
 * rest of its body drained first, up to MAX_DRAIN_BYTES, so that the client reads the answer
 * instead of a reset; past that the connection is closed after the answer.
 */
async function drainUnread(req: IncomingMessage): Promise<Record<string, string>> {
  if (req.complete || req.readableEnded) return {}
  const r = await readCappedBody(req, 0, MAX_DRAIN_BYTES).catch(() => undefined)
  return r === undefined || (r.kind === 'too_large' && r.close) ? {connection: 'close'} : {}
}

/**
 * The control API needs no key, so it must not be reachable from a web page: every request needs
 * a loopback Host (DNS rebinding), no foreign Origin (a page's cross-site request), and every
 * write a JSON body type (a form or a `text/plain` fetch cannot set it without a preflight).
 */
function guardControl(req: IncomingMessage, method: string): void {
  const host = req.headers.host
  if (host === undefined || !isLoopbackHostHeader(host)) {
    throw new HttpError(403, 'AUTHORIZATION_ERROR', 'the control API answers only requests addressed to a loopback host')
  }
  const origin = req.headers.origin
  if (origin !== undefined && !isLoopbackOrigin(origin)) {
    throw new HttpError(403, 'AUTHORIZATION_ERROR', 'the control API refuses requests from a non-loopback origin')
  }
  if (WRITE_METHODS.has(method) && !isJsonContentType(req.headers['content-type'])) {
    throw new HttpError(415, 'UNSUPPORTED_MEDIA_TYPE', `${method} on the control API needs content-type: application/json`)
  }
}

/** `127.0.0.1`, `localhost`, `[::1]`, each with or without `:port`. */
export function isLoopbackHostHeader(value: string): boolean {
  const v = value.trim().toLowerCase()
  let hostname: string
  let port: string
  if (v.startsWith('[')) {
    const end = v.indexOf(']')
    if (end === -1) return false
    hostname = v.slice(1, end)
    port = v.slice(end + 1)
  } else {
    const colon = v.indexOf(':')
    hostname = colon === -1 ? v : v.slice(0, colon)
    port = colon === -1 ? '' : v.slice(colon)
  }
  if (port !== '' && !/^:\d{1,5}$/.test(port)) return false
  return hostname !== '' && isLoopbackHost(hostname)
}

/** An `Origin` header naming an http(s) page on a loopback host. */
export function isLoopbackOrigin(value: string): boolean {
  let url: URL
  try {
    url = new URL(value)
  } catch {
    return false
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return false
  return isLoopbackHost(url.hostname)
}

/** `application/json`, with or without parameters (`; charset=utf-8`). */
export function isJsonContentType(value: string | undefined): boolean {
  if (value === undefined) return false
  return value.split(';', 1)[0].trim().toLowerCase() === 'application/json'
}

function injectFault(req: IncomingMessage, res: ServerResponse, fault: Fault, requestId: string, app: AppContext): void {
  if (fault.kind === 'reset') {
    req.socket.destroy()
    return
  }
  const status = Number(fault.kind)
  const retryAfter = app.transport?.retryAfter
  const headers = retryAfter !== null && retryAfter !== undefined && (status === 503 || status === 429) ? {'retry-after': String(retryAfter)} : undefined
  sendError(res, status, 'INJECTED_FAULT', `injected ${fault.kind} ${fault.phase} the handler`, requestId, headers)
}

function authenticate(ctx: RequestContext, app: AppContext, method: string): void {
  const key = ctx.header('x-api-key')
  if (!key) throw new HttpError(401, 'AUTHENTICATION_ERROR', 'missing x-api-key header')
  const who = app.store.authenticate(key)
  if (!who) throw new HttpError(401, 'AUTHENTICATION_ERROR', 'invalid API key')
  if (who.key.read_only && WRITE_METHODS.has(method)) {
    throw new HttpError(403, 'AUTHORIZATION_ERROR', `this API key is read-only and cannot ${method}`)
  }
  ctx.setCaller(who.key, who.entity)
}

/**
 * Reads the request body, at most {@link MAX_BODY_BYTES} (see src/body.ts): a larger one is a 413,
 * with the connection closed when it is huge.
 */
export async function readBody(req: IncomingMessage): Promise<Buffer> {
  const r = await readCappedBody(req, MAX_BODY_BYTES, MAX_DRAIN_BYTES)
  if (r.kind === 'body') return r.body
  throw new HttpError(413, 'PAYLOAD_TOO_LARGE', `request body is larger than ${MAX_BODY_BYTES} bytes`, r.close ? {connection: 'close'} : undefined)
}

/**
 * Deepest nesting of arrays and objects a request body may have. JSON.parse copes with any depth,
 * but the recursive work done later (JSON.stringify of an event, of the saved state) overflows the
 * stack on bodies nested a few hundred thousand levels deep, which fit in 1 MB.
 */
export const MAX_JSON_DEPTH = 64

/** Whether JSON `text` nests arrays/objects deeper than `max` (a linear scan, no recursion). */
export function nestsDeeperThan(text: string, max: number): boolean {
  let depth = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (inString) {
      if (c === 0x5c) i++ // backslash: skip the escaped character
      else if (c === 0x22) inString = false
    } else if (c === 0x22) {
      inString = true
    } else if (c === 0x7b || c === 0x5b) {
      if (++depth > max) return true
    } else if (c === 0x7d || c === 0x5d) {
      depth--
    }
  }
  return false
}

/** Empty (or blank) body -> `{}`; anything else must be a JSON object nested at most {@link MAX_JSON_DEPTH} deep. */
export function parseJsonBody(buf: Buffer): Record<string, unknown> {
  const text = buf.toString('utf8')
  if (text.trim() === '') return {}
  if (nestsDeeperThan(text, MAX_JSON_DEPTH)) throw validationError(`request body is nested deeper than ${MAX_JSON_DEPTH} levels`)
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    throw validationError('request body is not valid JSON')
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw validationError('request body must be a JSON object')
  return value as Record<string, unknown>
}

export function send(res: ServerResponse, status: number, body: unknown, requestId: string, extra?: Record<string, string>): void {
  if (res.headersSent || res.destroyed) return
  const payload = body === undefined ? '' : JSON.stringify(body)
  const headers: OutgoingHttpHeaders = {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(payload),
    'x-request-id': requestId,
  }
  if (extra) Object.assign(headers, extra)
  res.writeHead(status, headers)
  res.end(payload)
}

export function sendError(res: ServerResponse, status: number, code: string, message: string, requestId: string, extra?: Record<string, string>, problems?: readonly string[]): void {
  send(res, status, {error_code: code, message, request_id: requestId, ...(problems ? {errors: problems.map((p) => ({message: p}))} : {})}, requestId, extra)
}
