/** `profiles set/unset`: limits and settings of a profile, validated (pure). */
import {UsageError} from '../errors.js'
import {formatMoney, normalizeCurrency, parseAmount} from '../money.js'
import type {Profile} from './index.js'
import {validateBaseUrl} from './validate.js'
import {redactUrl} from '../api/redact.js'
import {MAKER_CHECKER_SCOPE} from '../movements/maker-checker.js'
import {hasUnsafeChars} from '../text.js'
import {resolve} from 'node:path'
import {readCaFile, redactProxyUrl, validateProxyUrl} from '../net.js'
import {describeRule, parseRule, withoutRules, withRule} from '../controls/rules.js'
import {databaseSecrets, describeStore, parseDatabaseUrl, redactDatabaseUrl} from '../control/url.js'
import {registerSecret} from '../api/redact.js'

export const SETTING_KEYS = ['max-amount', 'daily-max', 'allowed-destinations', 'approval-policy', 'operator-name', 'watch', 'base-url', 'proxy', 'ca-file', 'team'] as const

/** The per-currency amount limits: a single movement's maximum, and the total moved per UTC day under a key. */
const AMOUNT_LIMITS = {'max-amount': 'max_amount', 'daily-max': 'daily_max'} as const
type AmountSetting = keyof typeof AMOUNT_LIMITS
const isAmountSetting = (key: string): key is AmountSetting => key in AMOUNT_LIMITS

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/** `ID,ID ...` (commas or separate words) into distinct ids; each must be a UUID (exit 2 naming the bad ones). */
export function parseDestinations(values: string[], usage: string): string[] {
  const ids = values.flatMap((v) => v.split(',')).map((s) => s.trim()).filter(Boolean)
  if (ids.length === 0) throw new UsageError(`Usage: ${usage}`)
  const bad = ids.filter((id) => !UUID_RE.test(id))
  if (bad.length > 0) {
    throw new UsageError(`Not a UUID: ${bad.map((b) => `"${b}"`).join(', ')}. Destinations are subaccount or treasury account ids (UUIDs); nothing was changed.`)
  }
  return [...new Set(ids)]
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`

export interface SettingOptions {
  /** allowed-destinations: add to the list instead of replacing it. */
  add?: boolean
  /** approval-policy: the amount above which it applies (`1000.00`, its currency as the next value, or `1000.00 USD`). */
  threshold?: string
}

/** `maker-checker [CUR]` with --threshold AMOUNT (or `--threshold "AMOUNT CUR"`). */
function approvalPolicy(values: string[], threshold: string | undefined): NonNullable<Profile['limits']>['approval'] {
  const usage = 'Usage: profiles set NAME approval-policy maker-checker [--threshold AMOUNT CURRENCY]'
  if (values[0] !== 'maker-checker') throw new UsageError(`Unknown approval policy "${values[0] ?? ''}": the policy is maker-checker. ${usage}`)
  if (threshold === undefined) {
    if (values.length > 1) throw new UsageError(usage)
    return {policy: 'maker-checker'}
  }
  const parts = [...threshold.trim().split(/\s+/), ...values.slice(1)]
  if (parts.length !== 2) throw new UsageError(`--threshold needs an amount and a currency (e.g. --threshold 1000.00 USD). ${usage}`)
  const currency = normalizeCurrency(parts[1])
  return {policy: 'maker-checker', threshold: {[currency]: parseAmount(parts[0], currency)}}
}

/** A name to tell operators apart: 1 to 100 printable characters. */
function operatorName(values: string[]): string {
  const name = values.join(' ').trim()
  if (!name || name.length > 100 || hasUnsafeChars(name)) {
    throw new UsageError('Usage: profiles set NAME operator-name "First Last" (1 to 100 printable characters).')
  }
  return name
}

export function applySetting(profile: Profile, key: string, values: string[], opts: SettingOptions = {}): {profile: Profile; message: string} {
  const next: Profile = {...profile, limits: {...profile.limits}}
  if (opts.add && key !== 'allowed-destinations') throw new UsageError('--add applies only to allowed-destinations.')
  if (opts.threshold !== undefined && key !== 'approval-policy') throw new UsageError('--threshold applies only to approval-policy.')
  if (isAmountSetting(key)) {
    const field = AMOUNT_LIMITS[key]
    if (values.length !== 2) throw new UsageError(`Usage: profiles set NAME ${key} AMOUNT CURRENCY (e.g. 5000.00 USD).`)
    const currency = normalizeCurrency(values[1])
    const minor = parseAmount(values[0], currency)
    const before = next.limits![field]?.[currency]
    next.limits![field] = {...next.limits![field], [currency]: minor}
    const was = before === undefined ? '' : ` (was ${formatMoney(before, currency)})`
    return {profile: next, message: `${key} ${formatMoney(minor, currency)} set${was}.`}
  }
  switch (key) {
    case 'allowed-destinations':
      return setDestinations(profile, next, values, opts)
    case 'approval-policy':
      return setApproval(next, values, opts)
    case 'watch': {
      const rule = parseRule(values)
      const {list, replaced} = withRule(profile.watch, rule)
      next.watch = list
      if (!Object.keys(next.limits!).length) delete next.limits
      return {profile: next, message: `watch rule ${replaced ? 'replaced' : 'added'}: ${describeRule(rule)} (${plural(list.length, 'rule')} in all; \`payops watch\` checks them).`}
    }
    case 'operator-name': {
      next.operator_name = operatorName(values)
      if (!Object.keys(next.limits!).length) delete next.limits
      return {profile: next, message: `operator name set to "${next.operator_name}"; every audit record from this profile carries it.`}
    }
    case 'base-url': {
      if (values.length !== 1) throw new UsageError('Usage: profiles set NAME base-url URL')
      next.base_url = validateBaseUrl(values[0])
      return {profile: next, message: `base URL set to ${redactUrl(next.base_url)}.`}
    }
    case 'proxy': {
      if (values.length !== 1) throw new UsageError('Usage: profiles set NAME proxy http://[USER:PASSWORD@]HOST:PORT (or none: no proxy, whatever the environment says)')
      next.proxy = validateProxyUrl(values[0], 'Proxy')
      if (!Object.keys(next.limits!).length) delete next.limits
      const what = next.proxy === 'none' ? 'no proxy: requests of this profile go direct, whatever HTTPS_PROXY says' : `every request of this profile goes through ${redactProxyUrl(next.proxy)} (NO_PROXY still applies)`
      return {profile: next, message: `proxy set: ${what}.`}
    }
    case 'ca-file': {
      if (values.length !== 1) throw new UsageError('Usage: profiles set NAME ca-file FILE.pem')
      const path = resolve(values[0])
      readCaFile(path, 'CA file')
      next.ca_file = path
      if (!Object.keys(next.limits!).length) delete next.limits
      return {profile: next, message: `ca-file set: TLS trusts the certificates in ${path} besides the bundled ones.`}
    }
    case 'team': {
      if (values.length !== 1) throw new UsageError('Usage: profiles set NAME team postgres://[USER@]HOST[:PORT]/DATABASE')
      databaseSecrets(values[0], registerSecret)
      const address = parseDatabaseUrl(values[0])
      next.team_database_url = address.url
      if (!Object.keys(next.limits!).length) delete next.limits
      return {profile: next, message: `team store set: this profile's controls live in ${describeStore(address)} (${redactDatabaseUrl(address.url)}).`}
    }
    default:
      throw new UsageError(`Unknown setting "${key}" (use ${SETTING_KEYS.join(', ')}).`)
  }
}

