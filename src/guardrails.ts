/** Per-profile limits on money movements, as a pure check (the base command enforces it). */
import type {Limits} from './config/index.js'
import {formatMoney} from './money.js'

export interface Movement {
  amount_in_minor_units: number
  currency: string
  to: string
  /** For messages: `line 12`, a move id. */
  label?: string
}

/** Every limit of every set the movement breaks (each set is one profile's, named in the reasons). */
export function violationsOfSets(sets: {profile: string; limits: Limits}[], m: Movement): string[] {
  return sets.flatMap((s) => limitViolations(s.limits, m, s.profile))
}

/** Every limit the movement breaks, as one-line reasons naming the limit (empty when allowed). */
export function limitViolations(limits: Limits | undefined, m: Movement, profile: string): string[] {
  if (!limits) return []
  const out: string[] = []
  const where = m.label ? `${m.label}: ` : ''
  const max = limits.max_amount
  if (max && Object.keys(max).length > 0) {
    const cap = max[m.currency.toUpperCase()]
    if (cap === undefined) {
      out.push(`${where}profile "${profile}" has max-amount limits for ${Object.keys(max).join(', ')} but none for ${m.currency.toUpperCase()}`)
    } else if (m.amount_in_minor_units > cap) {
      out.push(`${where}${formatMoney(m.amount_in_minor_units, m.currency)} is over the max-amount ${formatMoney(cap, m.currency)} of profile "${profile}"`)
    }
  }
  const allowed = limits.allowed_destinations
  if (allowed && allowed.length > 0 && !allowed.includes(m.to)) {
    out.push(`${where}destination ${m.to} is not in the allowed-destinations of profile "${profile}"`)
  }
  return out
}
