/**
 * The control store a command uses: the team store (PostgreSQL) when PAYOPS_TEAM_DATABASE_URL or
 * the profile's `team` setting names one, else SQLite in the config dir. Opening a team store
 * checks its schema and that it serves the entity of the key in use (by fingerprint).
 */
import {createHash} from 'node:crypto'
import {registerSecret} from '../api/redact.js'
import {currentOperator, describeOperator} from '../config/identity.js'
import type {CommandContext} from '../context/index.js'
import {UsageError} from '../errors.js'
import {SqliteControlStore} from './sqlite.js'
import type {ControlStore} from './types.js'
import {databaseSecrets, parseDatabaseUrl, type DatabaseAddress} from './url.js'

export type {ControlStore, Decision, DecisionView, IntentInput, IntentRecord, PolicyEntry, StoreStatus} from './types.js'

/** The parts of the command context the store needs. */
export type StoreContext = Pick<CommandContext, 'configDir' | 'clock' | 'profile'> & {io: {env: NodeJS.ProcessEnv}}

/** The entity a key stands for, as the store knows it: SHA-256 of the key, in hex (never the key). */
export function keyFingerprint(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex')
}

export interface TeamBinding {
  address: DatabaseAddress
  /** `PAYOPS_TEAM_DATABASE_URL`, `profile "prod"`, `--database-url`. */
  source: string
}

/** The team store this run is bound to (the environment over the profile), or undefined. Its password is registered as a secret. */
export function teamBinding(ctx: StoreContext): TeamBinding | undefined {
  const env = ctx.io.env.PAYOPS_TEAM_DATABASE_URL?.trim()
  const fromProfile = ctx.profile.profile?.team_database_url
  for (const v of [env, fromProfile]) databaseSecrets(v, registerSecret)
  if (env) return {address: parseDatabaseUrl(env, 'PAYOPS_TEAM_DATABASE_URL'), source: 'PAYOPS_TEAM_DATABASE_URL'}
  if (fromProfile) return {address: parseDatabaseUrl(fromProfile, `The team store of profile "${ctx.profile.profileName}"`), source: `profile "${ctx.profile.profileName}"`}
  return undefined
}

/** The fingerprint of the key in use; a team store serves one entity, so a key is needed. */
export function entityOf(ctx: StoreContext, what: string): string {
  const key = ctx.profile.apiKey
  if (!key) throw new UsageError(`${what} needs the entity's API key (a profile's, --api-key or PAYOPS_API_KEY): the team store serves the entity of that key.`)
  return keyFingerprint(key)
}

/** Opens the store this run's controls live in. */
export async function openControlStore(ctx: StoreContext): Promise<ControlStore> {
  const team = teamBinding(ctx)
  if (team) {
    const {PgControlStore} = await import('./postgres.js')
    // A member without the key (`profiles add NAME --team URL`) works for the entity the store serves.
    return PgControlStore.open({address: team.address, env: ctx.io.env, entity: ctx.profile.apiKey ? entityOf(ctx, 'The team store') : null})
  }
  return SqliteControlStore.open({
    configDir: ctx.configDir,
    entity: ctx.profile.apiKey ? keyFingerprint(ctx.profile.apiKey) : 'none',
    actor: describeOperator(currentOperator(ctx.profile.profile?.operator_name)),
    now: () => ctx.clock.now(),
  })
}
