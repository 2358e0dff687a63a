/**
 * Exact money handling. Amounts travel as integers in the currency's minor unit; decimal strings
 * typed by an operator are parsed digit by digit (never through floating point) with the
 * currency's minor-unit exponent as ICU reports it (USD 2, JPY 0, KWD 3).
 */
import {UsageError} from './errors.js'

const CURRENCY_RE = /^[A-Z]{3}$/
let knownCurrencies: Set<string> | undefined

function isKnownCurrency(code: string): boolean {
  if (!knownCurrencies) {
    const intl = Intl as unknown as {supportedValuesOf?: (k: string) => string[]}
    knownCurrencies = new Set(intl.supportedValuesOf ? intl.supportedValuesOf('currency') : [])
  }
  // An ICU without the list (tiny builds) accepts any well-formed code.
  return knownCurrencies.size === 0 || knownCurrencies.has(code)
}

/** Normalises and validates an ISO 4217 code (`usd` -> `USD`); a usage error when unknown. */
export function normalizeCurrency(input: string): string {
  const code = input.trim().toUpperCase()
  if (!CURRENCY_RE.test(code) || !isKnownCurrency(code)) {
    throw new UsageError(`Unknown currency "${input}": use an ISO 4217 code such as USD, EUR or JPY.`)
  }
  return code
}

/**
 * The exponents of the most used currencies, as ICU gives them (checked by a unit test), so that
 * a command that shows only these never starts Intl's currency data (about 10 ms).
 */
export const COMMON_EXPONENTS: Readonly<Record<string, number>> = {USD: 2, EUR: 2, GBP: 2, INR: 2, CAD: 2, AUD: 2, CHF: 2, MXN: 2, SGD: 2, JPY: 0, KWD: 3}
const exponentCache = new Map<string, number>(Object.entries(COMMON_EXPONENTS))

/** The number of minor-unit digits of a currency (USD 2, JPY 0, KWD 3). */
export function currencyExponent(currency: string): number {
  const code = currency.toUpperCase()
  let exp = exponentCache.get(code)
  if (exp === undefined) {
    try {
      exp = new Intl.NumberFormat('en', {style: 'currency', currency: code}).resolvedOptions().maximumFractionDigits ?? 2
    } catch {
      exp = 2
    }
    exponentCache.set(code, exp)
  }
  return exp
}

const DECIMAL_RE = /^(\d+)(?:\.(\d*))?$|^\.(\d+)$/

/**
 * Parses an operator-typed decimal amount into integer minor units, exactly.
 * `parseAmount("1234.56", "USD") === 123456`. Accepts `_` and `,` as thousands separators only
 * in the integer part. Zero, negatives, too many decimals, exponents and anything non-numeric
 * are usage errors.
 */
export function parseAmount(input: string, currency: string): number {
  const code = normalizeCurrency(currency)
  const exp = currencyExponent(code)
  const raw = String(input).trim()
  if (raw === '') throw new UsageError('Amount is empty: give a positive decimal such as 12.34.')
  if (raw.startsWith('-')) throw new UsageError(`Amount "${input}" is negative: amounts must be positive.`)
  const cleaned = raw.replace(/^\+/, '')
  const grouped = /^\d{1,3}([,_]\d{3})+(\.\d*)?$/.test(cleaned)
  const plain = grouped ? cleaned.replace(/[,_]/g, '') : cleaned
  const m = DECIMAL_RE.exec(plain)
  if (!m) throw new UsageError(`Amount "${input}" is not a decimal number (expected something like 1234.56).`)
  const intPart = m[1] ?? '0'
  const fracPart = m[2] ?? m[3] ?? ''
  const fracTrimmed = fracPart.replace(/0+$/, '')
  if (fracTrimmed.length > exp) {
    throw new UsageError(
      exp === 0
        ? `Amount "${input}" has decimals, but ${code} has no minor unit.`
        : `Amount "${input}" has more than ${exp} decimal place${exp === 1 ? '' : 's'}, the precision of ${code}.`,
    )
  }
  const minor = BigInt(intPart + fracTrimmed.padEnd(exp, '0'))
  if (minor === 0n) throw new UsageError(`Amount "${input}" is zero: amounts must be positive.`)
  if (minor > BigInt(Number.MAX_SAFE_INTEGER)) throw new UsageError(`Amount "${input}" is too large.`)
  return Number(minor)
}

