import {describe, expect, it} from 'vitest'
import fc from 'fast-check'
import {UsageError} from '../../src/errors.js'
import {usage as usageError} from './support.js'
import {currencyExponent, formatMoney, normalizeCurrency, parseAmount, parseMinorUnits, toDecimalString} from '../../src/money.js'


describe('currencyExponent / normalizeCurrency', () => {
  it('reads the minor-unit exponent from ICU', () => {
    expect(currencyExponent('USD')).toBe(2)
    expect(currencyExponent('JPY')).toBe(0)
    expect(currencyExponent('KWD')).toBe(3)
    expect(currencyExponent('eur')).toBe(2)
  })

  it('normalises case and whitespace, rejects malformed or unknown codes', () => {
    expect(normalizeCurrency('usd')).toBe('USD')
    expect(normalizeCurrency(' gbp ')).toBe('GBP')
    for (const bad of ['US', 'XXXX', 'U$D', '', '123', 'ABC']) {
      expect(usageError(() => normalizeCurrency(bad)).message).toContain('Unknown currency')
    }
  })
})

describe('parseAmount', () => {
  it.each([
    ['1234.56', 'USD', 123456],
    ['1,234.56', 'USD', 123456],
    ['1_234.56', 'USD', 123456],
    ['1,234,567.89', 'USD', 123456789],
    ['0.29', 'USD', 29],
    ['0.1', 'USD', 10],
    ['0.2', 'USD', 20],
    ['0.3', 'USD', 30],
    ['1.15', 'USD', 115],
    ['4.35', 'USD', 435],
    ['1.10', 'USD', 110],
    ['12.340', 'USD', 1234],
    ['1', 'USD', 100],
    ['+5', 'USD', 500],
    ['  7.5  ', 'USD', 750],
    ['1.005', 'KWD', 1005],
    ['0.001', 'KWD', 1],
    ['1,234,567.891', 'KWD', 1234567891],
    ['12', 'JPY', 12],
    ['12.0', 'JPY', 12],
    ['1,000', 'JPY', 1000],
    ['90071992547409.91', 'USD', Number.MAX_SAFE_INTEGER],
    ['9007199254740991', 'JPY', Number.MAX_SAFE_INTEGER],
  ] as const)('parses %s %s exactly as %d', (input, currency, expected) => {
    expect(parseAmount(input, currency)).toBe(expected)
  })

  it('parses values that floating point gets wrong', () => {
    expect(Math.round(0.29 * 100)).toBe(29)
    expect(Math.trunc(0.29 * 100)).toBe(28)
    expect(parseAmount('0.29', 'USD')).toBe(29)
    expect(Math.trunc(1.005 * 1000)).not.toBe(1005)
    expect(parseAmount('1.005', 'KWD')).toBe(1005)
    expect(parseAmount('19.99', 'USD')).toBe(1999)
  })

  it('accepts a lower-case currency code', () => {
    expect(parseAmount('1', 'usd')).toBe(100)
    expect(parseAmount('2.5', 'kwd')).toBe(2500)
  })

  it('accepts a leading or trailing decimal point', () => {
    expect(parseAmount('.5', 'USD')).toBe(50)
    expect(parseAmount('.005', 'KWD')).toBe(5)
    expect(parseAmount('12.', 'USD')).toBe(1200)
  })

  it('rejects decimals in a currency without a minor unit', () => {
    expect(usageError(() => parseAmount('12.5', 'JPY')).message).toMatch(/JPY has no minor unit/)
    usageError(() => parseAmount('12.50', 'JPY'))
    usageError(() => parseAmount('.5', 'JPY'))
  })

  it('rejects more decimals than the currency has', () => {
    expect(usageError(() => parseAmount('1.234', 'USD')).message).toMatch(/more than 2 decimal places.*USD/)
    expect(usageError(() => parseAmount('1.0005', 'KWD')).message).toMatch(/more than 3 decimal places.*KWD/)
  })

  it.each([
    ['0', /zero/],
    ['0.00', /zero/],
    ['0.000', /zero/],
    ['.0', /zero/],
    ['-5', /negative/],
    ['-0.01', /negative/],
    ['abc', /not a decimal/],
    ['', /empty/],
    ['   ', /empty/],
    ['1e3', /not a decimal/],
    ['1E3', /not a decimal/],
    ['0x10', /not a decimal/],
    ['Infinity', /not a decimal/],
    ['NaN', /not a decimal/],
    ['1.2.3', /not a decimal/],
    ['1,23', /not a decimal/],
    ['12,34.56', /not a decimal/],
    ['1,2345', /not a decimal/],
    ['1.234,56', /not a decimal/],
    ['12 USD', /not a decimal/],
    ['$12', /not a decimal/],
    ['.', /not a decimal/],
    ['+', /not a decimal/],
    ['١٢', /not a decimal/],
  ])('rejects %j as a usage error', (input, message) => {
    expect(usageError(() => parseAmount(input, 'USD')).message).toMatch(message)
  })

  it('rejects amounts beyond the safe integer range', () => {
    expect(usageError(() => parseAmount('90071992547409.92', 'USD')).message).toMatch(/too large/)
    expect(usageError(() => parseAmount('9007199254740992', 'JPY')).message).toMatch(/too large/)
    usageError(() => parseAmount('1' + '0'.repeat(40), 'USD'))
  })

  it('rejects a bad currency before looking at the amount', () => {
    expect(usageError(() => parseAmount('1', 'US')).message).toContain('Unknown currency "US"')
    expect(usageError(() => parseAmount('1', 'XXXX')).message).toContain('Unknown currency "XXXX"')
  })
})

