/**
 * Signing a delivery, as the spec's Events section defines it: `X-Webhook-Signature` is the
 * lower-case hex HMAC SHA-256 of the string `{timestamp}.{payload}` keyed with the endpoint's
 * signing secret, and `X-Webhook-Timestamp` carries the timestamp used in that string. The payload
 * is the raw body exactly as sent.
 *
 * The emulator's own signer: a client verifies deliveries with its own verifier, so the two meet
 * only in the bytes on the wire.
 */
import {createHmac, randomBytes} from 'node:crypto'

export const SIGNATURE_HEADER = 'x-webhook-signature'
export const TIMESTAMP_HEADER = 'x-webhook-timestamp'

/** A new signing secret: `whsec_` and 32 random bytes in base64url (the key is the whole string, as UTF-8). */
export function generateSecret(): string {
  return `whsec_${randomBytes(32).toString('base64url')}`
}

/** Lower-case hex HMAC SHA-256 of `{timestamp}.{payload}` keyed with `secret`. */
export function sign(secret: string, timestamp: string | number, payload: string | Uint8Array): string {
  return createHmac('sha256', secret).update(`${timestamp}.`).update(payload).digest('hex')
}
