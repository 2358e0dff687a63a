/**
 * Resolves which profile, key and base URL a command uses, and remembers where each came from
 * (flag > environment > profile), so provenance can be shown and a stray PAYOPS_API_KEY noticed.
 */
import {UsageError} from '../errors.js'
import {keyMode, type Profile, type ProfileFile} from './index.js'

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
}

export interface ContextFlags {
  profile?: string
  'api-key'?: string
  'base-url'?: string
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
    profileProvenance,
    profile,
    apiKey,
    key,
    baseUrl,
    baseUrlProvenance,
    mode: keyMode(apiKey),
    envKeyOverridesProfile: key.source === 'env' && Boolean(profile?.api_key) && profile?.api_key !== apiKey,
  }
}
