/** What a request asks and what its answer holds: the shapes the client and its readers share. */
import type * as z from 'zod/mini'
import type {QueryValue} from './url.js'

export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE'

export interface RequestOptions<S extends z.ZodMiniType | undefined = undefined> {
  method: HttpMethod
  path: string
  query?: Record<string, QueryValue>
  body?: unknown
  /** Raw body bytes, sent as they are (the `api --input` command). */
  rawBody?: string
  headers?: Record<string, string>
  idempotencyKey?: string
  /**
   * The spec promises that this request, repeated with its Idempotency-Key, cannot act twice (move
   * create, the only such request): it may be re-sent after a failure that may have reached the
   * server. Any other request that changes something is re-sent only after a failure that proves
   * it never left (connection refused, DNS); otherwise its caller finds out what happened.
   */
  idempotent?: boolean
  /** Schema of the `data` member of the envelope. */
  schema?: S
  /**
   * The spec shows no answer for this request: its status code decides what happened, so a 2XX
   * without `data` (or with no body) is success with `data` undefined, and a `data` object the
   * schema does not read is kept as it came (what the caller hoped for may be missing from it).
   */
  shapeNotShown?: boolean
  /** Parse the whole body with the schema instead of its `data` member. */
  bare?: boolean
  /** The caller records this request in the audit trail itself (the movement pipeline does). */
  skipAudit?: boolean
  /**
   * Sent by the movement pipeline (plan, guard, record): the only sender allowed to reach an
   * endpoint that moves money. Any other request whose resolved path reaches one is refused.
   */
  movement?: boolean
}

/** Per-call options the resource areas pass through. */
export interface SendOptions {
  skipAudit?: boolean
  movement?: boolean
}

/** One call's attempts in common (see ApiClient.prepare). */
export interface Call {
  opts: RequestOptions<z.ZodMiniType | undefined>
  url: string
  headers: Record<string, string>
  payload: string | undefined
  retryable: boolean
  deadline: number
  maxAttempts: number
  shown: number
  display: string
  sentAt: number
  /** An earlier attempt may have reached the server. */
  uncertain: boolean
}


export interface ApiResponse<T> {
  status: number
  data: T
  warning?: string | null
  requestId?: string
  body: unknown
  headers: Record<string, string | string[] | undefined>
  /** Attempts made (1 when the first answer was used). */
  attempts: number
  /**
   * An earlier attempt of this call failed in a way that leaves it unknown whether the server
   * acted on it (a network error, a timeout, or a retryable status such as a 500 after commit).
   */
  earlierAttemptUncertain: boolean
  /** When the first attempt was sent (local clock, ms). */
  sentAt: number
}

export type Out<S> = S extends z.ZodMiniType ? z.output<S> : unknown

/** The data of an answer the spec does not show: the resource when it came whole, else what came of it, or nothing. */
export type Unshown<T> = T | Record<string, unknown> | undefined
