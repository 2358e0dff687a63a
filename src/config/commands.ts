/**
 * `profiles add`, `list`, `remove`, `use`, `set`, `unset` and `show`: the profile file of the
 * config dir, read and changed under its lock, every profile shown with its key redacted.
 */
import type {CommandContext} from '../context/index.js'
import {redactKey, redactUrl, registerSecret} from '../api/redact.js'
import {databaseSecrets, describeStore, parseDatabaseUrl, redactDatabaseUrl} from '../control/url.js'
import {UsageError} from '../errors.js'
import {redactProxyUrl} from '../net.js'
import {formatLimits, PROFILE_COLUMNS} from '../output/columns.js'
import type {Column} from '../output/index.js'
import {keyMode, validateProfileName, type Profile, type ProfileStore} from './index.js'
import {applySetting, unsetSetting} from './settings.js'
import {validateBaseUrl} from './validate.js'
import {profileView} from './view.js'

export interface ProfilesAddOptions {
  /** The profile name as given (checked here). */
  name: string
  baseUrl?: string
  keyStdin: boolean
  apiKey?: string
  /** A team store's URL: a member's profile without a key. */
  team?: string
  use: boolean
  force: boolean
}

export async function runProfilesAdd(opts: ProfilesAddOptions, ctx: CommandContext): Promise<void> {
  const name = validateProfileName(opts.name)
  const store = ctx.profiles()
  const existing = store.replaceable(name, opts.force)
  if (opts.team) return addMember(opts, opts.team, name, existing, ctx)
  if (!opts.baseUrl) throw new UsageError('Give --base-url URL (or --team URL for a team member\'s profile without the key).')
  const baseUrl = validateBaseUrl(opts.baseUrl)
  const apiKey = await readKey(opts, ctx)
  if (keyMode(apiKey) === 'unknown') throw new UsageError(`That key does not start with live_ or test_ (${redactKey(apiKey)}); refusing to save it.`)
  // Under the profile file's lock: checked again (another run may have added it meanwhile), saved, made active.
  const makeActive = await store.change((file) => {
    const now = file.profiles[name]
    if (now && !opts.force) throw new UsageError(`Profile "${name}" already exists; use --force to replace it.`)
    file.profiles[name] = {...now, ...existing, api_key: apiKey, base_url: baseUrl, created_at: now?.created_at ?? existing?.created_at ?? new Date(ctx.clock.now()).toISOString()}
    const active = opts.use || !file.active
    if (active) file.active = name
    return active
  })
  ctx.out.note(`Saved profile "${name}" (${keyMode(apiKey).toUpperCase()} key ${redactKey(apiKey)})${makeActive ? ', now active' : ''}.`)
  await ctx.out.resource(profileView(name, store.require(name), makeActive), PROFILE_COLUMNS)
}

/** A team member's profile: the store's URL (its password registered as a secret), no key. */
async function addMember(opts: ProfilesAddOptions, team: string, name: string, existing: Profile | undefined, ctx: CommandContext): Promise<void> {
  const store = ctx.profiles()
  const url = team.trim()
  databaseSecrets(url, registerSecret)
  const where = describeStore(parseDatabaseUrl(url, '--team'))
  const baseUrl = opts.baseUrl ? validateBaseUrl(opts.baseUrl) : undefined
  const makeActive = await store.change((file) => {
    const now = file.profiles[name]
    if (now && !opts.force) throw new UsageError(`Profile "${name}" already exists; use --force to replace it.`)
    const {api_key: _key, base_url: _url, ...kept} = {...now, ...existing}
    file.profiles[name] = {...kept, team_database_url: url, ...(baseUrl ? {base_url: baseUrl} : {}), created_at: now?.created_at ?? existing?.created_at ?? new Date(ctx.clock.now()).toISOString()}
    const active = opts.use || !file.active
    if (active) file.active = name
    return active
  })
  ctx.out.note(`Saved profile "${name}": a team member's, without an API key, bound to the team store ${where}${makeActive ? ', now active' : ''}. Its money requests are recorded there and sent by no one until another member approves them and the worker carries them out; \`payops team status\` checks the login.`)
  await ctx.out.resource(profileView(name, store.require(name), makeActive), PROFILE_COLUMNS)
}

/** The key: from stdin (--key-stdin), the flag, or asked for on a terminal (hidden). */
async function readKey(opts: ProfilesAddOptions, ctx: CommandContext): Promise<string> {
  if (opts.keyStdin) {
    const key = (await ctx.readStdin()).toString('utf8').trim()
    if (!key) throw new UsageError('--key-stdin: stdin was empty.')
    return key
  }
  if (opts.apiKey) return opts.apiKey.trim()
  if (!ctx.prompter.interactive) throw new UsageError('No key given: pipe it with --key-stdin (or use --api-key).')
  const key = await ctx.prompter.password('API key')
  if (!key.trim()) throw new UsageError('No key entered.')
  return key.trim()
}

