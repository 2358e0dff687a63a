/** `profiles set/unset`: limits and settings of a profile, validated (pure). */
import {UsageError} from '../errors.js'
import {formatMoney, normalizeCurrency, parseAmount} from '../money.js'
import type {Profile} from './index.js'
import {validateBaseUrl} from './validate.js'

export const SETTING_KEYS = ['max-amount', 'allowed-destinations', 'base-url'] as const

export function applySetting(profile: Profile, key: string, values: string[]): {profile: Profile; message: string} {
  const next: Profile = {...profile, limits: {...profile.limits}}
  switch (key) {
    case 'max-amount': {
      if (values.length !== 2) throw new UsageError('Usage: profiles set NAME max-amount AMOUNT CURRENCY (e.g. 5000.00 USD).')
      const currency = normalizeCurrency(values[1])
      const minor = parseAmount(values[0], currency)
      next.limits!.max_amount = {...next.limits!.max_amount, [currency]: minor}
      return {profile: next, message: `max-amount ${formatMoney(minor, currency)} set.`}
    }
    case 'allowed-destinations': {
      const ids = values.flatMap((v) => v.split(',')).map((s) => s.trim()).filter(Boolean)
      if (ids.length === 0) throw new UsageError('Usage: profiles set NAME allowed-destinations ID,ID,...')
      next.limits!.allowed_destinations = [...new Set(ids)]
      return {profile: next, message: `${ids.length} allowed destination${ids.length === 1 ? '' : 's'} set.`}
    }
    case 'base-url': {
      if (values.length !== 1) throw new UsageError('Usage: profiles set NAME base-url URL')
      next.base_url = validateBaseUrl(values[0])
      return {profile: next, message: `base URL set to ${next.base_url}.`}
    }
    default:
      throw new UsageError(`Unknown setting "${key}" (use ${SETTING_KEYS.join(', ')}).`)
  }
}

export function unsetSetting(profile: Profile, key: string, values: string[]): {profile: Profile; message: string} {
  const limits = {...profile.limits}
  switch (key) {
    case 'max-amount': {
      if (values.length === 0) delete limits.max_amount
      else {
        const max = {...limits.max_amount}
        for (const v of values) delete max[normalizeCurrency(v)]
        limits.max_amount = max
        if (Object.keys(max).length === 0) delete limits.max_amount
      }
      break
    }
    case 'allowed-destinations':
      delete limits.allowed_destinations
      break
    default:
      throw new UsageError(`Unknown setting "${key}" (use max-amount or allowed-destinations).`)
  }
  const next: Profile = {...profile, limits}
  if (Object.keys(limits).length === 0) delete next.limits
  return {profile: next, message: `${key}${values.length ? ` ${values.join(' ')}` : ''} removed.`}
}
