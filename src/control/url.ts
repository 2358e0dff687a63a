/**
 * The team store's address: a PostgreSQL URL (`postgres://[USER[:PASSWORD]@]HOST[:PORT]/DATABASE`).
 * A password in it is a secret: every message names the store as HOST:PORT/DATABASE, and a URL is
 * only ever shown with its password replaced by `***`. Without a password in the URL, libpq's
 * conventions supply it (PGPASSWORD, then the password file: src/control/pgpass.ts).
 */
import {UsageError} from '../errors.js'

export interface DatabaseAddress {
  /** The URL as given (it may hold a password: never print it). */
  url: string
  host: string
  port: number
  database: string
  user?: string
  password?: string
  /** Query parameters pg understands (sslmode, …), passed on as they are. */
  search: string
}

const SCHEMES = new Set(['postgres:', 'postgresql:'])

/** `postgres://ana:***@db.example:5432/payops`: the URL with its password hidden (undefined stays undefined). */
export function redactDatabaseUrl(value: string | undefined | null): string | undefined {
  if (!value) return undefined
  try {
    const url = new URL(value)
    if (url.password) url.password = '***'
    return url.href
  } catch {
    // Not a URL: whatever stands before an @ may be a credential.
    return value.includes('@') ? `…@${value.slice(value.lastIndexOf('@') + 1)}` : value
  }
}

/** The store as every message names it: HOST:PORT/DATABASE. */
export function describeStore(a: Pick<DatabaseAddress, 'host' | 'port' | 'database'>): string {
  const host = a.host.includes(':') ? `[${a.host}]` : a.host
  return `${host}:${a.port}/${a.database}`
}

/** A team store URL checked: postgres:// or postgresql://, a host and a database. A refusal never repeats the password. */
export function parseDatabaseUrl(value: string, what = 'The team store URL'): DatabaseAddress {
  const v = value.trim()
  let url: URL
  try {
    url = new URL(v)
  } catch {
    throw new UsageError(`${what} "${redactDatabaseUrl(v)}" is not a URL: give postgres://[USER@]HOST[:PORT]/DATABASE.`)
  }
  if (!SCHEMES.has(url.protocol)) {
    throw new UsageError(`${what} "${redactDatabaseUrl(v)}" uses ${url.protocol.replace(/:$/, '')}://: the team store is PostgreSQL (postgres://[USER@]HOST[:PORT]/DATABASE).`)
  }
  const database = decodeURIComponent(url.pathname.replace(/^\//, ''))
  if (!url.hostname) throw new UsageError(`${what} "${redactDatabaseUrl(v)}" names no host.`)
  if (!database || database.includes('/')) throw new UsageError(`${what} "${redactDatabaseUrl(v)}" names no database: give postgres://[USER@]HOST[:PORT]/DATABASE.`)
  return {
    url: v,
    host: url.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: url.port ? Number(url.port) : 5432,
    database,
    user: url.username ? decodeURIComponent(url.username) : undefined,
    password: url.password ? decodeURIComponent(url.password) : undefined,
    search: url.search,
  }
}

/** The secrets of a store URL (its password, raw and decoded, and the URL itself), for `register`. */
export function databaseSecrets(value: string | undefined, register: (secret: string) => void): void {
  if (!value) return
  try {
    const url = new URL(value.trim())
    if (!url.password) return
    for (const s of [value.trim(), url.href, url.password, decodeURIComponent(url.password)]) register(s)
  } catch {
    // Not a URL: nothing to find in it.
  }
}
