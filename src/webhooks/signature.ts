/**
 * Webhook signatures, shared by the emulator's deliveries and the CLI's listen, verify and trigger.
 *
 * `X-Webhook-Signature` is the lower-case hex HMAC-SHA256 of `{timestamp}.{raw body}`, keyed with
 * the endpoint's signing secret (the whole `whsec_…` string, as UTF-8 bytes); `X-Webhook-Timestamp`
 * carries the timestamp used in that string, exactly as sent: unix seconds, unix milliseconds or an
 * ISO 8601 date-time (the spec's convention for timestamps). The tolerance applies to the instant
 * it names, whatever its form. The body must be the exact bytes that
 * were sent: a re-serialised body fails.
 */
import {createHmac, randomBytes, timingSafeEqual} from 'node:crypto'

export const SIGNATURE_HEADER = 'x-webhook-signature'
export const TIMESTAMP_HEADER = 'x-webhook-timestamp'
export const SECRET_PREFIX = 'whsec_'

export type RawBody = string | Buffer | Uint8Array

/** A new signing secret: `whsec_` + 32 random bytes in base64url. */
export function generateSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString('base64url')
}

function hmac(secret: string, timestamp: string | number, rawBody: RawBody): Buffer {
  const h = createHmac('sha256', secret)
  h.update(`${timestamp}.`)
  h.update(rawBody)
  return h.digest()
}

/** Lower-case hex HMAC-SHA256 of `{timestamp}.{rawBody}` keyed with `secret`. */
export function sign(secret: string, timestamp: string | number, rawBody: RawBody): string {
  return hmac(secret, timestamp, rawBody).toString('hex')
}

/** Current time in unix seconds. */
export function nowSeconds(): number {
  return Math.floor(Date.now() / 1000)
}

export type VerifyFailure = 'bad_signature' | 'stale_timestamp' | 'missing_header' | 'malformed_timestamp'
export type VerifyResult = {ok: true; secretIndex: number} | {ok: false; reason: VerifyFailure}

export interface VerifyInput {
  /** Every secret currently accepted (several during a rotation); tried in order. */
  secrets: readonly string[]
  timestamp: string | undefined | null
  signature: string | undefined | null
  rawBody: RawBody
  /** Largest accepted distance between `timestamp` and `now`, in seconds; undefined: no check. */
  toleranceSec?: number
  /** Unix seconds; default: the current time. */
  now?: number
  /** Epoch milliseconds (preferred over `now` when given). */
  nowMs?: number
}

/** Unix time as digits: up to 11 digits are seconds, 12 or 13 are milliseconds. */
const UNIX_RE = /^\d{1,13}$/
/** An ISO 8601 date-time in the extended format, with a UTC offset (`Z`, `+hh:mm`, `+hhmm` or `+hh`). */
const ISO_RE = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?(Z|[+-]\d{2}(?::?\d{2})?)$/i

/**
 * The instant (epoch ms) a webhook timestamp names, or undefined when it is none of the forms the
 * spec's conventions allow: unix seconds (up to 11 digits), unix milliseconds (12 or 13 digits), or
 * an ISO 8601 date-time with an offset that names a real day and time.
 */
export function timestampInstant(timestamp: string): number | undefined {
  if (UNIX_RE.test(timestamp)) return timestamp.length >= 12 ? Number(timestamp) : Number(timestamp) * 1000
  const m = ISO_RE.exec(timestamp)
  if (!m) return undefined
  const [, y, mo, d, h, mi, sec = '0', frac = '', zone] = m
  const [year, month, day, hour, minute, second] = [y, mo, d, h, mi, sec].map(Number)
  const date = new Date(Date.UTC(year, month - 1, day))
  if (date.getUTCFullYear() !== year || date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day || hour > 23 || minute > 59 || second > 59) return undefined
  let offsetMin = 0
  if (zone.toUpperCase() !== 'Z') {
    const digits = zone.slice(1).replace(':', '')
    const oh = Number(digits.slice(0, 2))
    const om = Number(digits.slice(2) || '0')
    if (oh > 23 || om > 59) return undefined
    offsetMin = (zone.startsWith('-') ? -1 : 1) * (oh * 60 + om)
  }
  const ms = Math.floor(Number(`0.${frac || '0'}`) * 1000)
  return Date.UTC(year, month - 1, day, hour, minute, second, ms) - offsetMin * 60_000
}
const SIGNATURE_RE = /^[0-9a-f]{64}$/
const ZERO = Buffer.alloc(32)

/**
 * Checks a signature in constant time against each secret. A signature that is not 64 lower-case
 * hex digits is compared against zeros (so it costs the same) and fails. An authentic signature on
 * a timestamp further than `toleranceSec` from `now` is `stale_timestamp`.
 */
export function verify(input: VerifyInput): VerifyResult {
  const {timestamp, signature} = input
  if (timestamp === undefined || timestamp === null || timestamp === '' || signature === undefined || signature === null || signature === '') {
    return {ok: false, reason: 'missing_header'}
  }
  const instant = timestampInstant(timestamp)
  if (instant === undefined) return {ok: false, reason: 'malformed_timestamp'}
  const wellFormed = SIGNATURE_RE.test(signature)
  const given = wellFormed ? Buffer.from(signature, 'hex') : ZERO
  let matched = -1
  for (let i = 0; i < input.secrets.length; i++) {
    const expected = hmac(input.secrets[i], timestamp, input.rawBody)
    // Both buffers are 32 bytes: timingSafeEqual never throws here.
    if (timingSafeEqual(expected, given) && wellFormed && matched === -1) matched = i
  }
  if (matched === -1) return {ok: false, reason: 'bad_signature'}
  if (input.toleranceSec !== undefined) {
    const nowMs = input.nowMs ?? (input.now !== undefined ? input.now * 1000 : Date.now())
    if (Math.abs(nowMs - instant) > input.toleranceSec * 1000) return {ok: false, reason: 'stale_timestamp'}
  }
  return {ok: true, secretIndex: matched}
}

/** Human text of a failure reason. */
export function describeFailure(reason: VerifyFailure, toleranceSec?: number): string {
  switch (reason) {
    case 'missing_header':
      return 'the X-Webhook-Signature or X-Webhook-Timestamp header is missing'
    case 'malformed_timestamp':
      return 'the timestamp is not unix seconds, unix milliseconds or an ISO 8601 date-time with an offset'
    case 'bad_signature':
      return 'the signature does not match the body with any of the given secrets'
    case 'stale_timestamp':
      return `the timestamp is more than ${toleranceSec ?? '?'} seconds away from now`
  }
}
