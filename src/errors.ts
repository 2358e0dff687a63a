/**
 * The error taxonomy of payops. Every failure a command can meet is one of these classes, and each
 * class carries the exit code DESIGN fixes. The API layer throws them, the base command renders
 * them as one line on stderr and exits with `exitCode`.
 */

export const ExitCode = {
  OK: 0,
  UNEXPECTED: 1,
  USAGE: 2,
  AUTH: 3,
  NOT_FOUND: 4,
  CONFLICT: 5,
  PARTIAL: 6,
  NETWORK: 7,
  REJECTED: 8,
  /** Checks found exceptions (`reconcile`, `watch --once`): the command ran, and what it checked needs attention. */
  EXCEPTIONS: 9,
  /** Ctrl-C: the operator stopped the command (the shell's convention, 128 + SIGINT). */
  INTERRUPTED: 130,
} as const
export type ExitCodeValue = (typeof ExitCode)[keyof typeof ExitCode]

export class PayopsError extends Error {
  readonly exitCode: ExitCodeValue
  constructor(message: string, exitCode: ExitCodeValue) {
    super(message)
    this.name = 'PayopsError'
    this.exitCode = exitCode
  }

  /** Fields for the `{"error": {...}}` object printed with `-o json`. */
  toJSON(): Record<string, unknown> {
    return {type: this.name, message: this.message, exit_code: this.exitCode}
  }
}

/** Bad flags, bad arguments, bad amounts, bad files: nothing was sent. */
export class UsageError extends PayopsError {
  override name = 'UsageError'
  constructor(message: string) {
    super(message, ExitCode.USAGE)
  }
}

/** Missing credentials, or a LIVE action that was not confirmed. Nothing was sent. */
export class AuthError extends PayopsError {
  override name = 'AuthError'
  constructor(message: string) {
    super(message, ExitCode.AUTH)
  }
}

/** The operator declined (or could not be asked) to confirm a LIVE or over-limit action. */
export class NotConfirmedError extends PayopsError {
  override name = 'NotConfirmedError'
  constructor(message: string) {
    super(message, ExitCode.AUTH)
  }
}

/** Checks found exceptions (`reconcile`, `watch --once`): the command ran, and what it checked needs attention. Exit 9. */
export class ExceptionsFound extends PayopsError {
  override name = 'ExceptionsFound'
  constructor(message: string) {
    super(message, ExitCode.EXCEPTIONS)
  }
}

/** Something local that a command needs is not there (a record this machine does not have). Exit 4. */
export class LocalNotFoundError extends PayopsError {
  override name = 'NotFoundError'
  constructor(message: string) {
    super(message, ExitCode.NOT_FOUND)
  }
}

/**
 * The audit trail's end does not match its head (records cut off, head or log deleted or changed):
 * writers refuse to continue it, so nothing is sent. Exit 1.
 */
export class AuditTrailError extends PayopsError {
  override name = 'AuditTrailError'
  constructor(message: string) {
    super(message, ExitCode.UNEXPECTED)
  }
}

/**
 * A money request was carried out but its outcome could not be written to the audit trail (the
 * disk full): the message says what happened and the command that records it. Exit 1.
 */
export class UnrecordedOutcomeError extends PayopsError {
  override name = 'UnrecordedOutcomeError'
  constructor(message: string) {
    super(message, ExitCode.UNEXPECTED)
  }
}

/** Some items of a bulk command failed, or the API answered 207. */
export class PartialError extends PayopsError {
  override name = 'PartialError'
  constructor(message: string) {
    super(message, ExitCode.PARTIAL)
  }
}

/** The server answered something the client cannot understand (bad JSON, missing fields). */
/** An answer past the documented size cap (MAX_RESPONSE_BYTES, after decoding): not read further, not retried. */
export class ResponseTooLargeError extends PayopsError {
  override name = 'ResponseTooLargeError'
  constructor(message: string) {
    super(message, ExitCode.UNEXPECTED)
  }
}

