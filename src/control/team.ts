/**
 * The `team` commands' behaviour: set up a team store (`team init`), say where this run's controls
 * live and who it is there (`team status`), and the team's policies (`team policy set|show`).
 */
import type {CommandContext} from '../context/index.js'
import {applySetting, unsetSetting} from '../config/settings.js'
import {AuthError, UsageError} from '../errors.js'
import {formatMoney} from '../money.js'
import type {Column} from '../output/index.js'
import type {Limits} from '../config/index.js'
import {entityOf, openControlStore, teamBinding, type TeamBinding} from './index.js'
import {POLICY_FIELDS, POLICY_KEYS, type PolicyEntry, type PolicyKey} from './types.js'
import {describeStore, parseDatabaseUrl, redactDatabaseUrl} from './url.js'
import {databaseSecrets} from './url.js'
import {registerSecret} from '../api/redact.js'

export const STATUS_COLUMNS: Column[] = [
  {key: 'engine'},
  {key: 'store'},
  {key: 'bound_by', header: 'bound by'},
  {key: 'schema_version', header: 'schema'},
  {key: 'actor', header: 'you are'},
  {key: 'roles', get: (r) => (Array.isArray(r.roles) ? (r.roles as string[]).join(', ') : '')},
  {key: 'entity', get: (r) => (r.entity ? `${String(r.entity).slice(0, 16)}…` : '')},
]

export const INIT_COLUMNS: Column[] = [
  {key: 'store'},
  {key: 'schema_version', header: 'schema'},
  {key: 'applied', get: (r) => ((r.applied as number[]).length ? (r.applied as number[]).join(', ') : 'none (up to date)')},
  {key: 'roles', get: (r) => (r.roles as string[]).join(', ')},
  {key: 'entity', get: (r) => `${String(r.entity).slice(0, 16)}…`},
  {key: 'bound', get: (r) => (r.bound ? 'now' : 'already')},
]

/** How a policy value reads: amounts with their currency, ids, the approval policy. */
export function describePolicy(key: string, value: unknown): string {
  if (key === 'max-amount' || key === 'daily-max') return Object.entries(value as Record<string, number>).map(([c, v]) => formatMoney(v, c)).join(', ')
  if (key === 'allowed-destinations') return (value as string[]).join(', ')
  if (key === 'approval-policy') {
    const a = value as NonNullable<Limits['approval']>
    const over = Object.entries(a.threshold ?? {}).map(([c, v]) => formatMoney(v, c))
    return `${a.policy}${over.length ? ` over ${over.join(', ')}` : ' (every movement)'}`
  }
  return JSON.stringify(value)
}

export const POLICY_COLUMNS: Column[] = [
  {key: 'key'},
  {key: 'value', get: (r) => describePolicy(String(r.key), r.value)},
  {key: 'set_by', header: 'set by'},
  {key: 'set_at', header: 'set at'},
]

/** The team store this run names: --database-url, else the environment's or the profile's. */
function bindingFor(ctx: CommandContext, databaseUrl: string | undefined): TeamBinding {
  if (databaseUrl) {
    databaseSecrets(databaseUrl, registerSecret)
    return {address: parseDatabaseUrl(databaseUrl, '--database-url'), source: '--database-url'}
  }
  const bound = teamBinding(ctx)
  if (!bound) throw new UsageError('No team store named: give --database-url postgres://[USER@]HOST[:PORT]/DATABASE, set PAYOPS_TEAM_DATABASE_URL, or bind the profile (`payops profiles set NAME team URL`).')
  return bound
}

export async function runTeamInit(opts: {databaseUrl?: string}, ctx: CommandContext): Promise<void> {
  const binding = bindingFor(ctx, opts.databaseUrl)
  const entity = entityOf(ctx, '`team init`')
  const {initPgStore} = await import('./pg-init.js')
  const result = await initPgStore({address: binding.address, env: ctx.io.env, entity})
  const where = describeStore(binding.address)
  ctx.out.note([
    result.applied.length ? `The team store ${where} is at schema ${result.schema_version} (applied ${result.applied.join(', ')}).` : `The team store ${where} was already at schema ${result.schema_version}; nothing to apply.`,
    `It serves the entity of this key (fingerprint ${entity.slice(0, 16)}…). Grant members their roles as its administrator: GRANT payops_member TO login_role;`,
    ctx.profile.profileName && !ctx.profile.profile?.team_database_url
      ? `Bind a profile to it: payops profiles set ${ctx.profile.profileName} team ${redactDatabaseUrl(binding.address.url)?.replace(':***@', '@')}`
      : '',
  ].filter(Boolean))
  await ctx.out.resource({...result}, INIT_COLUMNS)
}

