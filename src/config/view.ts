/** How a profile is shown: the key only ever redacted. */
import {redactKey, redactUrl} from '../api/redact.js'
import {redactProxyUrl} from '../net.js'
import {redactDatabaseUrl} from '../control/url.js'
import {keyMode, type Profile} from './index.js'

export interface ProfileView extends Record<string, unknown> {
  name: string
  active: boolean
  mode: string
  api_key: string
  base_url: string | null
  limits: Profile['limits'] | null
  operator_name: string | null
  watch: Profile['watch'] | null
  /** The proxy without its credentials. */
  proxy: string | null
  ca_file: string | null
  /** The team store's URL without its password. */
  team: string | null
}

export function profileView(name: string, profile: Profile, active: boolean): ProfileView {
  return {
    name,
    active,
    mode: keyMode(profile.api_key),
    api_key: redactKey(profile.api_key),
    base_url: profile.base_url ? redactUrl(profile.base_url) : null,
    limits: profile.limits ?? null,
    operator_name: profile.operator_name ?? null,
    watch: profile.watch ?? null,
    proxy: redactProxyUrl(profile.proxy) ?? null,
    ca_file: profile.ca_file ?? null,
    team: redactDatabaseUrl(profile.team_database_url) ?? null,
  }
}
