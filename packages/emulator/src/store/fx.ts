/**
 * Indicative currency conversion for account-transfer estimates, exact end to end: rates are
 * decimal strings, arithmetic is BigInt over integer minor units, and each currency's minor-unit
 * exponent comes from ICU (USD 2, JPY 0, KWD 3).
 *
 * - The rate of a pair is `USD_RATES[to] / USD_RATES[from]` rounded half-up to {@link RATE_SCALE}
 *   decimals; that rounded rate is both the one shown (`indicative_fx_rate`) and the one applied.
 * - The destination amount is `source_minor × rate × 10^(exp_to − exp_from)`, rounded half-up to a
 *   whole number of destination minor units.
 */
import {currencyExponent} from '../lib/money.js'

/** Units of each currency per 1 USD (a fixed, indicative table). */
export const USD_RATES: Readonly<Record<string, string>> = {
  USD: '1',
  GBP: '0.79',
  EUR: '0.92',
  INR: '83.12',
  JPY: '151.50',
  CAD: '1.36',
  MXN: '17.05',
  KWD: '0.307',
}

/** Decimal places of a derived cross rate. */
export const RATE_SCALE = 6

/** An exact decimal: `units / 10^scale`. */
export interface Decimal {
  units: bigint
  scale: number
}

const DECIMAL_RE = /^(\d+)(?:\.(\d+))?$/

export function parseDecimal(s: string): Decimal {
  const m = DECIMAL_RE.exec(s.trim())
  if (!m) throw new RangeError(`"${s}" is not a non-negative decimal`)
  const frac = m[2] ?? ''
  return {units: BigInt(m[1] + frac), scale: frac.length}
}

/** A plain decimal string without trailing fractional zeros: 1265823/10^6 -> "1.265823", 1/1 -> "1". */
export function formatDecimal(d: Decimal): string {
  const neg = d.units < 0n
  const digits = (neg ? -d.units : d.units).toString().padStart(d.scale + 1, '0')
  const int = digits.slice(0, digits.length - d.scale)
  const frac = digits.slice(digits.length - d.scale).replace(/0+$/, '')
  return (neg ? '-' : '') + int + (frac ? `.${frac}` : '')
}

const pow10 = (n: number): bigint => 10n ** BigInt(n)

/** `n / d` rounded half-up (ties away from zero) for n >= 0 and d > 0. */
export function divRoundHalfUp(n: bigint, d: bigint): bigint {
  if (d <= 0n || n < 0n) throw new RangeError('divRoundHalfUp needs n >= 0 and d > 0')
  const q = n / d
  return 2n * (n % d) >= d ? q + 1n : q
}

export function hasRate(currency: string): boolean {
  return Object.hasOwn(USD_RATES, currency.toUpperCase())
}

/** The indicative rate from one currency to another (major units), exact at {@link RATE_SCALE}. */
export function crossRate(from: string, to: string): Decimal {
  const f = from.toUpperCase()
  const t = to.toUpperCase()
  if (f === t) return {units: 1n, scale: 0}
  if (!hasRate(f) || !hasRate(t)) throw new RangeError(`no indicative rate between ${f} and ${t}`)
  const rf = parseDecimal(USD_RATES[f])
  const rt = parseDecimal(USD_RATES[t])
  // (rt.units / 10^rt.scale) / (rf.units / 10^rf.scale), scaled to RATE_SCALE decimals.
  const units = divRoundHalfUp(rt.units * pow10(rf.scale + RATE_SCALE), rf.units * pow10(rt.scale))
  return {units, scale: RATE_SCALE}
}

export interface Conversion {
  rate: Decimal
  /** `indicative_fx_rate` */
  rateText: string
  destinationMinor: number
}

/** Converts a positive amount in `from` minor units into `to` minor units, rounding half-up. */
export function convertMinor(amountMinor: number | bigint, from: string, to: string): Conversion {
  const amount = BigInt(amountMinor)
  if (amount < 0n) throw new RangeError('amount must not be negative')
  const rate = crossRate(from, to)
  const expFrom = currencyExponent(from)
  const expTo = currencyExponent(to)
  // amount / 10^expFrom major units × rate.units / 10^rate.scale, in units of 10^-expTo.
  const num = amount * rate.units * pow10(expTo)
  const den = pow10(expFrom + rate.scale)
  const dest = divRoundHalfUp(num, den)
  if (dest > BigInt(Number.MAX_SAFE_INTEGER)) throw new RangeError('the converted amount is too large')
  return {rate, rateText: formatDecimal(rate), destinationMinor: Number(dest)}
}
