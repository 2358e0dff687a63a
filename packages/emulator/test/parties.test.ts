import {createServer, type Server} from 'node:http'
import type {AddressInfo} from 'node:net'
import {jwtVerify} from 'jose'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {Party, Payin, SessionToken} from './oracle.js'
import {Faults, RequestLog, type AppContext} from '../src/app.js'
import {EventBus, type EmulatorEvent} from '../src/webhooks/events.js'
import {createRequestListener} from '../src/server/http.js'
import {Router} from '../src/server/router.js'
import {registerRoutes} from '../src/routes/index.js'
import {createSeededStore} from '../src/store/seed.js'
import {Store, type Entity} from '../src/store/index.js'
import {caller, type Res} from './helpers.js'

let server: Server
let base: string
let app: AppContext
let keys: {test: string; test_other: string; live: string}
const events: EmulatorEvent[] = []

const call = caller(() => ({baseUrl: base, keys}))

function qs(query: Record<string, string | number | boolean | undefined>): string {
  const entries = Object.entries(query).filter(([, v]) => v !== undefined) as Array<[string, string | number | boolean]>
  const s = new URLSearchParams(entries.map(([k, v]) => [k, String(v)])).toString()
  return s ? `?${s}` : ''
}

/** Follows next_cursor to the end. */
async function walk(path: string, query: Record<string, string | number | boolean | undefined>, key?: string): Promise<{items: Party[]; pages: number}> {
  const items: Party[] = []
  let cursor: string | undefined
  let pages = 0
  for (;;) {
    const res = await call('GET', path + qs({...query, cursor}), {key})
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    pages++
    items.push(...res.body.data)
    if (!res.body.has_more) {
      expect(res.body.next_cursor).toBeNull()
      return {items, pages}
    }
    cursor = res.body.next_cursor
  }
}

const entity = (role: 'test' | 'test_other' | 'live'): Entity => app.store.entityByRole(role)!
const expectError = (res: Res, status: number, code: string) => {
  expect(res.status, JSON.stringify(res.body)).toBe(status)
  expect(res.body.error_code).toBe(code)
}

beforeAll(async () => {
  app = {store: createSeededStore(), requests: new RequestLog(), faults: new Faults(), events: new EventBus(), log: () => undefined}
  app.events.on((e) => events.push(e))
  keys = app.store.keys()
  server = createServer(createRequestListener(registerRoutes(new Router(), app), app))
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})

afterAll(async () => {
  server.closeAllConnections()
  await new Promise((r) => server.close(r))
})

