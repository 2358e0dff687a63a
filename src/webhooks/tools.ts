/** The offline webhook tools: verify a signature, and send one signed sample event. */
import {loadUndici} from '../api/transport.js'
import {ExitCode, NetworkError, PayopsError, exitCodeForStatus, type ExitCodeValue} from '../errors.js'
import {redact} from '../api/redact.js'
import {oneLine} from '../api/client.js'
import {SIGNATURE_HEADER, TIMESTAMP_HEADER, describeFailure, sign, type VerifyFailure} from './signature.js'
import {serializeEvent, type WebhookEvent} from './samples.js'

/** A signature that does not verify (exit 1, or 2 when the input itself is malformed). */
export class InvalidSignatureError extends PayopsError {
  readonly reason: VerifyFailure
  constructor(reason: VerifyFailure, toleranceSec?: number) {
    const code: ExitCodeValue = reason === 'bad_signature' || reason === 'stale_timestamp' ? ExitCode.UNEXPECTED : ExitCode.USAGE
    super(`invalid: ${reason}: ${describeFailure(reason, toleranceSec)}.`, code)
    this.reason = reason
  }

  override toJSON(): Record<string, unknown> {
    return {...super.toJSON(), valid: false, reason: this.reason}
  }
}

/** The receiver answered, but not 2XX: the exit code follows the HTTP status (400 -> 8, 401 -> 3, …). */
export class ReceiverError extends PayopsError {
  readonly status: number
  constructor(status: number, message: string) {
    super(message, exitCodeForStatus(status))
    this.status = status
  }

  override toJSON(): Record<string, unknown> {
    return {...super.toJSON(), status: this.status}
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
export async function sendSignedEvent(opts: {url: string; secret: string; event: WebhookEvent; timestamp: number; timeoutMs: number}): Promise<SendResult> {
  const {request} = await loadUndici()
  const body = serializeEvent(opts.event)
  const ts = String(opts.timestamp)
  const started = Date.now()
  try {
    const res = await request(opts.url, {
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
      duration_ms: Date.now() - started,
      timestamp: opts.timestamp,
      response: redact(oneLine(text, 200)),
    }
  } catch (err) {
    const e = err as {code?: string; name?: string; message?: string}
    const timedOut = /Timeout|Abort/.test(e.name ?? '') || /TIMEOUT/.test(e.code ?? '')
    const code = e.code ?? e.name ?? 'ERROR'
    throw new NetworkError(timedOut ? `${opts.url} did not answer within ${Math.round(opts.timeoutMs / 1000)} s.` : `Could not reach ${opts.url} (${code}).`, code)
  }
}