describe('parseMinorUnits', () => {
  it('parses positive whole numbers, as strings or numbers', () => {
    expect(parseMinorUnits('1234')).toBe(1234)
    expect(parseMinorUnits(' 42 ')).toBe(42)
    expect(parseMinorUnits('+7')).toBe(7)
    expect(parseMinorUnits(99)).toBe(99)
    expect(parseMinorUnits(String(Number.MAX_SAFE_INTEGER))).toBe(Number.MAX_SAFE_INTEGER)
  })

  it.each([
    ['0', /zero/],
    ['000', /zero/],
    ['-5', /negative/],
    ['12.5', /whole number/],
    ['1e3', /whole number/],
    ['', /whole number/],
    ['abc', /whole number/],
    ['1,000', /whole number/],
    ['9007199254740992', /too large/],
  ])('rejects %j', (input, message) => {
    expect(usageError(() => parseMinorUnits(input)).message).toMatch(message)
  })
})

describe('toDecimalString', () => {
  it('places the decimal point by the currency exponent', () => {
    expect(toDecimalString(123456, 'USD')).toBe('1234.56')
    expect(toDecimalString(5, 'USD')).toBe('0.05')
    expect(toDecimalString(0, 'USD')).toBe('0.00')
    expect(toDecimalString(-5, 'USD')).toBe('-0.05')
    expect(toDecimalString(1234, 'JPY')).toBe('1234')
    expect(toDecimalString(1005, 'KWD')).toBe('1.005')
    expect(toDecimalString(-5, 'KWD')).toBe('-0.005')
    expect(toDecimalString(Number.MAX_SAFE_INTEGER, 'USD')).toBe('90071992547409.91')
  })

  it('handles bigints beyond the safe range exactly', () => {
    expect(toDecimalString(123456789012345678901234567890n, 'USD')).toBe('1234567890123456789012345678.90')
  })
})

describe('formatMoney', () => {
  it('groups thousands and appends the code', () => {
    expect(formatMoney(123456, 'USD')).toBe('1,234.56 USD')
    expect(formatMoney(123456789, 'usd')).toBe('1,234,567.89 USD')
    expect(formatMoney(5, 'USD')).toBe('0.05 USD')
    expect(formatMoney(100000, 'EUR')).toBe('1,000.00 EUR')
  })

  it('keeps the sign in front of the grouped number', () => {
    expect(formatMoney(-123456, 'USD')).toBe('-1,234.56 USD')
    expect(formatMoney(-5, 'USD')).toBe('-0.05 USD')
  })

  it('shows no decimals for JPY and three for KWD', () => {
    expect(formatMoney(1234567, 'JPY')).toBe('1,234,567 JPY')
    expect(formatMoney(1234567, 'KWD')).toBe('1,234.567 KWD')
    expect(formatMoney(1, 'KWD')).toBe('0.001 KWD')
  })

  it('renders nothing for a missing amount; without a currency, minor units of an unknown currency (never USD)', () => {
    expect(formatMoney(null, 'USD')).toBe('')
    expect(formatMoney(undefined, 'USD')).toBe('')
    expect(formatMoney(100, null)).toBe('100 minor units (currency unknown)')
    expect(formatMoney(123456, '')).toBe('123,456 minor units (currency unknown)')
    expect(formatMoney(-1000n, undefined)).toBe('-1,000 minor units (currency unknown)')
  })
})