describe('GET /api/payers and /api/payees', () => {
  it('seeds several pages of parties in the test entity and a few elsewhere', () => {
    expect(entity('test').payers.size).toBe(250)
    expect(entity('test').payees.size).toBe(300)
    expect(entity('test_other').payees.size).toBeGreaterThan(0)
    expect(entity('live').payers.size).toBeGreaterThan(0)
  })

  for (const kind of ['payers', 'payees'] as const) {
    it(`${kind}: default page of 50, newest first, the spec's fields only, total_count`, async () => {
      const res = await call('GET', `/api/${kind}`)
      expect(res.status).toBe(200)
      expect(res.body.data).toHaveLength(50)
      expect(res.body.has_more).toBe(true)
      expect(res.body.total_count).toBe(entity('test')[kind].size)
      const times = res.body.data.map((p: Party) => Date.parse(p.created_at))
      expect([...times].sort((a, b) => b - a)).toEqual(times)
      for (const p of res.body.data) {
        expect(Party.safeParse(p).success).toBe(true)
        expect(Object.keys(p).every((k) => ['id', 'name', 'email', 'country_code', 'country_sub_division', 'city', 'address_line', 'postal_code', 'client_metadata', 'created_at', 'updated_at'].includes(k))).toBe(true)
      }
    })

    it(`${kind}: pages for real at limit 100, both orders, no duplicates`, async () => {
      const size = entity('test')[kind].size
      const desc = await walk(`/api/${kind}`, {limit: 100})
      expect(desc.pages).toBe(Math.ceil(size / 100))
      expect(desc.pages).toBeGreaterThanOrEqual(3)
      expect(new Set(desc.items.map((p) => p.id)).size).toBe(size)
      const asc = await walk(`/api/${kind}`, {limit: 100, order: 'asc'})
      expect(asc.items.map((p) => p.id)).toEqual([...desc.items].reverse().map((p) => p.id))
    })
  }

  it('limit 500 is accepted for payers; 0, 501 and non-numbers are 400 VALIDATION_ERROR', async () => {
    const all = await call('GET', '/api/payers?limit=500')
    expect(all.status).toBe(200)
    expect(all.body.data).toHaveLength(250)
    expect(all.body.has_more).toBe(false)
    for (const bad of ['0', '501', 'ten', '-1']) expectError(await call('GET', `/api/payers?limit=${bad}`), 400, 'VALIDATION_ERROR')
  })

  it('name and email match part of the value, ignoring case', async () => {
    const sample = entity('test').payees.items[17]
    const part = sample.name.split(' ')[0].slice(1, 4).toUpperCase()
    const {items} = await walk('/api/payees', {name: part, limit: 100})
    const expected = entity('test').payees.items.filter((p) => p.name.toLowerCase().includes(part.toLowerCase()))
    expect(items.map((p) => p.id).sort()).toEqual(expected.map((p) => p.id).sort())
    expect(items.map((p) => p.id)).toContain(sample.id)
    const domain = await walk('/api/payees', {email: 'EXAMPLE.NET', limit: 500})
    expect(domain.items.length).toBe(entity('test').payees.items.filter((p) => p.email.includes('example.net')).length)
    expect(domain.items.every((p) => p.email.includes('example.net'))).toBe(true)
  })

  it('has_default true and false split the list', async () => {
    const yes = await walk('/api/payers', {has_default: true, limit: 100})
    const no = await walk('/api/payers', {has_default: false, limit: 100})
    const truth = entity('test').payers.items.filter((p) => p.default_payment_method !== null).map((p) => p.id)
    expect(yes.items.map((p) => p.id).sort()).toEqual(truth.sort())
    expect(yes.items.length + no.items.length).toBe(250)
    expect(no.items.some((p) => truth.includes(p.id))).toBe(false)
    expectError(await call('GET', '/api/payers?has_default=maybe'), 400, 'VALIDATION_ERROR')
  })

  it('created_at_gte and created_at_lte are inclusive whole UTC days', async () => {
    const p = entity('test').payees.items[100]
    const day = p.created_at.slice(0, 10)
    const sameDay = await walk('/api/payees', {created_at_gte: day, created_at_lte: day})
    expect(sameDay.items.map((x) => x.id)).toContain(p.id)
    expect(sameDay.items.every((x) => x.created_at.startsWith(day))).toBe(true)
    const next = new Date(Date.parse(`${day}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10)
    const prev = new Date(Date.parse(`${day}T00:00:00Z`) - 86_400_000).toISOString().slice(0, 10)
    expect((await walk('/api/payees', {created_at_gte: next})).items.map((x) => x.id)).not.toContain(p.id)
    expect((await walk('/api/payees', {created_at_lte: prev})).items.map((x) => x.id)).not.toContain(p.id)
    const range = await walk('/api/payees', {created_at_gte: prev, created_at_lte: next, limit: 500})
    const expected = entity('test').payees.items.filter((x) => x.created_at.slice(0, 10) >= prev && x.created_at.slice(0, 10) <= next)
    expect(range.items.length).toBe(expected.length)
    for (const bad of ['2025-02-30', '2025/01/01', '2025-01-01T00:00:00Z']) expectError(await call('GET', `/api/payees?created_at_gte=${bad}`), 400, 'VALIDATION_ERROR')
  })

  it('a cursor only works with the filters and order it was made for', async () => {
    const first = await call('GET', '/api/payers?limit=10&name=a')
    expect(first.body.has_more).toBe(true)
    expectError(await call('GET', `/api/payers?limit=10&name=b&cursor=${first.body.next_cursor}`), 400, 'VALIDATION_ERROR')
    expectError(await call('GET', `/api/payers?limit=10&name=a&order=asc&cursor=${first.body.next_cursor}`), 400, 'VALIDATION_ERROR')
    expectError(await call('GET', `/api/payees?limit=10&name=a&cursor=${first.body.next_cursor}`), 400, 'VALIDATION_ERROR')
    expect((await call('GET', `/api/payers?limit=10&name=a&cursor=${first.body.next_cursor}`)).status).toBe(200)
  })

  it('lists are scoped to the caller\'s entity and need a valid key', async () => {
    const other = await walk('/api/payees', {}, keys.test_other)
    expect(other.items.map((p) => p.id).sort()).toEqual(entity('test_other').payees.items.map((p) => p.id).sort())
    expectError(await call('GET', '/api/payees', {key: null}), 401, 'AUTHENTICATION_ERROR')
    expectError(await call('GET', '/api/payers', {key: 'test_nope'}), 401, 'AUTHENTICATION_ERROR')
  })
})

describe('GET /api/payees/{id}', () => {
  it('returns the payee wrapped in data', async () => {
    const p = entity('test').payees.items[3]
    const res = await call('GET', `/api/payees/${p.id}`)
    expect(res.status).toBe(200)
    expect(Party.parse(res.body.data)).toMatchObject({id: p.id, name: p.name, email: p.email})
  })

  it('unknown, malformed or another entity\'s payee is 404 PAYEE_NOT_FOUND', async () => {
    expectError(await call('GET', '/api/payees/00000000-0000-4000-8000-000000000000'), 404, 'PAYEE_NOT_FOUND')
    expectError(await call('GET', '/api/payees/nope'), 404, 'PAYEE_NOT_FOUND')
    expectError(await call('GET', `/api/payees/${entity('test_other').payees.items[0].id}`), 404, 'PAYEE_NOT_FOUND')
    expectError(await call('GET', `/api/payees/${entity('test').payers.items[0].id}`), 404, 'PAYEE_NOT_FOUND')
  })
})

describe('control API: parties', () => {
  it('adds generated parties (newest first in the list) and explicit records with has_default', async () => {
    const gen = await call('POST', '/_emulator/payers', {key: null, body: {count: 3}})
    expect(gen.status).toBe(201)
    expect(gen.body.ids).toHaveLength(3)
    const top = await call('GET', '/api/payers?limit=3')
    expect(top.body.data.map((p: Party) => p.id).sort()).toEqual([...gen.body.ids].sort())

    const rec = await call('POST', '/_emulator/payees', {
      key: null,
      body: {entity: 'test_other', records: [{name: 'Zed Quux', email: 'zed@quux.example', country_code: 'IN', has_default: true}, {name: 'Zed Other', email: 'other@quux.example'}]},
    })
    expect(rec.status).toBe(201)
    expect(rec.body.entity).toBe('test_other')
    expect(rec.body.data.map((p: Party & {has_default: boolean}) => p.has_default)).toEqual([true, false])
    const found = await walk('/api/payees', {name: 'zed', has_default: true}, keys.test_other)
    expect(found.items.map((p) => p.id)).toEqual([rec.body.ids[0]])
    expect(found.items[0]).toMatchObject({country_code: 'IN', city: null, postal_code: null})
    expect(found.items[0]).not.toHaveProperty('has_default')
  })

  it('rejects bad bodies with 400', async () => {
    for (const body of [{}, {count: 0}, {entity: 'prod', count: 1}, {records: [{name: 'x', email: 'not-an-email'}]}, {records: [{name: '', email: 'a@b.co'}]}, {records: [{name: 'x', email: 'a@b.co', country_code: 'FR'}]}]) {
      expectError(await call('POST', '/_emulator/payers', {key: null, body}), 400, 'VALIDATION_ERROR')
    }
  })
})

describe('payins', () => {
  const createPayin = async (body: Record<string, unknown>) => {
    const res = await call('POST', '/_emulator/payins', {key: null, body})
    expect(res.status, JSON.stringify(res.body)).toBe(201)
    return res.body.data
  }

  it('seeded payins can be read by their entity and carry the spec fields', async () => {
    const seeded = entity('test').payins.items
    expect(seeded.length).toBeGreaterThan(0)
    for (const p of seeded) {
      const res = await call('GET', `/api/payins/${p.id}`)
      expect(res.status).toBe(200)
      const v = Payin.parse(res.body.data)
      expect(v.amount_in_cents).toBe(v.amount_in_minor_units)
      expect(['standard_ach', 'same_day_ach']).toContain(v.rail)
      const e2e = v.payin_metadata?.payment_method?.end_to_end_id
      if (['initiated', 'debited', 'settled'].includes(v.status)) expect(e2e).toMatch(/^\d{15}$/)
      if (['created', 'approved', 'canceled'].includes(v.status)) expect(e2e).toBeUndefined()
    }
  })

  it('creates a payin for a payer with a default payment method, with the payer snapshot', async () => {
    const payer = entity('test').payers.items.find((p) => p.default_payment_method)!
    const p = await createPayin({payer_id: payer.id, amount_in_minor_units: 123456, rail: 'same_day_ach', scheduled_date: '2027-01-04', client_metadata: {invoice: 'INV-1'}})
    expect(p).toMatchObject({
      payer_id: payer.id,
      amount_in_minor_units: 123456,
      amount_in_cents: 123456,
      currency_code: 'USD',
      rail: 'same_day_ach',
      status: 'created',
      scheduled_date: '2027-01-04',
      client_metadata: {invoice: 'INV-1'},
      payin_metadata: {payment_method: payer.default_payment_method, payer: {name: payer.name, email: payer.email}},
    })
    expect(p.payin_metadata.payment_method).not.toHaveProperty('end_to_end_id')
    const got = await call('GET', `/api/payins/${p.id}`)
    expect(got.body.data).toEqual(p)
  })

  it('rejects bad create bodies', async () => {
    const noDefault = entity('test').payers.items.find((p) => !p.default_payment_method)!
    expectError(await call('POST', '/_emulator/payins', {key: null, body: {payer_id: noDefault.id, amount_in_minor_units: 100}}), 400, 'VALIDATION_ERROR')
    expectError(await call('POST', '/_emulator/payins', {key: null, body: {amount_in_minor_units: 0}}), 400, 'VALIDATION_ERROR')
    expectError(await call('POST', '/_emulator/payins', {key: null, body: {amount_in_minor_units: 1.5}}), 400, 'VALIDATION_ERROR')
    expectError(await call('POST', '/_emulator/payins', {key: null, body: {amount_in_minor_units: 100, rail: 'wire'}}), 400, 'VALIDATION_ERROR')
    expectError(await call('POST', '/_emulator/payins', {key: null, body: {amount_in_minor_units: 100, currency_code: 'GBP'}}), 400, 'VALIDATION_ERROR')
    expectError(await call('POST', '/_emulator/payins', {key: null, body: {amount_in_minor_units: 100, payer_id: 'nope'}}), 404, 'NOT_FOUND')
  })

  it('advances step by step, assigns end_to_end_id on initiation and emits payin.settled', async () => {
    const p = await createPayin({amount_in_minor_units: 5000})
    const advance = (status: string) => call('POST', `/_emulator/payins/${p.id}/advance`, {key: null, body: {status}})
    expect((await advance('approved')).body.data.status).toBe('approved')
    const initiated = await advance('initiated')
    const e2e = initiated.body.data.payin_metadata.payment_method.end_to_end_id
    expect(e2e).toMatch(/^\d{15}$/)
    expect((await advance('debited')).body.data.payin_metadata.payment_method.end_to_end_id).toBe(e2e)
    const before = events.length
    const settled = await advance('settled')
    expect(settled.body.data.status).toBe('settled')
    expect(settled.body.data.status_recorded_at >= settled.body.data.created_at).toBe(true)
    expect(events.slice(before)).toMatchObject([{type: 'payin.settled', data: {payin_id: p.id}, entity_id: entity('test').id}])
    expectError(await advance('failed'), 409, 'INVALID_STATE_TRANSITION')
  })

  it('walks the happy path to a later state; failed emits payin.failed; illegal moves are 409', async () => {
    const p = await createPayin({amount_in_minor_units: 7000})
    const advance = (status: string) => call('POST', `/_emulator/payins/${p.id}/advance`, {key: null, body: {status}})
    expectError(await advance('failed'), 409, 'INVALID_STATE_TRANSITION')
    const walked = await advance('debited')
    expect(walked.body.transitions).toEqual(['created->approved', 'approved->initiated', 'initiated->debited'])
    expectError(await advance('canceled'), 409, 'INVALID_STATE_TRANSITION')
    expectError(await advance('approved'), 409, 'INVALID_STATE_TRANSITION')
    const before = events.length
    expect((await advance('failed')).body.data.status).toBe('failed')
    expect(events.slice(before).map((e) => e.type)).toEqual(['payin.failed'])
    expectError(await advance('bogus'), 400, 'VALIDATION_ERROR')
    expectError(await call('POST', '/_emulator/payins/nope/advance', {key: null, body: {status: 'approved'}}), 404, 'PAYIN_NOT_FOUND')
  })

  it('canceled from created or approved', async () => {
    const a = await createPayin({amount_in_minor_units: 1})
    expect((await call('POST', `/_emulator/payins/${a.id}/advance`, {key: null, body: {status: 'canceled'}})).body.data.status).toBe('canceled')
    const b = await createPayin({amount_in_minor_units: 1})
    await call('POST', `/_emulator/payins/${b.id}/advance`, {key: null, body: {status: 'approved'}})
    expect((await call('POST', `/_emulator/payins/${b.id}/advance`, {key: null, body: {status: 'canceled'}})).body.data.status).toBe('canceled')
  })

  it('another entity\'s or an unknown payin is 404 PAYIN_NOT_FOUND', async () => {
    const live = await createPayin({entity: 'live', amount_in_minor_units: 100})
    expectError(await call('GET', `/api/payins/${live.id}`), 404, 'PAYIN_NOT_FOUND')
    expect((await call('GET', `/api/payins/${live.id}`, {key: keys.live})).status).toBe(200)
    expectError(await call('GET', '/api/payins/00000000-0000-4000-8000-000000000000'), 404, 'PAYIN_NOT_FOUND')
    expectError(await call('GET', `/api/payins/${live.id}`, {key: null}), 401, 'AUTHENTICATION_ERROR')
    const listed = await call('GET', '/_emulator/payins?entity=live', {key: null})
    expect(listed.body.data[0].id).toBe(live.id)
  })
})

describe('session tokens', () => {
  const key = () => new Uint8Array(Buffer.from(app.store.tokens.signingSecret(), 'hex'))

  it('POST /api/session-tokens answers bare with a verifiable HS256 JWT for the payee', async () => {
    const payee = entity('test').payees.items[0]
    const res = await call('POST', '/api/session-tokens', {body: {payee_id: payee.id}})
    expect(res.status).toBe(200)
    expect(res.body).not.toHaveProperty('data')
    const t = SessionToken.parse(res.body)
    expect(t.scopes).toEqual(['list_methods', 'add_method', 'set_default', 'delete_method', 'view_payee'])
    expect(t.expires_in_seconds).toBe(900)
    const {payload, protectedHeader} = await jwtVerify(t.token, key(), {issuer: 'payops-emulator'})
    expect(protectedHeader.alg).toBe('HS256')
    expect(payload).toMatchObject({sub: payee.id, party_type: 'payee', entity_id: entity('test').id, scopes: t.scopes})
    expect(payload.exp! - payload.iat!).toBe(900)
    expect(typeof payload.jti).toBe('string')
  })

  it('POST /api/session-tokens/party answers wrapped, with scopes per party type', async () => {
    const cases = [
      ['payee', entity('test').payees.items[1].id, ['payee_manage']],
      ['payer', entity('test').payers.items[1].id, ['payer_manage']],
      ['external', '5a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d', ['external_manage']],
    ] as const
    const jtis = new Set<unknown>()
    for (const [type, id, scopes] of cases) {
      const res = await call('POST', '/api/session-tokens/party', {body: {party_id: id, party_type: type}})
      expect(res.status, JSON.stringify(res.body)).toBe(200)
      const t = SessionToken.parse(res.body.data)
      expect(t.scopes).toEqual(scopes)
      const {payload} = await jwtVerify(t.token, key())
      expect(payload).toMatchObject({sub: id, party_type: type, scopes})
      jtis.add(payload.jti)
    }
    expect(jtis.size).toBe(3)
  })

  it('the party must be the caller\'s: 404 PAYEE_NOT_FOUND for payees, 404 NOT_FOUND for payers', async () => {
    const otherPayee = entity('test_other').payees.items[0].id
    const otherPayer = entity('test_other').payers.items[0].id
    expectError(await call('POST', '/api/session-tokens', {body: {payee_id: otherPayee}}), 404, 'PAYEE_NOT_FOUND')
    expectError(await call('POST', '/api/session-tokens', {body: {payee_id: entity('test').payers.items[0].id}}), 404, 'PAYEE_NOT_FOUND')
    expectError(await call('POST', '/api/session-tokens/party', {body: {party_id: otherPayee, party_type: 'payee'}}), 404, 'PAYEE_NOT_FOUND')
    expectError(await call('POST', '/api/session-tokens/party', {body: {party_id: otherPayer, party_type: 'payer'}}), 404, 'NOT_FOUND')
    expectError(await call('POST', '/api/session-tokens/party', {body: {party_id: entity('test').payees.items[0].id, party_type: 'payer'}}), 404, 'NOT_FOUND')
  })

  it('bad UUIDs, missing fields and bad party types are 400 VALIDATION_ERROR', async () => {
    for (const body of [{}, {payee_id: 'nope'}, {payee_id: 42}]) expectError(await call('POST', '/api/session-tokens', {body}), 400, 'VALIDATION_ERROR')
    const id = entity('test').payers.items[0].id
    for (const body of [{party_id: id}, {party_type: 'payer'}, {party_id: 'x', party_type: 'payer'}, {party_id: id, party_type: 'vendor'}]) {
      expectError(await call('POST', '/api/session-tokens/party', {body}), 400, 'VALIDATION_ERROR')
    }
  })

  it('needs a full-access API key: 401 without, 403 with a read-only key', async () => {
    const payee = entity('test').payees.items[0].id
    expectError(await call('POST', '/api/session-tokens', {key: null, body: {payee_id: payee}}), 401, 'AUTHENTICATION_ERROR')
    const ro = app.store.issueKey(entity('test'), {readOnly: true}).key
    expectError(await call('POST', '/api/session-tokens', {key: ro, body: {payee_id: payee}}), 403, 'AUTHORIZATION_ERROR')
    expectError(await call('POST', '/api/session-tokens/party', {key: ro, body: {party_id: payee, party_type: 'payee'}}), 403, 'AUTHORIZATION_ERROR')
  })
})

describe('persistence', () => {
  it('parties, payins and the signing secret survive a save and load', () => {
    const secret = app.store.tokens.signingSecret()
    const loaded = Store.fromJSON(JSON.parse(JSON.stringify(app.store)))
    expect(loaded.tokens.signingSecret()).toBe(secret)
    const e = loaded.entityByRole('test')!
    expect(e.payers.items.map((p) => p.id)).toEqual(entity('test').payers.items.map((p) => p.id))
    expect(e.payees.get(entity('test').payees.items[5].id)?.default_payment_method).toEqual(entity('test').payees.items[5].default_payment_method)
    expect(e.payins.size).toBe(entity('test').payins.size)
  })
})