/**
 * Removes a limit. Removing what is not there is a usage error (exit 2) that names what is (as
 * `git config --unset` fails on a missing key): a "removed" that removed nothing would mislead.
 */
export function unsetSetting(profile: Profile, key: string, values: string[], name = 'this profile'): {profile: Profile; message: string} {
  const limits = {...profile.limits}
  let message: string
  switch (key) {
    case 'max-amount':
    case 'daily-max':
      message = unsetAmount(limits, key, values, name)
      break
    case 'allowed-destinations':
      message = unsetDestinations(limits, values, name)
      break
    case 'approval-policy': {
      if (!limits.approval) throw new UsageError(`Profile "${name}" has no approval-policy to remove.`)
      if (values.length) throw new UsageError('Usage: profiles unset NAME approval-policy')
      delete limits.approval
      message = 'approval-policy removed: movements are approved as their flags say again.'
      break
    }
    case 'watch': {
      const {list, removed} = withoutRules(profile.watch, values, name)
      const next: Profile = {...profile, watch: list}
      if (list.length === 0) delete next.watch
      return {profile: next, message: `Removed ${plural(removed, 'watch rule')}; ${list.length} left.`}
    }
    case 'operator-name': {
      if (!profile.operator_name) throw new UsageError(`Profile "${name}" has no operator-name to remove.`)
      const next: Profile = {...profile}
      delete next.operator_name
      return {profile: next, message: 'operator name removed.'}
    }
    case 'team': {
      if (!profile.team_database_url) throw new UsageError(`Profile "${name}" has no team store to remove.`)
      if (values.length) throw new UsageError('Usage: profiles unset NAME team')
      const next: Profile = {...profile}
      delete next.team_database_url
      return {profile: next, message: 'team store removed: this profile\'s controls are local again.'}
    }
    case 'proxy':
    case 'ca-file': {
      const field = key === 'proxy' ? 'proxy' : 'ca_file'
      if (!profile[field]) throw new UsageError(`Profile "${name}" has no ${key} to remove.`)
      if (values.length) throw new UsageError(`Usage: profiles unset NAME ${key}`)
      const next: Profile = {...profile}
      delete next[field]
      return {profile: next, message: key === 'proxy' ? 'proxy removed: HTTPS_PROXY, HTTP_PROXY and NO_PROXY decide again.' : 'ca-file removed: TLS trusts the bundled certificates (and NODE_EXTRA_CA_CERTS).'}
    }
    default:
      throw new UsageError(`Unknown setting "${key}" (use max-amount, daily-max, allowed-destinations, approval-policy, operator-name, watch, proxy, ca-file or team).`)
  }
  const next: Profile = {...profile, limits}
  if (Object.keys(limits).length === 0) delete next.limits
  return {profile: next, message}
}

