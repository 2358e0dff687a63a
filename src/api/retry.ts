/**
 * The retry policy, as pure functions: which attempts may be retried and how long to wait.
 * Exponential backoff with full jitter (AWS architecture blog), honouring Retry-After.
 */
import {systemClock} from '../context/host.js'

export const RETRYABLE_STATUSES = new Set([408, 429, 500, 502, 503, 504])

export interface RetryPolicy {
  maxRetries: number
  baseDelayMs: number
  maxDelayMs: number
}

export const DEFAULT_POLICY: RetryPolicy = {maxRetries: 2, baseDelayMs: 200, maxDelayMs: 5000}

/**
 * Methods that change nothing, by definition: always re-sent after a failure. Every other request
 * is re-sent after a failure that may have reached the server only where the spec promises that a
 * repeat cannot act twice: move create with its Idempotency-Key (`idempotentBySpec`). PUT and
 * DELETE are not on the list: a move's cancel is a DELETE, and the spec promises nothing of it.
 */
export function isRetryableMethod(method: string, idempotentBySpec: boolean): boolean {
  const m = method.toUpperCase()
  if (m === 'GET' || m === 'HEAD' || m === 'OPTIONS') return true
  return idempotentBySpec
}

/**
 * Transport failures that prove the request never reached the server (no connection was made):
 * any request may be sent again after one of these. A reset, a timeout or any answer with a status
 * may come after the server acted.
 */
export const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'EADDRNOTAVAIL', 'UND_ERR_CONNECT_TIMEOUT', 'PROXY_REFUSED'])

export function failedBeforeSending(code: string | undefined): boolean {
  return code !== undefined && NOT_SENT_CODES.has(code)
}

/**
 * Whether a failure leaves it unknown if the server acted on the request: a network failure other
 * than one that proves nothing was sent, any 5xx (it may come after the commit), 408 and 429 (the
 * spec shows no rate limits and promises nothing about them), an answer that could not be read,
 * or a request one of whose earlier attempts was itself uncertain.
 */
export function leavesOutcomeUnknown(err: unknown): boolean {
  if (typeof err !== 'object' || err === null) return false
  const e = err as {name?: unknown; status?: unknown; code?: unknown; earlierAttemptUncertain?: unknown}
  if (e.earlierAttemptUncertain === true) return true
  if (e.name === 'NetworkError') return !failedBeforeSending(typeof e.code === 'string' ? e.code : undefined) && e.code !== 'REDIRECT'
  if (e.name === 'ResponseError' || e.name === 'ResponseTooLargeError') return true
  if (e.name === 'ApiError' && typeof e.status === 'number') return e.status >= 500 || e.status === 408 || e.status === 429
  return false
}

/** Parses Retry-After (delta seconds or an HTTP date) into milliseconds from `now`. */
export function parseRetryAfter(value: string | string[] | undefined | null, now = systemClock.now()): number | undefined {
  const v = Array.isArray(value) ? value[0] : value
  if (v === undefined || v === null || v.trim() === '') return undefined
  const trimmed = v.trim()
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000)
  if (!/^(Mon|Tue|Wed|Thu|Fri|Sat|Sun)/i.test(trimmed)) return undefined
  const date = Date.parse(trimmed)
  if (Number.isNaN(date)) return undefined
  return Math.max(0, date - now)
}

/** Full jitter: a uniform wait in [0, min(max, base * 2^attempt)). `attempt` counts from 0. */
export function backoffDelay(attempt: number, policy: RetryPolicy, random: () => number = Math.random): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** attempt)
  return Math.floor(random() * ceiling)
}

/** The wait before the next attempt: Retry-After when the server gave one, else backoff. */
export function nextDelay(attempt: number, policy: RetryPolicy, retryAfterMs: number | undefined, random?: () => number): number {
  if (retryAfterMs !== undefined) return retryAfterMs
  return backoffDelay(attempt, policy, random)
}
