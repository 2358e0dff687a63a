import fc from 'fast-check'
import {describe, expect, it} from 'vitest'
import {MinorTotal} from '../../src/api/schemas/common.js'
import {Subaccount} from '../../src/api/schemas/subaccounts.js'
import {parseJson, toJson} from '../../src/json.js'
import {exactMinor, formatMoney, subtractMinor, sumMinor} from '../../src/money.js'

const MAX = Number.MAX_SAFE_INTEGER

describe('parseJson keeps integers exact', () => {
  it('reads integers past 2^53 (either sign) as BigInt, everything else as JSON.parse does', () => {
    expect(parseJson('{"a":9007199254740993,"b":-9007199254740993,"c":9007199254740992}')).toEqual({a: 9007199254740993n, b: -9007199254740993n, c: 9007199254740992n})
    expect(parseJson(`{"safe":${MAX},"neg":-${MAX},"f":1.5,"e":1e3,"big_float":12345678901234567.5,"s":"9007199254740993","n":null}`)).toEqual({
      safe: MAX,
      neg: -MAX,
      f: 1.5,
      e: 1000,
      big_float: 12345678901234567.5,
      s: '9007199254740993',
      n: null,
    })
    expect(parseJson('[1234567890123456789012345678901234567890]')).toEqual([1234567890123456789012345678901234567890n])
    // Without a long run of digits the text goes to JSON.parse as it is.
    expect(parseJson('{"a":[1,2,{"b":"c"}],"d":true}')).toEqual({a: [1, 2, {b: 'c'}], d: true})
  })

  it('refuses what JSON.parse refuses, with or without long numbers; a __proto__ key stays data', () => {
    for (const bad of ['{"a":', '{"a":9007199254740993,}', '[9007199254740993', 'nul', '']) expect(() => parseJson(bad)).toThrow()
    const v = parseJson('{"__proto__":{"polluted":9007199254740993}}') as Record<string, unknown>
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
    expect(Object.getPrototypeOf(v)).toBe(Object.prototype)
  })

  it('agrees with JSON.parse on any JSON without unsafe integers (property)', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        // fc.jsonValue draws any double, ±2^53 among them: those are what parseJson keeps as BigInt.
        fc.pre(!hasUnsafeInteger(v))
        const text = JSON.stringify(v)
        expect(parseJson(text)).toEqual(JSON.parse(text))
      }),
    )
  })

  it('round-trips any integer of signed 64 bits exactly through toJson (property)', () => {
    fc.assert(
      fc.property(fc.bigInt({min: -(2n ** 63n), max: 2n ** 63n - 1n}), fc.string(), (n, s) => {
        const text = toJson({n, s, list: [n]})
        expect(text).toBe(`{"n":${n},"s":${JSON.stringify(s)},"list":[${n}]}`)
        const back = parseJson(text) as {n: unknown; s: string}
        expect(BigInt(back.n as bigint | number)).toBe(n)
        expect(typeof back.n).toBe(Number.isSafeInteger(Number(n)) && BigInt(Number(n)) === n ? 'number' : 'bigint')
        expect(back.s).toBe(s)
      }),
    )
  })

  it('toJson is JSON.stringify where there is no BigInt, indentation included; a cycle still throws', () => {
    const v = {a: [1, {b: 'x\u0000\u2028'}], u: undefined, d: new Date(0), e: []}
    expect(toJson(v)).toBe(JSON.stringify(v))
    expect(toJson(v, 2)).toBe(JSON.stringify(v, null, 2))
    expect(toJson({n: 9007199254740993n, e: [], o: {}}, 2)).toBe('{\n  "n": 9007199254740993,\n  "e": [],\n  "o": {}\n}')
    const cyclic: Record<string, unknown> = {}
    cyclic.self = cyclic
    expect(() => toJson(cyclic)).toThrow(TypeError)
  })
})

describe('money arithmetic on totals', () => {
  it('subtracts and sums in BigInt: a number while safe, a BigInt past 2^53', () => {
    expect(subtractMinor(9007199254740993n, 1)).toBe(9007199254740992n)
    expect(subtractMinor(9007199254740993n, 2)).toBe(MAX)
    expect(subtractMinor(1, 9007199254740995n)).toBe(-9007199254740994n)
    expect(subtractMinor(500, 200)).toBe(300)
    expect(sumMinor([MAX, MAX, 2])).toBe(18014398509481984n)
    expect(sumMinor([MAX, 1, -1])).toBe(MAX)
    expect(sumMinor([])).toBe(0)
    expect(exactMinor(-BigInt(MAX))).toBe(-MAX)
    expect(formatMoney(subtractMinor(9007199254740993n, 1), 'USD')).toBe('90,071,992,547,409.92 USD')
    expect(formatMoney(sumMinor([MAX, MAX]), 'JPY')).toBe('18,014,398,509,481,982 JPY')
  })

  it('a subaccount total is a safe integer or a BigInt within signed 64 bits', () => {
    expect(MinorTotal.safeParse(9007199254740993n).success).toBe(true)
    expect(MinorTotal.safeParse(2n ** 63n - 1n).success).toBe(true)
    expect(MinorTotal.safeParse(2n ** 63n).success).toBe(false)
    expect(MinorTotal.safeParse(-(2n ** 63n) - 1n).success).toBe(false)
    expect(MinorTotal.safeParse(1.5).success).toBe(false)
    expect(MinorTotal.safeParse(2 ** 60).success).toBe(false)
    const sub = Subaccount.parse(parseJson(`{"id":"s","name":"n","total_incoming_cents":9007199254740993,"total_outgoing_cents":7}`))
    expect(sub).toMatchObject({total_incoming_in_minor_units: 9007199254740993n, total_outgoing_in_minor_units: 7})
  })
})

/** Whether a JSON value holds an integer past Number.MAX_SAFE_INTEGER in magnitude. */
function hasUnsafeInteger(v: unknown): boolean {
  if (typeof v === 'number') return Number.isInteger(v) && !Number.isSafeInteger(v)
  if (Array.isArray(v)) return v.some(hasUnsafeInteger)
  if (v && typeof v === 'object') return Object.values(v).some(hasUnsafeInteger)
  return false
}