/** allowed-destinations: the list replaced, or added to with --add. */
function setDestinations(profile: Profile, next: Profile, values: string[], opts: SettingOptions): {profile: Profile; message: string} {
  const ids = parseDestinations(values, `profiles set NAME allowed-destinations ID,ID,... [--add]`)
  const before = profile.limits?.allowed_destinations ?? []
  if (opts.add) {
    const added = ids.filter((id) => !before.includes(id))
    next.limits!.allowed_destinations = [...before, ...added]
    const already = ids.length - added.length
    return {
      profile: next,
      message: `Added ${plural(added.length, 'allowed destination')}${already ? ` (${already} already in the list)` : ''}; the list now has ${next.limits!.allowed_destinations.length}.`,
    }
  }
  next.limits!.allowed_destinations = ids
  if (before.length === 0) return {profile: next, message: `${plural(ids.length, 'allowed destination')} set.`}
  return {profile: next, message: `Replaced the ${plural(before.length, 'allowed destination')} with ${ids.length} (use --add to add to the list instead).`}
}

/** approval-policy: maker-checker over every movement, or over a --threshold. */
function setApproval(next: Profile, values: string[], opts: SettingOptions): {profile: Profile; message: string} {
  const before = next.limits!.approval
  next.limits!.approval = approvalPolicy(values, opts.threshold)
  const over = Object.entries(next.limits!.approval!.threshold ?? {}).map(([c, v]) => formatMoney(v, c))
  const what = over.length ? `movements over ${over[0]}` : 'every movement'
  return {
    profile: next,
    message: `maker-checker set${before ? ' (replacing the earlier policy)' : ''}: ${what} under this profile's key is created without auto-approval, and the operator who created it cannot approve it. ${MAKER_CHECKER_SCOPE}`,
  }
}

/** max-amount or daily-max removed, for the currencies given or all; the message. */
function unsetAmount(limits: NonNullable<Profile['limits']>, key: 'max-amount' | 'daily-max', values: string[], name: string): string {
  const field = AMOUNT_LIMITS[key]
  const max = {...limits[field]}
  const have = Object.keys(max)
  const has = have.length ? `it has ${key} for ${have.map((c) => `${c} (${formatMoney(max[c], c)})`).join(', ')}` : `it has no ${key} at all`
  if (values.length === 0) {
    if (have.length === 0) throw new UsageError(`Profile "${name}" has no ${key} to remove.`)
    delete limits[field]
    return `${key} removed for ${have.join(', ')}.`
  }
  const currencies = [...new Set(values.map((v) => normalizeCurrency(v)))]
  const absent = currencies.filter((c) => max[c] === undefined)
  if (absent.length > 0) throw new UsageError(`Profile "${name}" has no ${key} for ${absent.join(', ')}: ${has}. Nothing was changed.`)
  for (const c of currencies) delete max[c]
  limits[field] = max
  if (Object.keys(max).length === 0) delete limits[field]
  return `${key} removed for ${currencies.join(', ')}.`
}

/** allowed-destinations removed, the ids given or the whole list; the message. */
function unsetDestinations(limits: NonNullable<Profile['limits']>, values: string[], name: string): string {
  const list = limits.allowed_destinations ?? []
  if (list.length === 0) throw new UsageError(`Profile "${name}" has no allowed-destinations to remove.`)
  if (values.length === 0) {
    delete limits.allowed_destinations
    return `allowed-destinations removed (${plural(list.length, 'id')}): movements may go to any destination again.`
  }
  const ids = parseDestinations(values, 'profiles unset NAME allowed-destinations [ID,ID,...]')
  const absent = ids.filter((id) => !list.includes(id))
  if (absent.length > 0) throw new UsageError(`${absent.join(', ')} ${absent.length === 1 ? 'is' : 'are'} not in the allowed-destinations of profile "${name}" (${list.join(', ')}). Nothing was changed.`)
  const rest = list.filter((id) => !ids.includes(id))
  if (rest.length === 0) {
    throw new UsageError(`That would empty the allowed-destinations of profile "${name}", which would allow every destination: run \`profiles unset ${name} allowed-destinations\` (no ids) if that is what you mean.`)
  }
  limits.allowed_destinations = rest
  return `Removed ${plural(ids.length, 'allowed destination')}; ${rest.length} left.`
}
