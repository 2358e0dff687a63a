/**
 * The team store's smoke tests (real processes): a PostgreSQL server of the file's own (the same
 * embedded server the in-process tests use, started in beforeAll and stopped in afterAll), SQL as
 * its superuser, login roles with random passwords (known secrets: a run whose output shows one
 * fails), and a wait for a condition.
 */
import {randomBytes} from 'node:crypto'
import pg from 'pg'
import {afterAll, beforeAll} from 'vitest'
import setupPostgres, {type PostgresServer} from './postgres-global.js'
import {knownSecrets} from './cli.js'

export interface SmokePostgres {
  urlOf(user: string, password: string, db: string): string
  /** SQL as the server's superuser in database `db`. */
  sql(db: string, text: string, params?: unknown[]): Promise<Array<Record<string, unknown>>>
  /** A login role granted `grant` in `db`; its URL. */
  login(name: string, db: string, grant: string): Promise<string>
  /** The superuser's URL of `db`. */
  adminUrl(db: string): string
}

/** Registers the server's start and stop with the file's hooks. */
export function smokePostgres(): SmokePostgres {
  let server: PostgresServer | undefined
  let stop: (() => Promise<void>) | undefined
  beforeAll(async () => {
    stop = await setupPostgres({provide: (_key: string, value: PostgresServer) => void (server = value)} as never)
    knownSecrets.add(server!.password)
  }, 120_000)
  afterAll(async () => {
    await stop?.()
  })
  const urlOf = (user: string, password: string, db: string) => `postgres://${user}:${encodeURIComponent(password)}@${server!.host}:${server!.port}/${db}`
  const sql = async (db: string, text: string, params: unknown[] = []) => {
    const c = new pg.Client({connectionString: urlOf(server!.user, server!.password, db)})
    await c.connect()
    try {
      return (await c.query(text, params)).rows as Array<Record<string, unknown>>
    } finally {
      await c.end()
    }
  }
  return {
    urlOf,
    sql,
    adminUrl: (db) => urlOf(server!.user, server!.password, db),
    async login(name, db, grant) {
      const password = randomBytes(12).toString('base64url')
      knownSecrets.add(password)
      await sql(db, `CREATE ROLE ${name} LOGIN PASSWORD '${password}'; GRANT ${grant} TO ${name}`)
      return urlOf(name, password, db)
    },
  }
}

/** Resolves once `check` holds (every 50 ms, at most 20 s). */
export async function until(what: string, check: () => Promise<boolean> | boolean): Promise<void> {
  for (let i = 0; i < 400; i++) {
    if (await check()) return
    await new Promise((r) => setTimeout(r, 50))
  }
  throw new Error(`timed out waiting for ${what}`)
}
