/**
 * The team store's tests: each file (or test) gets a database of its own on the run's one
 * PostgreSQL server (test/support/postgres-global.ts), and login roles of its own (roles are the
 * server's: their names carry a random suffix). `drop()` removes both. Every password made here is
 * a known secret: a run whose output shows one fails.
 */
import {randomBytes} from 'node:crypto'
import pg from 'pg'
import {inject} from 'vitest'
import {knownSecrets} from './cli.js'

export interface TestDatabase {
  name: string
  host: string
  port: number
  /** The URL of a role (default: the server's superuser, with its password). */
  url(user?: string, password?: string): string
  /** A login role with a password, granted these roles; its name carries the database's suffix. */
  login(name: string, grants?: string[]): Promise<{user: string; password: string; url: string}>
  /** Runs SQL as the server's superuser in this database. */
  query<R extends Record<string, unknown> = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<R[]>
  /** Runs SQL as a role (by its URL) in this database: what a member could do with psql. */
  queryAs<R extends Record<string, unknown> = Record<string, unknown>>(url: string, sql: string, params?: unknown[]): Promise<R[]>
  drop(): Promise<void>
}

async function withClient<T>(url: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({connectionString: url})
  c.on('error', () => undefined)
  await c.connect()
  try {
    return await fn(c)
  } finally {
    await c.end()
  }
}

export async function freshDatabase(): Promise<TestDatabase> {
  const s = inject('postgres')
  knownSecrets.add(s.password)
  const suffix = randomBytes(5).toString('hex')
  const name = `payops_t_${suffix}`
  const url = (user = s.user, password = s.password) => `postgres://${encodeURIComponent(user)}${password ? `:${encodeURIComponent(password)}` : ''}@${s.host}:${s.port}/${name}`
  const serverUrl = `postgres://${s.user}:${encodeURIComponent(s.password)}@${s.host}:${s.port}/postgres`
  await withClient(serverUrl, (c) => c.query(`CREATE DATABASE ${name}`))
  const roles: string[] = []
  return {
    name,
    host: s.host,
    port: s.port,
    url,
    async login(role, grants = []) {
      const user = `${role}_${suffix}`
      const password = randomBytes(12).toString('base64url')
      knownSecrets.add(password)
      roles.push(user)
      await withClient(serverUrl, async (c) => {
        await c.query(`CREATE ROLE ${user} LOGIN PASSWORD '${password}'`)
        for (const g of grants) await c.query(`GRANT ${g} TO ${user}`)
      })
      return {user, password, url: url(user, password)}
    },
    query: (sql, params = []) => withClient(url(), async (c) => (await c.query(sql, params)).rows),
    queryAs: (as, sql, params = []) => withClient(as, async (c) => (await c.query(sql, params)).rows),
    async drop() {
      await withClient(serverUrl, async (c) => {
        await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
        for (const r of roles) await c.query(`DROP ROLE IF EXISTS ${r}`)
      })
    },
  }
}