export class ResponseError extends PayopsError {
  override name = 'ResponseError'
  readonly status: number
  readonly requestId?: string
  constructor(message: string, status: number, requestId?: string) {
    super(message, ExitCode.UNEXPECTED)
    this.status = status
    this.requestId = requestId
  }

  override toJSON(): Record<string, unknown> {
    return {...super.toJSON(), status: this.status, request_id: this.requestId}
  }
}

/** Connection refused, reset, DNS failure or timeout, after every retry. */
export class NetworkError extends PayopsError {
  override name = 'NetworkError'
  readonly code?: string
  constructor(message: string, code?: string) {
    super(message, ExitCode.NETWORK)
    this.code = code
  }

  override toJSON(): Record<string, unknown> {
    return {...super.toJSON(), code: this.code}
  }
}

export function exitCodeForStatus(status: number): ExitCodeValue {
  if (status === 400 || status === 422) return ExitCode.REJECTED
  if (status === 401 || status === 403) return ExitCode.AUTH
  if (status === 404) return ExitCode.NOT_FOUND
  if (status === 409) return ExitCode.CONFLICT
  if (status === 207) return ExitCode.PARTIAL
  if (status === 408 || status === 429) return ExitCode.NETWORK
  return ExitCode.UNEXPECTED
}

/** An error status from the API, with what the body said about it. */
export class ApiError extends PayopsError {
  override name = 'ApiError'
  readonly status: number
  readonly errorCode?: string
  readonly requestId?: string
  readonly details?: unknown
  constructor(opts: {status: number; message: string; errorCode?: string; requestId?: string; details?: unknown}) {
    super(opts.message, exitCodeForStatus(opts.status))
    this.status = opts.status
    this.errorCode = opts.errorCode
    this.requestId = opts.requestId
    this.details = opts.details
  }

  /** `404 NOT_FOUND: Subaccount not found (request req_1a2b)` */
  describe(): string {
    const code = this.errorCode ? ` ${this.errorCode}` : ''
    const req = this.requestId ? ` (request ${this.requestId})` : ''
    return `${this.status}${code}: ${this.message}${req}`
  }

  override toJSON(): Record<string, unknown> {
    return {
      ...super.toJSON(),
      status: this.status,
      error_code: this.errorCode,
      request_id: this.requestId,
      ...(this.details === undefined ? {} : {details: this.details}),
    }
  }
}


/**
 * An Idempotency-Key that already names a different movement: the request was not carried out.
 * Exit 5, like the API's own 409.
 */
export class ConflictError extends PayopsError {
  override name = 'ConflictError'
  constructor(
    message: string,
    readonly id: string,
    readonly idempotencyKey: string | null,
  ) {
    super(message, ExitCode.CONFLICT)
  }

  override toJSON(): Record<string, unknown> {
    return {...super.toJSON(), kind: 'conflict', id: this.id, idempotency_key: this.idempotencyKey}
  }
}

/** The operator pressed Ctrl-C at a prompt or during a wait: nothing more was done. Exit 130. */
export class InterruptedError extends PayopsError {
  override name = 'InterruptedError'
  constructor(message: string) {
    super(message, ExitCode.INTERRUPTED)
  }
}

/**
 * A money request whose answer was lost (a 5xx, a reset or a timeout after it may have reached the
 * server) and that payops could not settle by looking: whether it took effect is unknown. Exit 7;
 * `settle` is the exact command that finds out.
 */
export class OutcomeUnknownError extends PayopsError {
  override name = 'OutcomeUnknownError'
  readonly status?: number
  readonly errorCode?: string
  readonly requestId?: string
  readonly code?: string
  constructor(
    message: string,
    readonly settle: string,
    cause: {status?: number; errorCode?: string; requestId?: string; code?: string} = {},
  ) {
    super(message, ExitCode.NETWORK)
    this.status = cause.status
    this.errorCode = cause.errorCode
    this.requestId = cause.requestId
    this.code = cause.code
  }

  override toJSON(): Record<string, unknown> {
    return {...super.toJSON(), kind: 'unknown', settle: this.settle, status: this.status, error_code: this.errorCode, request_id: this.requestId, code: this.code}
  }
}
