/**
 * The limits of the local webhook tools, in one place: the listener enforces them, `verify` reads
 * at most the same payload size, and the README documents them.
 */

/** Largest accepted body (the listener answers 413 past it; `verify` refuses a larger payload). */
export const MAX_BODY_BYTES = 1024 * 1024
/** Deepest accepted JSON nesting of an event, the envelope itself counting as level 1 (400 past it). */
export const MAX_EVENT_DEPTH = 64
/** A forward that has not answered within this is abandoned (the service's own delivery limit). */
export const FORWARD_TIMEOUT_MS = 10_000
/** Forwards in flight at once, by default (--forward-concurrency). */
export const DEFAULT_FORWARD_CONCURRENCY = 8
/** Verified events waiting for a forward slot, by default (--forward-queue); past it, 503. */
export const DEFAULT_FORWARD_QUEUE = 64
/**
 * Open connections at once, by default (--max-connections). At the limit the connection that has
 * waited longest without sending a complete request is closed to make room; when all are being
 * answered, the new one is closed at once.
 */
export const DEFAULT_MAX_CONNECTIONS = 256
/** Open connections from one remote address (the same rule at this limit; never more than --max-connections). */
export const DEFAULT_MAX_CONNECTIONS_PER_ADDRESS = 64
/** Requests one keep-alive connection may carry; the last is answered with `connection: close`. */
export const MAX_REQUESTS_PER_CONNECTION = 100
/** A request's headers must arrive within this. */
export const HEADERS_TIMEOUT_MS = 5_000
/** A whole request (headers and body) must arrive within this. */
export const REQUEST_TIMEOUT_MS = 10_000
/** An idle keep-alive connection is closed after this. */
export const KEEP_ALIVE_TIMEOUT_MS = 5_000
/** How often the server checks the two request timeouts above. */
export const TIMEOUT_CHECK_INTERVAL_MS = 1_000
/** Largest file read by --secret-file. */
export const MAX_SECRET_FILE_BYTES = 64 * 1024