/** Parses `--amount-minor`: a positive whole number of minor units. */
export function parseMinorUnits(input: string | number): number {
  const raw = String(input).trim()
  if (!/^\+?\d+$/.test(raw)) {
    if (raw.startsWith('-')) throw new UsageError(`Amount "${input}" is negative: amounts must be positive.`)
    throw new UsageError(`Amount in minor units "${input}" must be a positive whole number (e.g. 1234 for 12.34 USD).`)
  }
  const n = BigInt(raw.replace(/^\+/, ''))
  if (n === 0n) throw new UsageError(`Amount "${input}" is zero: amounts must be positive.`)
  if (n > BigInt(Number.MAX_SAFE_INTEGER)) throw new UsageError(`Amount "${input}" is too large.`)
  return Number(n)
}

/** Integer minor units -> plain decimal string with the currency's exponent: 123456 USD -> "1234.56". */
export function toDecimalString(minor: number | bigint, currency: string): string {
  const exp = currencyExponent(currency)
  const v = BigInt(minor)
  const neg = v < 0n
  const digits = (neg ? -v : v).toString().padStart(exp + 1, '0')
  const intPart = digits.slice(0, digits.length - exp)
  const frac = exp > 0 ? '.' + digits.slice(digits.length - exp) : ''
  return (neg ? '-' : '') + intPart + frac
}

/** What an amount whose currency the service did not name reads as: its minor units, never a guessed currency. */
export function unknownCurrencyAmount(minor: number | bigint): string {
  const v = BigInt(minor)
  const digits = (v < 0n ? -v : v).toString().replace(/\B(?=(\d{3})+(?!\d))/g, ',')
  return `${v < 0n ? '-' : ''}${digits} minor units (currency unknown)`
}

/**
 * Integer minor units -> `1,234.56 USD` (grouped, exact, with the code). Without a currency the
 * amount is shown as minor units of an unknown currency: payops never assumes USD.
 */
export function formatMoney(minor: number | bigint | null | undefined, currency: string | null | undefined): string {
  if (minor === null || minor === undefined) return ''
  if (!currency) return unknownCurrencyAmount(minor)
  const code = currency.toUpperCase()
  const plain = toDecimalString(minor, code)
  const neg = plain.startsWith('-')
  const [i, f] = (neg ? plain.slice(1) : plain).split('.')
  const grouped = i.replace(/\B(?=(\d{3})+(?!\d))/g, ',')
  return `${neg ? '-' : ''}${grouped}${f === undefined ? '' : '.' + f} ${code}`
}

/** Totals per currency in minor units, as "1.00 USD, 2 JPY" ("none" when empty). */
export const formatTotals = (totals: Record<string, number> | undefined) =>
  Object.entries(totals ?? {}).map(([cur, v]) => formatMoney(v, cur)).join(', ') || 'none'

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER)

/** An exact integer of minor units as a number while it is a safe integer, as a BigInt past 2^53. */
export function exactMinor(v: bigint): number | bigint {
  return v <= MAX_SAFE && v >= -MAX_SAFE ? Number(v) : v
}

/**
 * Minor-unit arithmetic on totals, which may pass 2^53 (a subaccount's incoming and outgoing
 * totals, sums over lists): done in BigInt, so never a unit off. Inputs are integers, as numbers
 * or as the BigInt the client's JSON parser gives past 2^53.
 */
export function subtractMinor(a: number | bigint, b: number | bigint): number | bigint {
  return exactMinor(BigInt(a) - BigInt(b))
}

/**
 * A minor-unit figure as a number, for arithmetic that stays within 2^53 (statements, positions):
 * refused with one line past it rather than rounded.
 */
export function safeMinor(v: number | bigint, what: string): number {
  if (typeof v === 'number') return v
  if (v <= MAX_SAFE && v >= -MAX_SAFE) return Number(v)
  throw new UsageError(`${what} is ${v} minor units, past what payops computes exactly here (2^53); nothing is shown rather than a rounded figure.`)
}

/**
 * A minor-unit figure as a number while it is within 2^53, else null: the caller shows every other
 * figure and names this one as unreadable ({@link unreadableFigure}) rather than round it.
 */
export function readableMinor(v: number | bigint): number | null {
  if (typeof v === 'number') return v
  return v <= MAX_SAFE && v >= -MAX_SAFE ? Number(v) : null
}

/** The line that names a figure past 2^53 as unreadable. */
export function unreadableFigure(what: string, v: number | bigint | string): string {
  return `${what} is ${v} minor units, past what payops computes exactly (2^53): it is shown as unreadable, and what is computed from it is left out`
}

export function sumMinor(values: Iterable<number | bigint>): number | bigint {
  let total = 0n
  for (const v of values) total += BigInt(v)
  return exactMinor(total)
}
