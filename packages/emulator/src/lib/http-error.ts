/**
 * The error a handler (or a store operation) throws to answer with an error body: its status,
 * `error_code` and message. The server (http.ts) writes it as `{"error_code", "message",
 * "request_id"}` (and `errors: [{message}]` when it lists several problems, as a refused
 * scenario does: one line each); anything else thrown becomes a 500 INTERNAL_ERROR.
 */
export class HttpError extends Error {
  readonly status: number
  readonly code: string
  readonly headers?: Record<string, string>
  /** Each problem of a refusal that has several, answered as `errors: [{message}]` after the summary `message`. */
  problems?: readonly string[]
  constructor(status: number, code: string, message: string, headers?: Record<string, string>) {
    super(message)
    this.name = 'HttpError'
    this.status = status
    this.code = code
    this.headers = headers
  }
}

export const validationError = (message: string, problems?: readonly string[]) => Object.assign(new HttpError(400, 'VALIDATION_ERROR', message), {problems})
export const notFound = (message: string, code = 'NOT_FOUND') => new HttpError(404, code, message)
