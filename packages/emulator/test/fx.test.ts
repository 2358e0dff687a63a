import fc from 'fast-check'
import {describe, expect, it} from 'vitest'
import {USD_RATES, convertMinor, crossRate, divRoundHalfUp, formatDecimal, parseDecimal} from '../src/store/fx.js'
import {currencyExponent} from '../src/lib/money.js'

const CURRENCIES = Object.keys(USD_RATES)

describe('decimal helpers', () => {
  it('parses and formats exact decimals', () => {
    expect(parseDecimal('83.12')).toEqual({units: 8312n, scale: 2})
    expect(parseDecimal('1')).toEqual({units: 1n, scale: 0})
    expect(formatDecimal({units: 1265823n, scale: 6})).toBe('1.265823')
    expect(formatDecimal({units: 83120000n, scale: 6})).toBe('83.12')
    expect(formatDecimal({units: 5n, scale: 3})).toBe('0.005')
    expect(formatDecimal({units: 1n, scale: 0})).toBe('1')
    expect(() => parseDecimal('1e3')).toThrow(RangeError)
    expect(() => parseDecimal('-1')).toThrow(RangeError)
  })

  it('divides rounding half-up', () => {
    expect(divRoundHalfUp(5n, 2n)).toBe(3n) // 2.5 -> 3
    expect(divRoundHalfUp(7n, 3n)).toBe(2n) // 2.33 -> 2
    expect(divRoundHalfUp(8n, 3n)).toBe(3n) // 2.67 -> 3
    expect(divRoundHalfUp(0n, 3n)).toBe(0n)
    expect(() => divRoundHalfUp(1n, 0n)).toThrow(RangeError)
  })

  it('format(parse(x)) is the canonical form of x (property)', () => {
    fc.assert(
      fc.property(fc.bigInt({min: 0n, max: 10n ** 20n}), fc.integer({min: 0, max: 12}), (units, scale) => {
        const text = formatDecimal({units, scale})
        const back = parseDecimal(text)
        // Same value: units / 10^scale == back.units / 10^back.scale
        expect(units * 10n ** BigInt(back.scale)).toBe(back.units * 10n ** BigInt(scale))
      }),
    )
  })
})

describe('indicative conversion', () => {
  it('uses each currency\'s exponent: USD -> INR, GBP -> USD, USD -> JPY, USD -> KWD', () => {
    expect(convertMinor(100_000, 'USD', 'INR')).toMatchObject({rateText: '83.12', destinationMinor: 8_312_000})
    // 100.00 GBP × 1.265823 = 126.5823 USD -> 12658 cents (half-up)
    expect(convertMinor(10_000, 'GBP', 'USD')).toMatchObject({rateText: '1.265823', destinationMinor: 12_658})
    // 1.00 USD × 151.5 = 151.5 JPY, a tie: half-up gives 152 (JPY has no minor unit)
    expect(convertMinor(100, 'USD', 'JPY')).toMatchObject({rateText: '151.5', destinationMinor: 152})
    // 1.00 USD × 0.307 = 0.307 KWD = 307 fils (3 decimals)
    expect(convertMinor(100, 'USD', 'KWD')).toMatchObject({rateText: '0.307', destinationMinor: 307})
    // 152 JPY -> USD: 152 × (1/151.5 = 0.006601) = 1.003352 USD -> 100 cents
    expect(convertMinor(152, 'JPY', 'USD')).toMatchObject({rateText: '0.006601', destinationMinor: 100})
  })

  it('same currency is rate 1 and the same amount', () => {
    expect(convertMinor(12_345, 'GBP', 'GBP')).toEqual({rate: {units: 1n, scale: 0}, rateText: '1', destinationMinor: 12_345})
  })

  it('an unknown currency has no rate', () => {
    expect(() => crossRate('USD', 'XAU')).toThrow(/no indicative rate/)
  })

  it('a result past Number.MAX_SAFE_INTEGER is refused', () => {
    expect(() => convertMinor(Number.MAX_SAFE_INTEGER, 'USD', 'INR')).toThrow(/too large/)
  })

  it('rounds the exact product half-up to whole destination minor units (property)', () => {
    fc.assert(
      fc.property(fc.integer({min: 1, max: 10_000_000_000}), fc.constantFrom(...CURRENCIES), fc.constantFrom(...CURRENCIES), (amount, from, to) => {
        const {rate, destinationMinor} = convertMinor(amount, from, to)
        // exact = amount × rate × 10^(expTo − expFrom), as num/den
        const num = BigInt(amount) * rate.units * 10n ** BigInt(currencyExponent(to))
        const den = 10n ** BigInt(currencyExponent(from) + rate.scale)
        const d = BigInt(destinationMinor)
        // d − 1/2 <= exact < d + 1/2, i.e. 2·num ∈ [(2d − 1)·den, (2d + 1)·den)
        expect(2n * num >= (2n * d - 1n) * den).toBe(true)
        expect(2n * num < (2n * d + 1n) * den).toBe(true)
      }),
    )
  })

  it('is monotonic in the amount (property)', () => {
    fc.assert(
      fc.property(fc.integer({min: 1, max: 1_000_000_000}), fc.integer({min: 0, max: 1_000_000}), fc.constantFrom(...CURRENCIES), fc.constantFrom(...CURRENCIES), (a, extra, from, to) => {
        expect(convertMinor(a + extra, from, to).destinationMinor).toBeGreaterThanOrEqual(convertMinor(a, from, to).destinationMinor)
      }),
    )
  })

  it('the cross rate is the USD-table ratio rounded half-up to 6 decimals (property)', () => {
    fc.assert(
      fc.property(fc.constantFrom(...CURRENCIES), fc.constantFrom(...CURRENCIES), (from, to) => {
        const r = crossRate(from, to)
        if (from === to) {
          expect(r).toEqual({units: 1n, scale: 0})
          return
        }
        const f = parseDecimal(USD_RATES[from])
        const t = parseDecimal(USD_RATES[to])
        // |r − t/f| <= 0.5e-6: 2·|r.units·f.units·10^t.scale − t.units·10^(f.scale+6)| <= f.units·10^t.scale
        const lhs = r.units * f.units * 10n ** BigInt(t.scale)
        const rhs = t.units * 10n ** BigInt(f.scale + 6)
        const diff = lhs > rhs ? lhs - rhs : rhs - lhs
        expect(2n * diff <= f.units * 10n ** BigInt(t.scale)).toBe(true)
      }),
    )
  })
})