export async function runTeamStatus(ctx: CommandContext): Promise<void> {
  const binding = teamBinding(ctx)
  if (!binding) ctx.out.note('No team store: this run\'s controls are local to this machine (SQLite in the config dir). Bind one with `payops profiles set NAME team URL`.')
  const store = await openControlStore(ctx)
  try {
    const status = await store.status()
    await ctx.out.resource({...status, bound_by: binding?.source ?? 'local', policies: await store.policies()}, STATUS_COLUMNS)
  } finally {
    await store.close()
  }
}

function policyKey(key: string): PolicyKey {
  if (!(POLICY_KEYS as string[]).includes(key)) throw new UsageError(`Unknown policy "${key}" (use ${POLICY_KEYS.join(', ')}).`)
  return key as PolicyKey
}

/** The store of a team command that needs one (the policies of a local store are the profile's limits). */
async function teamStore(ctx: CommandContext, what: string) {
  if (!teamBinding(ctx)) throw new UsageError(`${what} works on a team store, and this run has none (PAYOPS_TEAM_DATABASE_URL, or \`profiles set NAME team URL\`). A profile's own limits are set with \`payops profiles set\`.`)
  return openControlStore(ctx)
}

/** A refusal of the store, saying who may change policies. */
function asAdminOnly(err: unknown): never {
  if (err instanceof AuthError) throw new AuthError(`${err.message.replace(/\.$/, '')}: team policies are set by a role granted payops_admin. Nothing was changed.`)
  throw err
}

export interface PolicySetOptions {
  key: string
  values: string[]
  add?: boolean
  threshold?: string
}

export async function runPolicySet(opts: PolicySetOptions, ctx: CommandContext): Promise<void> {
  const key = policyKey(opts.key)
  const store = await teamStore(ctx, '`team policy set`')
  try {
    // Parsed and checked exactly as `profiles set` parses a profile's limits, against the team's current ones.
    const applied = applySetting({limits: await store.limits()}, key, opts.values, {add: opts.add, threshold: opts.threshold})
    const entry = await store.setPolicy(key, applied.profile.limits?.[POLICY_FIELDS[key]] ?? null).catch(asAdminOnly)
    ctx.out.note(`Team policy ${applied.message.replace(/under this profile's key /, '')} Recorded as set by ${entry.set_by}.`)
    await ctx.out.list((await store.policies()).map((e) => ({...e})), POLICY_COLUMNS)
  } finally {
    await store.close()
  }
}

const TEAM = '\u0000team'

/** `profiles unset`'s refusals, said of the team store. */
function teamWords<T>(fn: () => T): T {
  try {
    return fn()
  } catch (err) {
    if (!(err instanceof UsageError)) throw err
    throw new UsageError(err.message.replaceAll(`Profile "${TEAM}"`, 'The team store').replaceAll(`profile "${TEAM}"`, 'the team store').replaceAll(`profiles unset ${TEAM}`, 'team policy unset'))
  }
}

/** Removes a policy, or some of its values, as `profiles unset` removes a limit (payops_admin only). */
export async function runPolicyUnset(opts: {key: string; values: string[]}, ctx: CommandContext): Promise<void> {
  const key = policyKey(opts.key)
  const store = await teamStore(ctx, '`team policy unset`')
  try {
    const limits = await store.limits()
    const applied = teamWords(() => unsetSetting({limits}, key, opts.values, TEAM))
    const entry = await store.setPolicy(key, applied.profile.limits?.[POLICY_FIELDS[key]] ?? null).catch(asAdminOnly)
    ctx.out.note(`Team policy ${applied.message} Recorded as removed by ${entry.set_by}.`)
    await ctx.out.list((await store.policies()).map((e) => ({...e})), POLICY_COLUMNS)
  } finally {
    await store.close()
  }
}

export async function runPolicyShow(ctx: CommandContext): Promise<void> {
  const store = await teamStore(ctx, '`team policy show`')
  try {
    const entries: PolicyEntry[] = await store.policies()
    if (entries.length === 0) ctx.out.note(`The team store ${store.location} has no policies yet (\`payops team policy set KEY VALUE...\`).`)
    await ctx.out.list(entries.map((e) => ({...e})), POLICY_COLUMNS)
  } finally {
    await store.close()
  }
}
