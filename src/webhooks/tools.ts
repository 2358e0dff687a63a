/** The offline webhook tools: verify a signature, and send one signed sample event. */
import {loadUndici} from '../interop.js'
import {runDispatcher} from '../net.js'
import {ApiError, ExitCode, NetworkError, PayopsError, UsageError} from '../errors.js'
import {redact} from '../api/redact.js'
import {oneLine} from '../text.js'
import {SIGNATURE_HEADER, TIMESTAMP_HEADER, describeFailure, sign, type VerifyFailure} from './signature.js'
import {serializeEvent, type WebhookEvent} from './samples.js'

/** A well-formed signature that does not verify: a bad signature or a stale timestamp (exit 1). */
export class InvalidSignatureError extends PayopsError {
  override name = 'InvalidSignatureError'
  readonly reason: VerifyFailure
  constructor(reason: 'bad_signature' | 'stale_timestamp', toleranceSec?: number) {
    super(`invalid: ${reason}: ${describeFailure(reason, toleranceSec)}.`, ExitCode.UNEXPECTED)
    this.reason = reason
  }

  override toJSON(): Record<string, unknown> {
    return {...super.toJSON(), valid: false, reason: this.reason}
  }
}

/** Signature input that cannot be checked at all (missing, or a timestamp that is not one): a usage error. */
export class MalformedSignatureError extends UsageError {
  override name = 'MalformedSignatureError'
  readonly reason: VerifyFailure
  constructor(reason: 'missing_header' | 'malformed_timestamp') {
    super(`invalid: ${reason}: ${describeFailure(reason)}.`)
    this.reason = reason
  }

  override toJSON(): Record<string, unknown> {
    return {...super.toJSON(), valid: false, reason: this.reason}
  }
}

/** The error of a failed verification; its class carries the exit code. */
export function verificationError(reason: VerifyFailure, toleranceSec?: number): PayopsError {
  return reason === 'bad_signature' || reason === 'stale_timestamp' ? new InvalidSignatureError(reason, toleranceSec) : new MalformedSignatureError(reason)
}

/**
 * The receiver answered, but not 2XX. An error status from a server like the API's own, so the exit
 * code follows the status the same way (400 -> 8, 401 -> 3, 404 -> 4, 409 -> 5, others 1).
 */
export class ReceiverError extends ApiError {
  override name = 'ReceiverError'
  constructor(status: number, message: string) {
    super({status, message})
  }

  /** The message already names the status. */
  override describe(): string {
    return this.message
  }
}

export interface SendResult {
  id: string
  type: string
  url: string
  status: number
  ok: boolean
  duration_ms: number
  timestamp: number
  response: string
}

/** Signs `event` with `secret` and POSTs it to `url` exactly as the service would. */
export async function sendSignedEvent(opts: {url: string; secret: string; event: WebhookEvent; timestamp: number; timeoutMs: number; now?: () => number}): Promise<SendResult> {
  const now = opts.now ?? Date.now
  const undici = await loadUndici()
  const dispatcher = await runDispatcher(undici, opts.url)
  const body = serializeEvent(opts.event)
  const ts = String(opts.timestamp)
  const started = now()
  try {
    const res = await undici.request(opts.url, {
      dispatcher,
      method: 'POST',
      headers: {'content-type': 'application/json', 'user-agent': 'payops-webhooks-trigger', [SIGNATURE_HEADER]: sign(opts.secret, ts, body), [TIMESTAMP_HEADER]: ts},
      body,
      signal: AbortSignal.timeout(opts.timeoutMs),
      headersTimeout: opts.timeoutMs,
      bodyTimeout: opts.timeoutMs,
    })
    const text = await res.body.text().catch(() => '')
    return {
      id: opts.event.id,
      type: opts.event.type,
      url: opts.url,
      status: res.statusCode,
      ok: res.statusCode >= 200 && res.statusCode < 300,
      duration_ms: now() - started,
      timestamp: opts.timestamp,
      response: redact(oneLine(text, 200)),
    }
  } catch (err) {
    const e = err as {code?: string; name?: string; message?: string}
    const timedOut = /Timeout|Abort/.test(e.name ?? '') || /TIMEOUT/.test(e.code ?? '')
    const code = e.code ?? e.name ?? 'ERROR'
    throw new NetworkError(timedOut ? `${opts.url} did not answer within ${Math.round(opts.timeoutMs / 1000)} s.` : `Could not reach ${opts.url} (${code}).`, code)
  } finally {
    await dispatcher.close().catch(() => undefined)
  }
}
