/**
 * `team init`'s work on PostgreSQL: the schema and roles created or brought up to date under a
 * session advisory lock, and the store bound to its entity.
 */
import {UsageError} from '../errors.js'
import {storeError} from './errors.js'
import {BOOTSTRAP, createRoleSql, MIGRATION_LOCK, PG_MIGRATIONS, TEAM_ROLES} from './migrations.js'
import type {PgConnectOptions} from './postgres.js'
import {describeStore} from './url.js'

const num = (v: unknown) => (v === null || v === undefined ? 0 : Number(v))

export interface InitResult {
  store: string
  schema_version: number
  /** Versions this run applied (none when the store was up to date). */
  applied: number[]
  roles: string[]
  entity: string
  /** Whether this run bound the store to the entity (false: it already was). */
  bound: boolean
}

/**
 * Creates or brings up to date the team store's schema and roles, and binds it to `entity`, under
 * a session advisory lock: two inits at once apply each version once, the second finding the
 * first's work done. Refuses a store bound to another entity.
 */
export async function initPgStore(opts: PgConnectOptions & {entity: string}): Promise<InitResult> {
  const {connectPg} = await import('./postgres.js')
  const client = await connectPg(opts)
  const where = describeStore(opts.address)
  const run = async (sql: string, params: unknown[] = []) => {
    try {
      return (await client.query(sql, params)).rows as Array<Record<string, unknown>>
    } catch (err) {
      throw storeError(err, where)
    }
  }
  try {
    await run('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK])
    for (const role of TEAM_ROLES) await run(createRoleSql(role))
    await run(BOOTSTRAP)
    const have = num((await run('SELECT coalesce(max(version), 0) AS v FROM payops.schema_versions'))[0].v)
    if (have > PG_MIGRATIONS.length) throw new UsageError(`The team store ${where} was set up by a newer payops (schema ${have}; this one knows ${PG_MIGRATIONS.length}). Upgrade payops.`)
    const applied: number[] = []
    for (let v = have + 1; v <= PG_MIGRATIONS.length; v++) {
      await run('BEGIN')
      try {
        await run(PG_MIGRATIONS[v - 1])
        await run('INSERT INTO payops.schema_versions (version) VALUES ($1)', [v])
        await run('COMMIT')
      } catch (err) {
        await client.query('ROLLBACK').catch(() => undefined)
        throw err
      }
      applied.push(v)
    }
    const inserted = await run('INSERT INTO payops.binding (entity) VALUES ($1) ON CONFLICT DO NOTHING RETURNING entity', [opts.entity])
    const bound = String((await run('SELECT entity FROM payops.binding'))[0].entity)
    if (bound !== opts.entity) throw new UsageError(`The team store ${where} already serves another entity (fingerprint ${bound.slice(0, 12)}…): a store serves one entity; this profile's key is another's. Nothing was bound.`)
    return {store: where, schema_version: PG_MIGRATIONS.length, applied, roles: [...TEAM_ROLES], entity: opts.entity, bound: inserted.length > 0}
  } finally {
    await client.query('SELECT pg_advisory_unlock_all()').catch(() => undefined)
    await client.end().catch(() => undefined)
  }
}
