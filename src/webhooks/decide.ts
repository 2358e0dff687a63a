/**
 * What the listener decides about one request, as pure functions: the route, the signature and
 * timestamp, the envelope, duplicates; and the counts the Ctrl-C summary shows.
 */
import {createHash} from 'node:crypto'
import {MAX_EVENT_DEPTH} from './limits.js'
import {escapeControls, jsonDepth} from './safety.js'
import {describeFailure, verify, type VerifyFailure} from './signature.js'
import type {WebhookEvent} from './samples.js'

export type Rejection =
  | VerifyFailure
  | 'malformed_json'
  | 'invalid_envelope'
  | 'too_deep'
  | 'not_found'
  | 'method_not_allowed'
  | 'payload_too_large'
  | 'queue_full'
  | 'malformed_request'
  | 'request_timeout'
  | 'headers_too_large'
  | 'too_many_connections'

export const REJECTION_STATUS: Record<Rejection, number> = {
  missing_header: 400,
  malformed_timestamp: 400,
  malformed_json: 400,
  invalid_envelope: 400,
  too_deep: 400,
  malformed_request: 400,
  bad_signature: 401,
  stale_timestamp: 401,
  not_found: 404,
  method_not_allowed: 405,
  request_timeout: 408,
  payload_too_large: 413,
  headers_too_large: 431,
  queue_full: 503,
  // The connection is closed without an answer; the number is only for the record.
  too_many_connections: 503,
}

/** An id longer than this is remembered by its SHA-256 (an event id is short; a hostile one need not be). */
const LONG_ID = 128

/**
 * Remembers the latest `capacity` event ids (oldest forgotten first), and never more than
 * `maxChars` characters of them: a long id is kept as its digest, so memory is bounded in bytes
 * (about 100,000 ids of at most 128 characters) whatever the senders put in `id`.
 */
export class RecentIds {
  private readonly ids = new Set<string>()
  private chars = 0
  constructor(
    private readonly capacity = 100_000,
    private readonly maxChars = 8 * 1024 * 1024,
  ) {}

  private keyOf(id: string): string {
    return id.length > LONG_ID ? `sha256:${createHash('sha256').update(id).digest('hex')}` : id
  }

  has(id: string): boolean {
    return this.ids.has(this.keyOf(id))
  }

  add(id: string): void {
    const key = this.keyOf(id)
    if (this.ids.has(key)) return
    this.ids.add(key)
    this.chars += key.length
    while (this.ids.size > this.capacity || this.chars > this.maxChars) {
      const oldest = this.ids.values().next().value as string
      this.ids.delete(oldest)
      this.chars -= oldest.length
    }
  }

  /** True when `id` was already seen; records it otherwise. */
  seen(id: string): boolean {
    if (this.has(id)) return true
    this.add(id)
    return false
  }

  /** Characters of the ids kept (the memory they hold is about twice this, plus the set's own). */
  get storedChars(): number {
    return this.chars
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

export type Rejected = Extract<Decision, {outcome: 'rejected'}>

export interface DecideOptions {
  secrets: readonly string[]
  toleranceSec?: number
  /** Only these types are accepted and printed; others are answered 200 and ignored. */
  events?: ReadonlySet<string>
  seen: RecentIds
  /** Ids received before this process (the event store): a delivery of one is a duplicate. */
  known?: (id: string) => boolean
  now?: number
  /** Deepest accepted nesting (default MAX_EVENT_DEPTH). */
  maxDepth?: number
  /**
   * Asked before a new event is accepted: false refuses it with `queue_full` (503) and leaves its
   * id unrecorded, so that the sender's retry is processed.
   */
  admit?: (event: WebhookEvent) => boolean
}

export function reject(reason: Rejection, message: string): Rejected {
  return {outcome: 'rejected', status: REJECTION_STATUS[reason], reason, message}
}

/** Where a request may go before its body is read: undefined when it may proceed. */
export function checkRoute(method: string | undefined, rawUrl: string | undefined, path: string): Decision | undefined {
  const url = rawUrl ?? '/'
  const q = url.indexOf('?')
  const p = q === -1 ? url : url.slice(0, q)
  if (p !== path) return reject('not_found', `no webhook endpoint at ${escapeControls(p)} (listening on ${path})`)
  if (method !== 'POST') return reject('method_not_allowed', `${method ?? '?'} is not allowed: webhooks are delivered with POST`)
  return undefined
}

/**
 * Decides on one delivery from its headers and raw body: signature first (so that nothing of an
 * unauthentic request is trusted), then the nesting depth (before parsing), the JSON envelope,
 * duplicates, the type filter and room to process it.
 */
export function decide(signature: string | undefined, timestamp: string | undefined, rawBody: Buffer, opts: DecideOptions): Decision {
  const v = verify({secrets: opts.secrets, signature, timestamp, rawBody, toleranceSec: opts.toleranceSec, now: opts.now})
  if (!v.ok) return reject(v.reason, describeFailure(v.reason, opts.toleranceSec))
  const maxDepth = opts.maxDepth ?? MAX_EVENT_DEPTH
  if (jsonDepth(rawBody, maxDepth) > maxDepth) return reject('too_deep', `the event is nested deeper than ${maxDepth} levels`)
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
  if (opts.seen.has(event.id)) return {outcome: 'duplicate', status: 200, event, secretIndex: v.secretIndex}
  if (opts.known?.(event.id)) {
    opts.seen.add(event.id)
    return {outcome: 'duplicate', status: 200, event, secretIndex: v.secretIndex}
  }
  if (opts.events && !opts.events.has(event.type)) {
    opts.seen.add(event.id)
    return {outcome: 'filtered', status: 200, event, secretIndex: v.secretIndex}
  }
  if (opts.admit && !opts.admit(event)) return reject('queue_full', 'the forward queue is full; retry later')
  opts.seen.add(event.id)
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
  /** Per route, with `--forward` routes (the last is --forward-to's, route null). */
  routes?: Array<{route: string | null; url: string; forwarded: number; failed: number}>
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
  if (forwarding) {
    const notes = [s.forward_failed ? `failed ${s.forward_failed}` : '', s.rejected.queue_full ? `refused ${s.rejected.queue_full} with 503: queue full` : ''].filter(Boolean)
    parts.push(`forwarded ${s.forwarded}${notes.length ? ` (${notes.join(', ')})` : ''}`)
    if (s.routes?.length) {
      const each = s.routes.map((r) => `${r.route ?? 'else'} -> ${escapeControls(r.url)}: forwarded ${r.forwarded}${r.failed ? `, failed ${r.failed}` : ''}`)
      parts.push(`routes: ${each.join('; ')}`)
    }
  }
  return parts.join(', ')
}
