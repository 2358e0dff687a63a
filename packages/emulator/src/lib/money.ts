/**
 * Amounts as the spec counts them: integers in the currency's minor unit (USD cents). A scenario
 * file may write an amount as a decimal of the major unit (`1234.56`); it is read here, exactly.
 */
const exponents = new Map<string, number>()
let known: Set<string> | undefined

/** Whether ICU knows the ISO 4217 code (an ICU without the list accepts any well-formed code). */
function isKnownCurrency(code: string): boolean {
  if (!known) {
    const intl = Intl as unknown as {supportedValuesOf?: (k: string) => string[]}
    known = new Set(intl.supportedValuesOf ? intl.supportedValuesOf('currency') : [])
  }
  return /^[A-Z]{3}$/.test(code) && (known.size === 0 || known.has(code))
}

/** The number of minor-unit digits of a currency (USD 2, JPY 0, KWD 3), from ICU. */
export function currencyExponent(currency: string): number {
  const code = currency.toUpperCase()
  let exp = exponents.get(code)
  if (exp === undefined) {
    try {
      exp = new Intl.NumberFormat('en', {style: 'currency', currency: code}).resolvedOptions().maximumFractionDigits ?? 2
    } catch {
      exp = 2
    }
    exponents.set(code, exp)
  }
  return exp
}

const DECIMAL_RE = /^(\d+)(?:\.(\d*))?$|^\.(\d+)$/

/**
 * A positive decimal amount of `currency` as integer minor units, exactly (`"1234.56"` USD is
 * 123456); `_` and `,` group thousands in the integer part only. Anything else throws an Error
 * whose message says what is wrong.
 */
export function minorUnitsOf(input: string, currency: string): number {
  const code = currency.trim().toUpperCase()
  if (!isKnownCurrency(code)) throw new Error(`Unknown currency "${currency}": use an ISO 4217 code such as USD, EUR or JPY.`)
  const exp = currencyExponent(code)
  const raw = String(input).trim()
  if (raw === '') throw new Error('Amount is empty: give a positive decimal such as 12.34.')
  if (raw.startsWith('-')) throw new Error(`Amount "${input}" is negative: amounts must be positive.`)
  const cleaned = raw.replace(/^\+/, '')
  const plain = /^\d{1,3}([,_]\d{3})+(\.\d*)?$/.test(cleaned) ? cleaned.replace(/[,_]/g, '') : cleaned
  const m = DECIMAL_RE.exec(plain)
  if (!m) throw new Error(`Amount "${input}" is not a decimal number (expected something like 1234.56).`)
  const fraction = (m[2] ?? m[3] ?? '').replace(/0+$/, '')
  if (fraction.length > exp) {
    throw new Error(exp === 0 ? `Amount "${input}" has decimals, but ${code} has no minor unit.` : `Amount "${input}" has more than ${exp} decimal place${exp === 1 ? '' : 's'}, the precision of ${code}.`)
  }
  const minor = BigInt((m[1] ?? '0') + fraction.padEnd(exp, '0'))
  if (minor === 0n) throw new Error(`Amount "${input}" is zero: amounts must be positive.`)
  if (minor > BigInt(Number.MAX_SAFE_INTEGER)) throw new Error(`Amount "${input}" is too large.`)
  return Number(minor)
}
