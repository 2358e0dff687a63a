import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {ActivityItem, Subaccount, type Move} from './oracle.js'
import {startEmulator, type RunningEmulator} from '../src/index.js'
import {isValidRoutingNumber} from '../src/store/index.js'
import {caller, type ActivityLine, type Res, type SubaccountView} from './helpers.js'

let em: RunningEmulator

const call = caller(() => em)

async function newSubaccount(name: string, key?: string): Promise<SubaccountView> {
  const res = await call('POST', '/api/subaccounts', {body: {name}, key})
  expect(res.status).toBe(201)
  return res.body.data
}

async function move(from: string, to: string, amount: number): Promise<Move> {
  const res = await call('POST', '/api/subaccounts/move', {body: {from_subaccount_id: from, to_subaccount_id: to, amount_in_minor_units: amount}})
  expect(res.status).toBe(201)
  return res.body.data
}

function activityPath(id: string, query: Record<string, string | number> = {}): string {
  const qs = new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)])).toString()
  return `/api/subaccounts/${id}/activity${qs ? `?${qs}` : ''}`
}

/** Follows next_cursor to the end, checking every page's envelope. */
async function walk(id: string, query: Record<string, string | number>): Promise<{items: ActivityLine[]; pages: number; totals: number[]}> {
  const items: ActivityLine[] = []
  const totals: number[] = []
  let cursor: string | undefined
  let pages = 0
  for (;;) {
    const res = await call('GET', activityPath(id, cursor ? {...query, cursor} : query))
    expect(res.status).toBe(200)
    pages++
    items.push(...res.body.data)
    totals.push(res.body.total_count)
    if (!res.body.has_more) {
      expect(res.body.next_cursor).toBeNull()
      return {items, pages, totals}
    }
    expect(typeof res.body.next_cursor).toBe('string')
    cursor = res.body.next_cursor
  }
}

beforeAll(async () => {
  em = await startEmulator({port: 0})
})

afterAll(async () => {
  await em.close()
})

