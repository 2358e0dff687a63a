import * as crypto from 'node:crypto'
import fc from 'fast-check'
import {afterEach, describe, expect, it, vi} from 'vitest'

vi.mock('node:crypto', async (importOriginal) => {
  const orig = await importOriginal<typeof import('node:crypto')>()
  return {...orig, timingSafeEqual: vi.fn(orig.timingSafeEqual)}
})

const {generateSecret, sign, verify, describeFailure, timestampInstant} = await import('../../src/webhooks/signature.js')

const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'
const BODY = '{"id":"evt_1","type":"payin.settled","data":{"payin_id":"8f0b3b4e-3c1e-4f7a-9a57-1f8d2b9e6c10"}}'
const TS = '1767225600'

/** Computed independently of the module under test. */
function reference(secret: string, ts: string, body: string): string {
  return crypto.createHmac('sha256', Buffer.from(secret, 'utf8')).update(Buffer.from(`${ts}.${body}`, 'utf8')).digest('hex')
}

afterEach(() => vi.mocked(crypto.timingSafeEqual).mockClear())

describe('sign', () => {
  it('is the lower-case hex HMAC-SHA256 of "{timestamp}.{body}" keyed with the whole secret', () => {
    const expected = reference(SECRET, TS, BODY)
    expect(sign(SECRET, TS, BODY)).toBe(expected)
    expect(sign(SECRET, Number(TS), Buffer.from(BODY))).toBe(expected)
    expect(expected).toMatch(/^[0-9a-f]{64}$/)
  })

  it('a fixed vector (printf \'1767225600.{}\' | openssl dgst -sha256 -hmac whsec_test)', () => {
    expect(sign('whsec_test', '1767225600', '{}')).toBe('4a942ef9477fb7b15b98664cf7ff2c2543984c1fa6bdf3520b48dcb25bcd1fe4')
    expect(reference('whsec_test', '1767225600', '{}')).toBe('4a942ef9477fb7b15b98664cf7ff2c2543984c1fa6bdf3520b48dcb25bcd1fe4')
  })

  it('generates whsec_ secrets of 32 random bytes in base64url', () => {
    const s = generateSecret()
    expect(s).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/)
    expect(Buffer.from(s.slice(6), 'base64url')).toHaveLength(32)
    expect(generateSecret()).not.toBe(s)
  })
})

