/** The seeded world's payers, payees and payins, and the payin transitions. */
import {describe, expect, it} from 'vitest'
import {payinPath} from '../src/routes/payins.js'
import {generateParty, mulberry32, seedParties, seededRand, seededRoutingNumber, seededUuid} from '../src/store/seed-parties.js'
import {Store, isValidRoutingNumber} from '../src/store/index.js'

describe('seeded parties and payins', () => {
  it('the generator is deterministic per label', () => {
    const a = seededRand('test:payer')
    const b = seededRand('test:payer')
    const c = seededRand('test:payee')
    const xs = Array.from({length: 5}, () => a())
    expect(Array.from({length: 5}, () => b())).toEqual(xs)
    expect(Array.from({length: 5}, () => c())).not.toEqual(xs)
    for (const x of xs) expect(x >= 0 && x < 1).toBe(true)
  })

  it('generates v4-shaped UUIDs, valid routing numbers and well-formed parties', () => {
    const r = mulberry32(42)
    for (let i = 0; i < 50; i++) {
      expect(seededUuid(r)).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
      expect(isValidRoutingNumber(seededRoutingNumber(r))).toBe(true)
      const p = generateParty(r, i)
      expect(p.email).toMatch(/^[^@\s]+@[^@\s]+\.[a-z]+$/)
      expect(p.name.length).toBeGreaterThan(0)
      expect([null, 'US', 'GB', 'IN']).toContain(p.country_code)
    }
  })

  it('seeds the same ids and names on every run, in created_at order, spread over ~2 years', () => {
    const now = Date.parse('2026-06-15T12:00:00Z')
    const seed = () => {
      const s = new Store()
      const e = s.addEntity({role: 'test', name: 'T', mode: 'test'})
      seedParties(s, e, 'test', now)
      return e
    }
    const a = seed()
    const b = seed()
    expect(a.payers.size).toBe(250)
    expect(a.payees.size).toBe(300)
    expect(a.payers.items.map((p) => [p.id, p.name, p.email])).toEqual(b.payers.items.map((p) => [p.id, p.name, p.email]))
    expect(a.payins.items.map((p) => p.id)).toEqual(b.payins.items.map((p) => p.id))
    const times = a.payees.items.map((p) => Date.parse(p.created_at))
    expect([...times].sort((x, y) => x - y)).toEqual(times)
    expect(Math.max(...times)).toBeLessThan(Date.parse('2026-06-15T00:00:00Z'))
    expect(Math.min(...times)).toBeGreaterThan(now - 731 * 86_400_000)
    expect(Math.min(...times)).toBeLessThan(now - 600 * 86_400_000)
    const withDefault = a.payers.items.filter((p) => p.default_payment_method).length
    expect(withDefault).toBeGreaterThan(50)
    expect(withDefault).toBeLessThan(250)
    expect(new Set(a.payers.items.map((p) => p.country_code)).size).toBe(4)
  })
})

describe('payin transitions', () => {
  it('allows the documented single steps', () => {
    expect(payinPath('created', 'approved')).toEqual(['approved'])
    expect(payinPath('created', 'canceled')).toEqual(['canceled'])
    expect(payinPath('approved', 'canceled')).toEqual(['canceled'])
    for (const from of ['approved', 'initiated', 'debited'] as const) expect(payinPath(from, 'failed')).toEqual(['failed'])
    expect(payinPath('debited', 'settled')).toEqual(['settled'])
  })

  it('walks forward along the happy path', () => {
    expect(payinPath('created', 'settled')).toEqual(['approved', 'initiated', 'debited', 'settled'])
    expect(payinPath('approved', 'debited')).toEqual(['initiated', 'debited'])
  })

  it('refuses everything else', () => {
    expect(payinPath('created', 'failed')).toBeUndefined()
    expect(payinPath('initiated', 'canceled')).toBeUndefined()
    expect(payinPath('settled', 'failed')).toBeUndefined()
    expect(payinPath('debited', 'approved')).toBeUndefined()
    expect(payinPath('canceled', 'approved')).toBeUndefined()
    expect(payinPath('created', 'created')).toBeUndefined()
  })
})
