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

/** Amounts per currency code, in exact minor units. */
export type Totals = Map<string, bigint>

/** Adds the movements to `into` per currency (upper case). */
export function addTotals(into: Totals, movements: Iterable<{amount_in_minor_units: number; currency: string}>): Totals {
  for (const m of movements) {
    const c = m.currency.toUpperCase()
    into.set(c, (into.get(c) ?? 0n) + BigInt(m.amount_in_minor_units))
  }
  return into
}

/** What moved today under the key, and what was sent with its outcome unknown (see spentSince). */
export interface SpentToday {
  moved: Totals
  unknown: Totals
}

/**
 * The daily caps the asked totals break, given what moved today under the key and what may have
 * (sent, outcome unknown): a cap per currency; once a profile has any, a currency without one is
 * refused (as max-amount does). The sentence names each figure: `80.00 USD moved, 20.00 USD
 * unknown (outcome not known) today (UTC) under this key + 5.00 USD asked = 105.00 USD`.
 */
export function dailyViolations(sets: {profile: string; limits: Limits}[], asked: Totals, today: SpentToday): string[] {
  const out: string[] = []
  for (const {profile, limits} of sets) {
    const caps = limits.daily_max
    if (!caps || Object.keys(caps).length === 0) continue
    for (const [currency, amount] of asked) {
      const cap = caps[currency]
      if (cap === undefined) {
        out.push(`profile "${profile}" has daily-max limits for ${Object.keys(caps).join(', ')} but none for ${currency}`)
        continue
      }
      const moved = today.moved.get(currency) ?? 0n
      const unknown = today.unknown.get(currency) ?? 0n
      if (moved + unknown + amount > BigInt(cap)) {
        const before = unknown > 0n ? `${formatMoney(moved, currency)} moved, ${formatMoney(unknown, currency)} unknown (sent, outcome not known)` : `${formatMoney(moved, currency)} moved`
        out.push(
          `daily-max ${formatMoney(cap, currency)} of profile "${profile}": ${before} today (UTC) under this key + ${formatMoney(amount, currency)} asked = ${formatMoney(moved + unknown + amount, currency)}`,
        )
      }
    }
  }
  return out
}

/** Some set has a daily cap (today's total must then be read). */
export const hasDailyCap = (sets: {limits: Limits}[]): boolean => sets.some((s) => Object.keys(s.limits.daily_max ?? {}).length > 0)

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
