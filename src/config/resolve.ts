/**
 * Resolves which profile, key and base URL a command uses, and remembers where each came from
 * (flag > environment > profile), so provenance can be shown and a stray PAYOPS_API_KEY noticed.
 */
import {UsageError} from '../errors.js'
import {proxySecrets, validateProxyUrl, type NetworkSettings} from '../net.js'
import {registerSecret} from '../api/redact.js'
import {keyMode, type Limits, type Profile, type ProfileFile} from './index.js'

export type Source = 'flag' | 'env' | 'profile' | 'none'

export interface Provenance {
  source: Source
  /** `--api-key`, `PAYOPS_API_KEY`, `profile "prod"` */
  detail: string
}

export interface ResolvedContext {
  profileName?: string
  profileProvenance: Provenance
  profile?: Profile
  apiKey?: string
  key: Provenance
  baseUrl?: string
  baseUrlProvenance: Provenance
  mode: 'live' | 'test' | 'unknown'
  /** The environment's key differs from the key stored in the selected profile. */
  envKeyOverridesProfile: boolean
  /** Every profile whose limits bind the key in use (see {@link limitSetsFor}). */
  limitSets: LimitSet[]
  /** The proxy (--proxy > profile > environment) and CAs every request of the run uses. */
  network: NetworkSettings
}

/** One profile's limits, named for messages. */
export interface LimitSet {
  profile: string
  limits: Limits
}

const hasAny = (l: Limits | undefined): l is Limits => Boolean(l && (Object.keys(l.max_amount ?? {}).length || Object.keys(l.daily_max ?? {}).length || l.allowed_destinations?.length || l.approval))

/**
 * Limits bind to the key that moves the money, not to a profile's name: the selected profile's
 * limits, and those of every profile that stores the key in use (a key from the environment or a
 * flag included). A LIVE key that no profile stores is held to the limits of every LIVE profile
 * on this machine: an operator who limited LIVE money here is not escaped by a key handed in
 * another way. Each set is checked on its own, so the strictest of them decides.
 */
export function limitSetsFor(file: ProfileFile, profileName: string | undefined, apiKey: string | undefined): LimitSet[] {
  const out: LimitSet[] = []
  const add = (name: string, p: Profile | undefined) => {
    if (hasAny(p?.limits) && !out.some((s) => s.profile === name)) out.push({profile: name, limits: p!.limits!})
  }
  if (profileName) add(profileName, file.profiles[profileName])
  if (!apiKey) return out
  const entries = Object.entries(file.profiles)
  const storing = entries.filter(([, p]) => p.api_key === apiKey)
  for (const [name, p] of storing) add(name, p)
  if (keyMode(apiKey) === 'live' && storing.length === 0) for (const [name, p] of entries) if (keyMode(p.api_key) === 'live') add(name, p)
  return out
}

export interface ContextFlags {
  profile?: string
  'api-key'?: string
  'base-url'?: string
  proxy?: string
}

const nonEmpty = (v: string | undefined) => (v && v.trim() !== '' ? v.trim() : undefined)

export function resolveContext(flags: ContextFlags, env: NodeJS.ProcessEnv, file: ProfileFile): ResolvedContext {
  let profileName: string | undefined
  let profileProvenance: Provenance = {source: 'none', detail: 'no profile'}
  if (nonEmpty(flags.profile)) {
    profileName = nonEmpty(flags.profile)
    profileProvenance = {source: 'flag', detail: '--profile'}
  } else if (nonEmpty(env.PAYOPS_PROFILE)) {
    profileName = nonEmpty(env.PAYOPS_PROFILE)
    profileProvenance = {source: 'env', detail: 'PAYOPS_PROFILE'}
  } else if (file.active) {
    profileName = file.active
    profileProvenance = {source: 'profile', detail: 'active profile'}
  }
  const profile = profileName ? file.profiles[profileName] : undefined
  if (profileName && !profile && profileProvenance.source !== 'profile') {
    throw new UsageError(`No profile named "${profileName}" (from ${profileProvenance.detail}). See \`payops profiles list\`.`)
  }
  const fromProfile = `profile "${profileName}"`

  let apiKey: string | undefined
  let key: Provenance = {source: 'none', detail: 'not set'}
  if (nonEmpty(flags['api-key'])) {
    apiKey = nonEmpty(flags['api-key'])
    key = {source: 'flag', detail: '--api-key'}
  } else if (nonEmpty(env.PAYOPS_API_KEY)) {
    apiKey = nonEmpty(env.PAYOPS_API_KEY)
    key = {source: 'env', detail: 'PAYOPS_API_KEY'}
  } else if (profile?.api_key) {
    apiKey = profile.api_key
    key = {source: 'profile', detail: fromProfile}
  }

  let baseUrl: string | undefined
  let baseUrlProvenance: Provenance = {source: 'none', detail: 'not set'}
  if (nonEmpty(flags['base-url'])) {
    baseUrl = nonEmpty(flags['base-url'])
    baseUrlProvenance = {source: 'flag', detail: '--base-url'}
  } else if (nonEmpty(env.PAYOPS_BASE_URL)) {
    baseUrl = nonEmpty(env.PAYOPS_BASE_URL)
    baseUrlProvenance = {source: 'env', detail: 'PAYOPS_BASE_URL'}
  } else if (profile?.base_url) {
    baseUrl = profile.base_url
    baseUrlProvenance = {source: 'profile', detail: fromProfile}
  }

  return {
    profileName: profile ? profileName : undefined,
    network: networkSettings(flags, env, profile, fromProfile),
    profileProvenance,
    profile,
    apiKey,
    key,
    baseUrl,
    baseUrlProvenance,
    mode: keyMode(apiKey),
    envKeyOverridesProfile: key.source === 'env' && Boolean(profile?.api_key) && profile?.api_key !== apiKey,
    limitSets: limitSetsFor(file, profile ? profileName : undefined, apiKey),
  }
}

/**
 * The proxy and CAs of a run: `--proxy`, else the profile's proxy (either used for every URL,
 * `none` turning proxies off), else the environment's, read per URL (src/net.ts); the profile's
 * ca-file. Every credential in a proxy URL is registered as a secret: no message shows it.
 */
export function networkSettings(flags: {proxy?: string}, env: NodeJS.ProcessEnv, profile: Profile | undefined, fromProfile: string): NetworkSettings {
  for (const v of [flags.proxy, profile?.proxy, env.https_proxy, env.HTTPS_PROXY, env.http_proxy, env.HTTP_PROXY]) proxySecrets(v, registerSecret)
  const net: NetworkSettings = {env}
  if (nonEmpty(flags.proxy)) {
    net.proxy = validateProxyUrl(flags.proxy!, '--proxy')
    net.proxySource = '--proxy'
  } else if (profile?.proxy) {
    net.proxy = validateProxyUrl(profile.proxy, `The proxy of ${fromProfile}`)
    net.proxySource = fromProfile
  }
  if (profile?.ca_file) {
    net.caFile = profile.ca_file
    net.caFileSource = fromProfile
  }
  return net
}