describe('verify', () => {
  const sig = reference(SECRET, TS, BODY)
  const base = {secrets: [SECRET], timestamp: TS, signature: sig, rawBody: BODY}

  it('accepts the right signature and names the secret that matched', () => {
    expect(verify(base)).toEqual({ok: true, secretIndex: 0})
    expect(verify({...base, secrets: ['whsec_other_secret_value', SECRET]})).toEqual({ok: true, secretIndex: 1})
  })

  it('rejects another secret, another body, another timestamp', () => {
    expect(verify({...base, secrets: ['whsec_other_secret_value']})).toEqual({ok: false, reason: 'bad_signature'})
    expect(verify({...base, rawBody: BODY.replace('evt_1', 'evt_2')})).toEqual({ok: false, reason: 'bad_signature'})
    expect(verify({...base, timestamp: '1767225601'})).toEqual({ok: false, reason: 'bad_signature'})
  })

  it('a re-serialised body fails', () => {
    const pretty = JSON.stringify(JSON.parse(BODY), null, 2)
    expect(verify({...base, rawBody: pretty})).toEqual({ok: false, reason: 'bad_signature'})
    expect(verify({...base, rawBody: `${BODY}\n`})).toEqual({ok: false, reason: 'bad_signature'})
  })

  it('missing headers and malformed timestamps', () => {
    expect(verify({...base, signature: undefined})).toEqual({ok: false, reason: 'missing_header'})
    expect(verify({...base, timestamp: ''})).toEqual({ok: false, reason: 'missing_header'})
    expect(verify({...base, timestamp: null})).toEqual({ok: false, reason: 'missing_header'})
    for (const ts of ['12a', '-5', '1.5', ' 1767225600', '1'.repeat(14), '2026-01-01', '2026-01-01T00:00:00', '2026-02-30T00:00:00Z', '2026-01-01T24:00:00Z', '2026-01-01T00:00:00+25:00', 'yesterday']) {
      expect(verify({...base, timestamp: ts})).toEqual({ok: false, reason: 'malformed_timestamp'})
    }
  })

  it('the timestamp as the spec allows it: unix seconds, unix milliseconds or an ISO 8601 date-time, signed as sent', () => {
    const instant = Date.parse('2026-01-01T00:00:00Z')
    for (const ts of ['1767225600', '1767225600000', '2026-01-01T00:00:00Z', '2026-01-01T00:00:00.000Z', '2025-12-31T19:00:00-05:00', '2026-01-01T05:30:00+0530', '2026-01-01t00:00z']) {
      const s = reference(SECRET, ts, BODY)
      expect(verify({...base, timestamp: ts, signature: s}), ts).toEqual({ok: true, secretIndex: 0})
      expect(timestampInstant(ts), ts).toBe(instant)
      // The tolerance applies to the instant, whatever the form.
      expect(verify({...base, timestamp: ts, signature: s, toleranceSec: 300, nowMs: instant + 300_000}), ts).toEqual({ok: true, secretIndex: 0})
      expect(verify({...base, timestamp: ts, signature: s, toleranceSec: 300, nowMs: instant - 301_000}), ts).toEqual({ok: false, reason: 'stale_timestamp'})
    }
  })

  it('signatures that are not 64 lower-case hex digits fail', () => {
    for (const s of [sig.toUpperCase(), sig.slice(0, 63), `${sig}0`, `sha256=${sig}`, 'zz'.repeat(32)]) {
      expect(verify({...base, signature: s})).toEqual({ok: false, reason: 'bad_signature'})
    }
  })

  it('tolerance edges: exactly at the tolerance passes, one second past is stale, both directions', () => {
    const now = Number(TS)
    expect(verify({...base, toleranceSec: 300, now: now + 300})).toEqual({ok: true, secretIndex: 0})
    expect(verify({...base, toleranceSec: 300, now: now - 300})).toEqual({ok: true, secretIndex: 0})
    expect(verify({...base, toleranceSec: 300, now: now + 301})).toEqual({ok: false, reason: 'stale_timestamp'})
    expect(verify({...base, toleranceSec: 300, now: now - 301})).toEqual({ok: false, reason: 'stale_timestamp'})
    expect(verify({...base, toleranceSec: 0, now})).toEqual({ok: true, secretIndex: 0})
    expect(verify({...base, toleranceSec: 0, now: now + 1})).toEqual({ok: false, reason: 'stale_timestamp'})
    // No tolerance: no staleness check at all.
    expect(verify({...base, now: now + 10 ** 8})).toEqual({ok: true, secretIndex: 0})
    // A forged signature on a stale timestamp is reported as a bad signature.
    expect(verify({...base, secrets: ['whsec_nope_nope_nope'], toleranceSec: 1, now: now + 1000})).toEqual({ok: false, reason: 'bad_signature'})
  })

  it('compares in constant time: timingSafeEqual on 32-byte buffers, once per secret, matched or not', () => {
    const spy = vi.mocked(crypto.timingSafeEqual)
    const secrets = [SECRET, 'whsec_b_b_b_b_b_b', 'whsec_c_c_c_c_c_c']
    for (const signature of [sig, 'f'.repeat(64), 'not-hex']) {
      spy.mockClear()
      verify({...base, secrets, signature})
      expect(spy).toHaveBeenCalledTimes(3)
      for (const [a, b] of spy.mock.calls) {
        expect((a as Buffer).length).toBe(32)
        expect((b as Buffer).length).toBe(32)
      }
    }
  })

  it('describes every failure', () => {
    expect(describeFailure('stale_timestamp', 300)).toMatch(/300 seconds/)
    expect(describeFailure('missing_header')).toMatch(/X-Webhook-Signature/)
  })

  it('property: any signed body verifies, and any change to it does not', () => {
    fc.assert(
      fc.property(fc.uint8Array({minLength: 1, maxLength: 300}), fc.nat(), fc.integer({min: 0, max: 2 ** 31}), (bytes, pos, ts) => {
        const body = Buffer.from(bytes)
        const s = sign(SECRET, ts, body)
        expect(verify({secrets: [SECRET], timestamp: String(ts), signature: s, rawBody: body}).ok).toBe(true)
        const changed = Buffer.from(body)
        changed[pos % changed.length] ^= 0x01
        expect(verify({secrets: [SECRET], timestamp: String(ts), signature: s, rawBody: changed}).ok).toBe(false)
      }),
      {numRuns: 200},
    )
  })
})
