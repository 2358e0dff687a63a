/** How a profile is shown: the key only ever redacted. */
import {redactKey} from '../api/redact.js'
import type {Column} from '../output/index.js'
import {formatMoney} from '../money.js'
import {keyMode, type Profile} from './index.js'

export interface ProfileView extends Record<string, unknown> {
  name: string
  active: boolean
  mode: string
  api_key: string
  base_url: string | null
  limits: Profile['limits'] | null
}

export function profileView(name: string, profile: Profile, active: boolean): ProfileView {
  return {
    name,
    active,
    mode: keyMode(profile.api_key),
    api_key: redactKey(profile.api_key),
    base_url: profile.base_url ?? null,
    limits: profile.limits ?? null,
  }
}

/**
 * Limits as an operator reads them: money as money (`max 5,000.00 USD`), destinations counted or,
 * with `ids`, listed. JSON keeps the stored shape (max_amount in minor units per currency, as
 * every amount in JSON output is).
 */
export function formatLimits(l: Profile['limits'] | null | undefined, opts: {ids?: boolean} = {}): string {
  if (!l) return ''
  const parts = Object.entries(l.max_amount ?? {}).map(([cur, v]) => `max ${formatMoney(v, cur)}`)
  const dests = l.allowed_destinations ?? []
  if (dests.length) parts.push(opts.ids ? `allowed destinations: ${dests.join(', ')}` : `${dests.length} allowed destination${dests.length === 1 ? '' : 's'}`)
  return parts.join('; ')
}

const describeLimits = (row: Record<string, unknown>) => formatLimits(row.limits as Profile['limits'] | null)

export const PROFILE_COLUMNS: Column[] = [
  {key: 'name'},
  {key: 'active', get: (r) => (r.active ? '*' : '')},
  {key: 'mode', get: (r) => String(r.mode).toUpperCase()},
  {key: 'api_key', header: 'key'},
  {key: 'base_url', header: 'base url'},
  {key: 'limits', get: describeLimits},
]
