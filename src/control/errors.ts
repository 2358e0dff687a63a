/**
 * What PostgreSQL's and pg's errors mean to an operator. Every message names the store as
 * HOST:PORT/DATABASE and never holds its password. A store that cannot be reached is exit 7 (the
 * controls that live there are unavailable: commands that need them refuse).
 */
import {AuthError, ExitCode, LocalNotFoundError, PayopsError, UsageError} from '../errors.js'

/** The controls' store is unavailable (not reachable, not answering, not there). Exit 7. */
export class StoreUnavailableError extends PayopsError {
  override name = 'StoreUnavailableError'
  constructor(message: string) {
    super(message, ExitCode.NETWORK)
  }
}

/** A request the store's rules refused (a cap, a decided approval). Exit 5. */
export class StoreConflictError extends PayopsError {
  override name = 'StoreConflictError'
  constructor(message: string) {
    super(message, ExitCode.CONFLICT)
  }
}

interface PgLikeError {
  code?: string
  message?: string
  hint?: string
}

const NETWORK_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'ETIMEDOUT', 'ECONNRESET', 'EAI_AGAIN', 'EPIPE'])

/** A serialization failure or a deadlock: the transaction may be run again. */
export function retryable(err: unknown): boolean {
  const code = (err as PgLikeError)?.code
  return code === '40001' || code === '40P01'
}

/** The same error as a PayopsError with a message an operator can act on. */
export function storeError(err: unknown, store: string): PayopsError {
  if (err instanceof PayopsError) return err
  const e = (err ?? {}) as PgLikeError
  const code = e.code ?? ''
  const message = (e.message ?? String(err)).split('\n')[0]
  const unavailable = (why: string) =>
    new StoreUnavailableError(`The team store ${store} cannot be reached (${why}): the controls kept there are unavailable, so nothing that needs them was done.`)
  if (NETWORK_CODES.has(code)) return unavailable(code)
  if (/timeout|Connection terminated|connect(ion)? (ended|closed)|connection error and is not queryable/i.test(message) && !code) return unavailable(message)
  if (code.startsWith('08') || code === '57P01' || code === '57P02' || code === '57P03') return unavailable(`${code}: ${message}`)
  if (code === '3D000') return unavailable(`the database does not exist: ${message}`)
  if (code === '28P01' || code === '28000') return new AuthError(`The team store ${store} refused the login: ${message}. The password comes from the URL, PGPASSWORD or the password file (~/.pgpass).`)
  if (/password must be a string|password authentication/i.test(message)) {
    return new AuthError(`The team store ${store} asks for a password and none was given: put it in PGPASSWORD or the password file (~/.pgpass), or in the URL.`)
  }
  if (code === '42501') return new AuthError(`The team store ${store} refused: ${message}.`)
  if (code === '3F000' || code === '42P01' || code === '42883') return new UsageError(`The team store ${store} has no payops schema (or an older one): run \`payops team init --database-url URL\` as its administrator.`)
  if (e.hint === 'payops:entity') return new UsageError(`The team store ${store} serves another entity: this profile's key is not the key it was set up with. Nothing was recorded.`)
  if (e.hint === 'payops:not-found') return new LocalNotFoundError(`${message} in the team store ${store}.`)
  if (e.hint === 'payops:conflict' || e.hint === 'payops:limit') return new StoreConflictError(`The team store ${store} refused: ${message}.`)
  return new PayopsError(`The team store ${store} failed: ${code ? `${code} ` : ''}${message}`, ExitCode.UNEXPECTED)
}
