import {describe, expect, it} from 'vitest'
import fc from 'fast-check'
import {DEFAULT_POLICY, RETRYABLE_STATUSES, backoffDelay, failedBeforeSending, isRetryableMethod, leavesOutcomeUnknown, nextDelay, parseRetryAfter, type RetryPolicy} from '../../src/api/retry.js'
import {ApiError, NetworkError, ResponseError} from '../../src/errors.js'

const NOW = Date.UTC(2026, 0, 15, 12, 0, 0)

describe('parseRetryAfter', () => {
  it('reads delta seconds', () => {
    expect(parseRetryAfter('0', NOW)).toBe(0)
    expect(parseRetryAfter('3', NOW)).toBe(3000)
    expect(parseRetryAfter(' 120 ', NOW)).toBe(120_000)
  })

  it('reads decimal seconds', () => {
    expect(parseRetryAfter('1.5', NOW)).toBe(1500)
    expect(parseRetryAfter('0.25', NOW)).toBe(250)
  })

  it('reads an HTTP date relative to now', () => {
    const in30s = new Date(NOW + 30_000).toUTCString()
    expect(in30s).toMatch(/GMT$/)
    expect(parseRetryAfter(in30s, NOW)).toBe(30_000)
    expect(parseRetryAfter('Thu, 15 Jan 2026 12:01:00 GMT', NOW)).toBe(60_000)
  })

  it('clamps a date in the past to 0', () => {
    expect(parseRetryAfter(new Date(NOW - 60_000).toUTCString(), NOW)).toBe(0)
    expect(parseRetryAfter('Wed, 21 Oct 2015 07:28:00 GMT', NOW)).toBe(0)
  })

  it('takes the first value of a repeated header', () => {
    expect(parseRetryAfter(['2', '9'], NOW)).toBe(2000)
  })

  it('accepts the three HTTP-date formats of RFC 9110', () => {
    expect(parseRetryAfter('Thu, 15 Jan 2026 12:01:30 GMT', NOW)).toBe(90_000)
    expect(parseRetryAfter('Thursday, 15-Jan-26 12:01:30 GMT', NOW)).toBe(90_000)
    expect(parseRetryAfter('Thu Jan 15 12:01:30 2026', NOW)).toEqual(expect.any(Number))
  })

  it.each([undefined, null, '', '   ', 'soon', '-5', 'abc123', '1e3x', 'foo 5', 'wait 2', 'x-1', '1.2.3', '5 5'])('returns undefined for %j', (v) => {
    expect(parseRetryAfter(v as string | undefined | null, NOW)).toBeUndefined()
  })
})

describe('backoffDelay', () => {
  const policy: RetryPolicy = {maxRetries: 5, baseDelayMs: 200, maxDelayMs: 5000}

  it('is 0 when the random draw is 0', () => {
    for (let attempt = 0; attempt < 8; attempt++) expect(backoffDelay(attempt, policy, () => 0)).toBe(0)
  })

  it('stays just under the exponential ceiling for a draw close to 1', () => {
    expect(backoffDelay(0, policy, () => 0.999)).toBe(199)
    expect(backoffDelay(1, policy, () => 0.999)).toBe(399)
    expect(backoffDelay(2, policy, () => 0.999)).toBe(799)
    expect(backoffDelay(3, policy, () => 0.999)).toBe(1598)
  })

  it('caps the ceiling at maxDelayMs', () => {
    expect(backoffDelay(5, policy, () => 0.999)).toBe(4995)
    expect(backoffDelay(30, policy, () => 0.999)).toBe(4995)
    expect(backoffDelay(1000, policy, () => 0.5)).toBe(2500)
  })

  it('always lies in [0, min(max, base * 2^attempt)) as an integer', () => {
    fc.assert(
      fc.property(fc.integer({min: 0, max: 60}), fc.double({min: 0, max: 1, maxExcluded: true, noNaN: true}), (attempt, r) => {
        const d = backoffDelay(attempt, policy, () => r)
        const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** attempt)
        expect(Number.isInteger(d)).toBe(true)
        expect(d).toBeGreaterThanOrEqual(0)
        expect(d).toBeLessThan(ceiling)
      }),
    )
  })
})

describe('nextDelay', () => {
  it('uses Retry-After when given, even 0, else backoff', () => {
    expect(nextDelay(0, DEFAULT_POLICY, 7000, () => 0.5)).toBe(7000)
    expect(nextDelay(3, DEFAULT_POLICY, 0, () => 0.5)).toBe(0)
    expect(nextDelay(1, DEFAULT_POLICY, undefined, () => 0.5)).toBe(200)
  })
})

describe('isRetryableMethod', () => {
  it('re-sends GET, HEAD and OPTIONS always', () => {
    for (const m of ['GET', 'get', 'HEAD', 'OPTIONS']) {
      expect(isRetryableMethod(m, false)).toBe(true)
      expect(isRetryableMethod(m, true)).toBe(true)
    }
  })

  it('re-sends a write only where the spec promises idempotency (DELETE and PUT included)', () => {
    for (const m of ['POST', 'post', 'PATCH', 'DELETE', 'delete', 'PUT']) {
      expect(isRetryableMethod(m, false)).toBe(false)
      expect(isRetryableMethod(m, true)).toBe(true)
    }
  })
})

describe('failedBeforeSending and leavesOutcomeUnknown', () => {
  it('only a connection never made proves nothing was sent', () => {
    for (const c of ['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT']) expect(failedBeforeSending(c)).toBe(true)
    for (const c of ['ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'UND_ERR_SOCKET', 'ERROR', undefined]) expect(failedBeforeSending(c)).toBe(false)
  })

  it('every 5xx, 408, 429, reset, timeout and unreadable answer leaves the outcome unknown; a 4xx or a refused connection does not', () => {
    for (const status of [500, 502, 503, 504, 408, 429]) expect(leavesOutcomeUnknown(new ApiError({status, message: 'x'}))).toBe(true)
    for (const status of [400, 401, 403, 404, 409]) expect(leavesOutcomeUnknown(new ApiError({status, message: 'x'}))).toBe(false)
    expect(leavesOutcomeUnknown(new NetworkError('reset', 'ECONNRESET'))).toBe(true)
    expect(leavesOutcomeUnknown(new NetworkError('timed out', 'ETIMEDOUT'))).toBe(true)
    expect(leavesOutcomeUnknown(new NetworkError('refused', 'ECONNREFUSED'))).toBe(false)
    expect(leavesOutcomeUnknown(new ResponseError('not JSON', 201))).toBe(true)
    // A 4xx after an earlier attempt that may have acted (a re-sent move create) is unknown too.
    expect(leavesOutcomeUnknown(Object.assign(new ApiError({status: 409, message: 'x'}), {earlierAttemptUncertain: true}))).toBe(true)
    expect(leavesOutcomeUnknown(new Error('plain'))).toBe(false)
    expect(leavesOutcomeUnknown(undefined)).toBe(false)
  })
})

describe('RETRYABLE_STATUSES and DEFAULT_POLICY', () => {
  it('match the documented reliability contract', () => {
    expect([...RETRYABLE_STATUSES].sort()).toEqual([408, 429, 500, 502, 503, 504])
    for (const s of [200, 201, 207, 400, 401, 403, 404, 409, 501]) expect(RETRYABLE_STATUSES.has(s)).toBe(false)
    expect(DEFAULT_POLICY.maxRetries).toBe(2)
  })
})