describe('POST /api/subaccounts', () => {
  it('creates a subaccount with virtual banking details, zero totals and the legacy fields', async () => {
    const before = Date.now()
    const s = await newSubaccount('Marketing')
    expect(s.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
    expect(s.name).toBe('Marketing')
    expect(s.account_number).toMatch(/^\d{12}$/)
    expect(isValidRoutingNumber(s.routing_numbers.ach)).toBe(true)
    expect(s.routing_numbers.wire).toBe(s.routing_numbers.ach)
    expect(s.routing_number).toBe(s.routing_numbers.ach)
    expect(s.total_incoming_in_minor_units).toBe(0)
    expect(s.total_outgoing_in_minor_units).toBe(0)
    expect(s.total_incoming_cents).toBe(0)
    expect(s.total_outgoing_cents).toBe(0)
    expect(s.currency_code).toBe('USD')
    expect(Date.parse(s.created_at)).toBeGreaterThanOrEqual(before - 1)
    expect(s.updated_at).toBe(s.created_at)
    // The client's own schema reads it without complaint.
    expect(Subaccount.parse(s).id).toBe(s.id)
  })

  it('assigns a distinct account number to every subaccount', async () => {
    const numbers = new Set<string>()
    for (let i = 0; i < 20; i++) numbers.add((await newSubaccount(`Batch ${i}`)).account_number)
    expect(numbers.size).toBe(20)
  })

  it('accepts names of 1 and 100 characters', async () => {
    expect((await newSubaccount('A')).name).toBe('A')
    expect((await newSubaccount('n'.repeat(100))).name).toHaveLength(100)
  })

  it.each([
    [{}, /^name: /],
    [{name: ''}, /^name: name must be 1 to 100 characters/],
    [{name: 'n'.repeat(101)}, /^name: name must be 1 to 100 characters/],
    [{name: 42}, /^name: /],
  ])('rejects %j with 400 VALIDATION_ERROR naming the field', async (body, message) => {
    const res = await call('POST', '/api/subaccounts', {body})
    expect(res.status).toBe(400)
    expect(res.body.error_code).toBe('VALIDATION_ERROR')
    expect(res.body.message).toMatch(message)
  })
})

describe('GET /api/subaccounts/{id}', () => {
  it('returns the subaccount, with totals after a move', async () => {
    const a = await newSubaccount('Get A')
    const b = await newSubaccount('Get B')
    await move(a.id, b.id, 1234)
    const ra = await call('GET', `/api/subaccounts/${a.id}`)
    expect(ra.status).toBe(200)
    expect(ra.body.data.total_outgoing_in_minor_units).toBe(1234)
    expect(ra.body.data.total_outgoing_cents).toBe(1234)
    expect(ra.body.data.total_incoming_in_minor_units).toBe(0)
    expect(Date.parse(ra.body.data.updated_at)).toBeGreaterThanOrEqual(Date.parse(a.updated_at))
    const rb = await call('GET', `/api/subaccounts/${b.id}`)
    expect(rb.body.data.total_incoming_in_minor_units).toBe(1234)
    expect(rb.body.data.total_incoming_cents).toBe(1234)
    expect(rb.body.data.account_number).toBe(b.account_number)
  })

  it('answers 404 NOT_FOUND for unknown, malformed and other entities\' ids', async () => {
    const mine = await newSubaccount('Scoped')
    const other = await call('GET', `/api/subaccounts/${mine.id}`, {key: em.keys.test_other})
    expect(other.status).toBe(404)
    expect(other.body.error_code).toBe('NOT_FOUND')
    expect((await call('GET', `/api/subaccounts/${mine.id}`, {key: em.keys.live})).status).toBe(404)
    expect((await call('GET', '/api/subaccounts/00000000-0000-4000-8000-000000000000')).status).toBe(404)
    expect((await call('GET', '/api/subaccounts/not-a-uuid')).status).toBe(404)
    expect((await call('GET', activityPath(mine.id), {key: em.keys.test_other})).status).toBe(404)
  })
})

describe('GET /api/subaccounts/{id}/activity', () => {
  let a: SubaccountView
  let b: SubaccountView
  const amounts: number[] = []

  beforeAll(async () => {
    a = await newSubaccount('Activity A')
    b = await newSubaccount('Activity B')
    // 120 moves: amounts 1..120; odd ones from a to b (debits on a), even ones from b to a.
    for (let i = 1; i <= 120; i++) {
      amounts.push(i)
      if (i % 2) await move(a.id, b.id, i)
      else await move(b.id, a.id, i)
    }
  })

  it('lists transfer lines newest first by default, shaped as the spec says', async () => {
    const res = await call('GET', activityPath(a.id, {limit: 5}))
    expect(res.status).toBe(200)
    expect(res.body.data).toHaveLength(5)
    expect(res.body.total_count).toBe(120)
    expect(res.body.has_more).toBe(true)
    expect(res.body.previous_cursor).toBeNull()
    const first = res.body.data[0]
    expect(Object.keys(first).sort()).toEqual(['amount_in_cents', 'currency_code', 'direction', 'effective_at', 'id', 'source'])
    expect(first).toMatchObject({source: 'transfer', direction: 'credit', amount_in_cents: 120, currency_code: 'USD'})
    expect(res.body.data.map((x: ActivityLine) => x.amount_in_cents)).toEqual([120, 119, 118, 117, 116])
    expect(res.body.data.map((x: ActivityLine) => x.direction)).toEqual(['credit', 'debit', 'credit', 'debit', 'credit'])
    expect(ActivityItem.parse(first).amount_in_minor_units).toBe(120)
  })

  it('pages through everything in both orders without duplicates or gaps', async () => {
    const desc = await walk(a.id, {limit: 50})
    expect(desc.pages).toBe(3)
    expect(desc.totals).toEqual([120, 120, 120])
    expect(desc.items.map((x) => x.amount_in_cents)).toEqual([...amounts].reverse())
    expect(new Set(desc.items.map((x) => x.id)).size).toBe(120)

    const asc = await walk(a.id, {limit: 7, order: 'asc'})
    expect(asc.pages).toBe(18)
    expect(asc.items.map((x) => x.amount_in_cents)).toEqual(amounts)
    const times = asc.items.map((x) => Date.parse(x.effective_at))
    expect(times).toEqual([...times].sort((x, y) => x - y))

    const whole = await call('GET', activityPath(a.id, {limit: 500}))
    expect(whole.body.data).toHaveLength(120)
    expect(whole.body.has_more).toBe(false)
  })

  it('goes back a page with previous_cursor', async () => {
    const p1 = await call('GET', activityPath(a.id, {limit: 10}))
    const p2 = await call('GET', activityPath(a.id, {limit: 10, cursor: p1.body.next_cursor}))
    expect(p2.body.data.map((x: ActivityLine) => x.amount_in_cents)).toEqual([110, 109, 108, 107, 106, 105, 104, 103, 102, 101])
    expect(typeof p2.body.previous_cursor).toBe('string')
    const back = await call('GET', activityPath(a.id, {limit: 10, cursor: p2.body.previous_cursor}))
    expect(back.status).toBe(200)
    expect(back.body.data.map((x: ActivityLine) => x.id)).toEqual(p1.body.data.map((x: ActivityLine) => x.id))
    expect(back.body.previous_cursor).toBeNull()
    expect(back.body.has_more).toBe(true)
  })

  it('filters by direction and amount, paging within the filter', async () => {
    const debits = await walk(a.id, {direction: 'debit', limit: 25, order: 'asc'})
    expect(debits.items.map((x) => x.amount_in_cents)).toEqual(amounts.filter((n) => n % 2 === 1))
    expect(debits.totals.every((t) => t === 60)).toBe(true)
    expect(debits.pages).toBe(3)

    const band = await walk(a.id, {amount_gte: 10, amount_lte: 19, limit: 4})
    expect(band.items.map((x) => x.amount_in_cents)).toEqual([19, 18, 17, 16, 15, 14, 13, 12, 11, 10])
    expect(band.totals[0]).toBe(10)

    const credits = await call('GET', activityPath(b.id, {direction: 'credit', amount_gte: 115}))
    expect(credits.body.data.map((x: ActivityLine) => x.amount_in_cents)).toEqual([119, 117, 115])
    expect(credits.body.total_count).toBe(3)
    expect(credits.body.has_more).toBe(false)
  })

  it('filters by effective_at, both bounds inclusive', async () => {
    const all = (await call('GET', activityPath(a.id, {limit: 500, order: 'asc'}))).body.data
    const pivot = all[60].effective_at
    const after = await call('GET', activityPath(a.id, {limit: 500, effective_at_gte: pivot}))
    expect(after.body.data.length).toBeGreaterThan(0)
    expect(after.body.data.every((x: ActivityLine) => Date.parse(x.effective_at) >= Date.parse(pivot))).toBe(true)
    expect(after.body.data.some((x: ActivityLine) => x.id === all[60].id)).toBe(true)
    const before = await call('GET', activityPath(a.id, {limit: 500, effective_at_lte: pivot}))
    expect(before.body.data.every((x: ActivityLine) => Date.parse(x.effective_at) <= Date.parse(pivot))).toBe(true)
    expect(after.body.total_count + before.body.total_count).toBeGreaterThanOrEqual(120)
    const none = await call('GET', activityPath(a.id, {effective_at_lte: '2000-01-01T00:00:00Z'}))
    expect(none.body).toEqual({data: [], has_more: false, total_count: 0, next_cursor: null, previous_cursor: null})
  })

  it.each([
    [{limit: 0}, 'limit'],
    [{limit: 501}, 'limit'],
    [{limit: 'ten'}, 'limit'],
    [{limit: 2.5}, 'limit'],
    [{order: 'newest'}, 'order'],
    [{direction: 'sideways'}, 'direction'],
    [{amount_gte: 'x'}, 'amount_gte'],
    [{amount_lte: 1.5}, 'amount_lte'],
    [{effective_at_gte: 'yesterday'}, 'effective_at_gte'],
    [{effective_at_lte: '2024-13-01T00:00:00Z'}, 'effective_at_lte'],
  ])('rejects the query %j with 400 naming %s', async (query, field) => {
    const res = await call('GET', activityPath(a.id, query as Record<string, string | number>))
    expect(res.status).toBe(400)
    expect(res.body.error_code).toBe('VALIDATION_ERROR')
    expect(res.body.message.startsWith(`${field}:`)).toBe(true)
  })

  it('rejects malformed cursors and cursors made for another order or filter set', async () => {
    for (const cursor of ['!!!', 'bm90IGEgY3Vyc29y', 'x'.repeat(300), Buffer.from('v1.n.desc.abc.x').toString('base64url')]) {
      const res = await call('GET', activityPath(a.id, {cursor}))
      expect(res.status).toBe(400)
      expect(res.body.error_code).toBe('VALIDATION_ERROR')
    }
    const page = await call('GET', activityPath(a.id, {limit: 3}))
    const otherOrder = await call('GET', activityPath(a.id, {limit: 3, order: 'asc', cursor: page.body.next_cursor}))
    expect(otherOrder.status).toBe(400)
    expect(otherOrder.body.message).toMatch(/order=desc/)
    const otherFilter = await call('GET', activityPath(a.id, {limit: 3, direction: 'debit', cursor: page.body.next_cursor}))
    expect(otherFilter.status).toBe(400)
    const otherList = await call('GET', activityPath(b.id, {limit: 3, cursor: page.body.next_cursor}))
    expect(otherList.status).toBe(400)
    // A different page size with the same cursor is fine.
    const resized = await call('GET', activityPath(a.id, {limit: 2, cursor: page.body.next_cursor}))
    expect(resized.body.data.map((x: ActivityLine) => x.amount_in_cents)).toEqual([117, 116])
  })

  it('is empty for a new subaccount, and shows bai2 lines added through the store (minor units only for non-USD)', async () => {
    const fresh = await newSubaccount('Fresh')
    const empty = await call('GET', activityPath(fresh.id))
    expect(empty.body).toEqual({data: [], has_more: false, total_count: 0, next_cursor: null, previous_cursor: null})

    const entity = em.store.entityByRole('test')!
    em.store.subaccounts.addActivity(entity, fresh.id, {source: 'bai2', direction: 'credit', amount_in_minor_units: 5000, effective_at: '2024-05-01T12:00:00.000Z'})
    em.store.subaccounts.addActivity(entity, fresh.id, {source: 'bai2', direction: 'credit', amount_in_minor_units: 777, currency_code: 'GBP'})
    const res = await call('GET', activityPath(fresh.id, {order: 'asc'}))
    expect(res.body.data).toHaveLength(2)
    expect(res.body.data[0]).toMatchObject({source: 'bai2', direction: 'credit', amount_in_cents: 5000, currency_code: 'USD', effective_at: '2024-05-01T12:00:00.000Z'})
    expect('amount_in_minor_units' in res.body.data[0]).toBe(false)
    expect(res.body.data[1]).toMatchObject({amount_in_cents: 777, amount_in_minor_units: 777, currency_code: 'GBP'})
  })
})
