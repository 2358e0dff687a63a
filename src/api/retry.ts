/**
 * The retry policy, as pure functions: which attempts may be retried and how long to wait.
 * Exponential backoff with full jitter (AWS architecture blog), honouring Retry-After.
 */

export const RETRYABLE_STATUSES = new Set([408, 429, 500, 502, 503, 504])

export interface RetryPolicy {
  maxRetries: number
  baseDelayMs: number
  maxDelayMs: number
}

export const DEFAULT_POLICY: RetryPolicy = {maxRetries: 2, baseDelayMs: 200, maxDelayMs: 5000}

/** GET, HEAD, PUT and DELETE are idempotent by definition; POST and PATCH only with a key. */
export function isRetryableMethod(method: string, hasIdempotencyKey: boolean): boolean {
  const m = method.toUpperCase()
  if (m === 'GET' || m === 'HEAD' || m === 'DELETE' || m === 'PUT' || m === 'OPTIONS') return true
  return hasIdempotencyKey
}

/** Parses Retry-After (delta seconds or an HTTP date) into milliseconds from `now`. */
export function parseRetryAfter(value: string | string[] | undefined | null, now = Date.now()): number | undefined {
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