const CURRENCIES = ['USD', 'JPY', 'KWD', 'EUR', 'GBP', 'INR'] as const
const safePositive = fc.integer({min: 1, max: Number.MAX_SAFE_INTEGER})
const currency = fc.constantFrom(...CURRENCIES)

describe('properties', () => {
  it('parseAmount(toDecimalString(m, c), c) === m for every safe positive integer', () => {
    fc.assert(
      fc.property(safePositive, currency, (m, c) => {
        expect(parseAmount(toDecimalString(m, c), c)).toBe(m)
      }),
      {numRuns: 2000},
    )
  })

  it('the grouped form (formatMoney without the code) also parses back', () => {
    fc.assert(
      fc.property(safePositive, currency, (m, c) => {
        const shown = formatMoney(m, c)
        expect(parseAmount(shown.slice(0, -4), c)).toBe(m)
      }),
    )
  })

  it('formatMoney is the digit grouping of toDecimalString, never a float rendering', () => {
    fc.assert(
      fc.property(fc.integer({min: Number.MIN_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER}), currency, (m, c) => {
        const plain = toDecimalString(m, c)
        const shown = formatMoney(m, c)
        expect(shown.endsWith(` ${c}`)).toBe(true)
        const number = shown.slice(0, -(c.length + 1))
        expect(number.replace(/,/g, '')).toBe(plain)
        expect(number).not.toMatch(/e/i)
        const [intPart] = number.replace(/^-/, '').split('.')
        expect(intPart).toMatch(/^\d{1,3}(,\d{3})*$/)
        const frac = plain.split('.')[1] ?? ''
        expect(frac.length).toBe(currencyExponent(c))
      }),
      {numRuns: 2000},
    )
  })

  it('toDecimalString of a bigint matches its digits exactly', () => {
    fc.assert(
      fc.property(fc.bigInt({min: 1n, max: 10n ** 30n}), currency, (m, c) => {
        const s = toDecimalString(m, c)
        expect(BigInt(s.replace('.', ''))).toBe(m)
      }),
    )
  })

  it('for any string, parseAmount returns a positive safe integer or throws UsageError', () => {
    const numericish = fc.stringMatching(/^[ +\-]?[0-9,_.eE]{0,24}$/)
    const anyString = fc.oneof(fc.string(), fc.string({unit: 'binary'}), numericish, fc.constantFrom('.', '+', '-', ',', '1,', ',1', '_1', '1__000', '00.00'))
    fc.assert(
      fc.property(anyString, currency, (s, c) => {
        let result: unknown
        try {
          result = parseAmount(s, c)
        } catch (err) {
          expect(err).toBeInstanceOf(UsageError)
          expect((err as UsageError).exitCode).toBe(2)
          return
        }
        expect(typeof result).toBe('number')
        expect(Number.isSafeInteger(result)).toBe(true)
        expect(result as number).toBeGreaterThan(0)
      }),
      {numRuns: 5000},
    )
  })

  it('a decimal with at most exponent-many fraction digits is parsed as the exact integer', () => {
    fc.assert(
      fc.property(fc.bigInt({min: 1n, max: 10n ** 14n}), currency, (m, c) => {
        const exp = currencyExponent(c)
        const digits = m.toString().padStart(exp + 1, '0')
        const text = exp ? `${digits.slice(0, -exp)}.${digits.slice(-exp)}` : digits
        expect(parseAmount(text, c)).toBe(Number(m))
      }),
    )
  })
})

describe('the exponents kept without Intl', () => {
  it('are the ones ICU gives', async () => {
    const {COMMON_EXPONENTS} = await import('../../src/money.js')
    for (const [code, exp] of Object.entries(COMMON_EXPONENTS)) {
      expect(new Intl.NumberFormat('en', {style: 'currency', currency: code}).resolvedOptions().maximumFractionDigits, code).toBe(exp)
    }
  })
})