export async function runProfilesList(ctx: CommandContext): Promise<void> {
  const file = ctx.profiles().read()
  const rows = Object.entries(file.profiles).map(([name, p]) => profileView(name, p, name === file.active))
  await ctx.out.list(rows, PROFILE_COLUMNS)
}

export async function runProfilesRemove(opts: {name: string}, ctx: CommandContext): Promise<void> {
  await ctx.profiles().remove(opts.name)
  ctx.out.note(`Removed profile "${opts.name}".`)
}

export async function runProfilesUse(opts: {name: string}, ctx: CommandContext): Promise<void> {
  await ctx.profiles().use(opts.name)
  ctx.out.note(`Active profile: ${opts.name}`)
}

export interface ProfilesSetOptions {
  name: string
  key: string
  /** The words after the key. */
  values: string[]
  add?: boolean
  threshold?: string
}

export async function runProfilesSet(opts: ProfilesSetOptions, ctx: CommandContext): Promise<void> {
  await changeSetting(opts.name, ctx, (current) => applySetting(current, opts.key, opts.values, {add: opts.add, threshold: opts.threshold}))
}

export async function runProfilesUnset(opts: {name: string; key: string; values: string[]}, ctx: CommandContext): Promise<void> {
  await changeSetting(opts.name, ctx, (current) => unsetSetting(current, opts.key, opts.values, opts.name))
}

/** A setting changed on the profile as it is in the file under its lock (a concurrent change is kept), said and shown. */
async function changeSetting(name: string, ctx: CommandContext, change: (current: Profile) => {profile: Profile; message: string}): Promise<void> {
  const store: ProfileStore = ctx.profiles()
  store.require(name)
  let message = ''
  const next = await store.update(name, (current) => {
    const applied = change(current)
    message = applied.message
    return applied.profile
  })
  ctx.out.note(message)
  await ctx.out.resource(profileView(name, next, store.read().active === name), PROFILE_COLUMNS)
}

const SHOW_COLUMNS: Column[] = [
  {key: 'name'},
  {key: 'mode', get: (r) => String(r.mode).toUpperCase()},
  {key: 'api_key', header: 'key'},
  {key: 'api_key_source', header: 'key from'},
  {key: 'base_url', header: 'base url'},
  {key: 'base_url_source', header: 'base url from'},
  {key: 'proxy', get: (r) => (r.proxy === null || r.proxy === undefined ? '' : String(r.proxy))},
  {key: 'proxy_source', header: 'proxy from'},
  {key: 'ca_file', header: 'ca file', get: (r) => (r.ca_file === null || r.ca_file === undefined ? '' : String(r.ca_file))},
  {key: 'limits', get: (r) => formatLimits(r.limits as Parameters<typeof formatLimits>[0], {ids: true})},
  {key: 'team', header: 'team store', get: (r) => (r.team === null || r.team === undefined ? '' : String(r.team))},
]

/** `profiles show [NAME]`: a saved profile, or (without NAME) what this command line would use and where each part comes from. */
export async function runProfilesShow(opts: {name?: string}, ctx: CommandContext): Promise<void> {
  if (opts.name) {
    const store = ctx.profiles()
    const profile = store.require(opts.name)
    const view = profileView(opts.name, profile, store.read().active === opts.name)
    await ctx.out.resource(
      {...view, api_key_source: `profile "${opts.name}"`, base_url_source: `profile "${opts.name}"`, proxy_source: view.proxy ? `profile "${opts.name}"` : null},
      SHOW_COLUMNS,
    )
    return
  }
  await ctx.out.resource(inEffect(ctx), SHOW_COLUMNS)
}

/** The profile, key, base URL, proxy and team store resolved as an API command would, with where each came from. */
function inEffect(ctx: CommandContext): Record<string, unknown> {
  const c = ctx.profile
  const net = c.network
  const env = net.env
  const envProxy = ['https_proxy', 'HTTPS_PROXY', 'http_proxy', 'HTTP_PROXY'].find((k) => env[k]?.trim())
  return {
    name: c.profileName ?? null,
    profile_source: c.profileProvenance.detail,
    mode: c.mode,
    api_key: redactKey(c.apiKey),
    api_key_source: c.key.detail,
    base_url: c.baseUrl ? redactUrl(c.baseUrl) : null,
    base_url_source: c.baseUrlProvenance.detail,
    proxy: redactProxyUrl(net.proxy ?? (envProxy ? env[envProxy] : undefined)) ?? null,
    proxy_source: net.proxySource ?? envProxy ?? null,
    no_proxy: env.no_proxy?.trim() || env.NO_PROXY?.trim() || null,
    ca_file: net.caFile ?? null,
    limits: c.profile?.limits ?? null,
    team: redactDatabaseUrl(env.PAYOPS_TEAM_DATABASE_URL?.trim() || c.profile?.team_database_url) ?? null,
    team_source: env.PAYOPS_TEAM_DATABASE_URL?.trim() ? 'PAYOPS_TEAM_DATABASE_URL' : c.profile?.team_database_url ? `profile "${c.profileName}"` : null,
  }
}
