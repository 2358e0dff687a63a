import {afterAll, beforeAll, beforeEach, describe, expect, it} from 'vitest'
import {Move} from './oracle.js'
import {startEmulator, type RunningEmulator} from '../src/index.js'
import {caller, type Res} from './helpers.js'

let em: RunningEmulator

const call = caller(() => em)

let seq = 0
async function newSubaccount(key?: string): Promise<string> {
  const res = await call('POST', '/api/subaccounts', {key, body: {name: `Sub ${++seq}`}})
  expect(res.status).toBe(201)
  return res.body.data.id
}

/** Two fresh subaccounts of the test entity, so each test sees its own totals. */
async function pair(): Promise<[string, string]> {
  return [await newSubaccount(), await newSubaccount()]
}

function createMove(body: Record<string, unknown>, opts: {key?: string; idem?: string} = {}): Promise<Res> {
  return call('POST', '/api/subaccounts/move', {body, key: opts.key, headers: opts.idem === undefined ? {} : {'idempotency-key': opts.idem}})
}

async function totals(id: string): Promise<{in: number; out: number}> {
  const res = await call('GET', `/api/subaccounts/${id}`)
  expect(res.status).toBe(200)
  return {in: res.body.data.total_incoming_in_minor_units, out: res.body.data.total_outgoing_in_minor_units}
}

async function activityCount(id: string): Promise<number> {
  return (await call('GET', `/api/subaccounts/${id}/activity`)).body.total_count
}

const failNext = async (count?: number) => {
  const res = await call('POST', '/_emulator/fail-next-settlement', {key: null, body: count === undefined ? {} : {count}})
  expect(res.status).toBe(200)
  return res.body
}

let idemCounter = 0
const newKey = () => `idem-${Date.now()}-${++idemCounter}`

beforeAll(async () => {
  em = await startEmulator({port: 0})
})

beforeEach(async () => {
  await failNext(0)
})

afterAll(async () => {
  await em.close()
})

describe('create', () => {
  it('auto-approves by default: settled in one request, 201, totals and activity booked', async () => {
    const [a, b] = await pair()
    const res = await createMove({from_subaccount_id: a, to_subaccount_id: b, amount_in_minor_units: 2500, client_metadata: {invoice: 'INV-1'}})
    expect(res.status).toBe(201)
    const m = res.body.data
    expect(Object.keys(m).sort()).toEqual(
      ['amount_in_cents', 'amount_in_minor_units', 'client_metadata', 'created_at', 'currency_code', 'from_subaccount_id', 'id', 'status', 'status_recorded_at', 'to_subaccount_id', 'updated_at'],
    )
    expect(m).toMatchObject({from_subaccount_id: a, to_subaccount_id: b, amount_in_minor_units: 2500, amount_in_cents: 2500, currency_code: 'USD', status: 'settled', client_metadata: {invoice: 'INV-1'}})
    expect(res.body.warning).toBeUndefined()
    expect(Move.parse(m).status).toBe('settled')
    expect(await totals(a)).toEqual({in: 0, out: 2500})
    expect(await totals(b)).toEqual({in: 2500, out: 0})
    const debit = (await call('GET', `/api/subaccounts/${a}/activity`)).body.data[0]
    expect(debit).toMatchObject({source: 'transfer', direction: 'debit', amount_in_cents: 2500})
    expect(Date.parse(debit.effective_at)).toBe(Date.parse(m.status_recorded_at))
    const credit = (await call('GET', `/api/subaccounts/${b}/activity`)).body.data[0]
    expect(credit).toMatchObject({source: 'transfer', direction: 'credit', amount_in_cents: 2500})
  })

  it('with auto_approve false leaves the move created, books nothing, and returns {} metadata', async () => {
    const [a, b] = await pair()
    const res = await createMove({from_subaccount_id: a, to_subaccount_id: b, amount_in_minor_units: 10, auto_approve: false})
    expect(res.status).toBe(201)
    expect(res.body.data.status).toBe('created')
    expect(res.body.data.client_metadata).toEqual({})
    expect(await totals(a)).toEqual({in: 0, out: 0})
    expect(await activityCount(a)).toBe(0)
  })

  it('does not check the source balance: a subaccount can go negative', async () => {
    const [a, b] = await pair()
    const res = await createMove({from_subaccount_id: a, to_subaccount_id: b, amount_in_minor_units: 999_999_999})
    expect(res.status).toBe(201)
    const t = await totals(a)
    expect(t.in - t.out).toBe(-999_999_999)
  })

  it('accepts the deprecated amount_in_cents alias and returns both names', async () => {
    const [a, b] = await pair()
    const res = await createMove({from_subaccount_id: a, to_subaccount_id: b, amount_in_cents: 4321})
    expect(res.status).toBe(201)
    expect(res.body.data.amount_in_minor_units).toBe(4321)
    expect(res.body.data.amount_in_cents).toBe(4321)
    const both = await createMove({from_subaccount_id: a, to_subaccount_id: b, amount_in_cents: 5, amount_in_minor_units: 5})
    expect(both.status).toBe(201)
    const clash = await createMove({from_subaccount_id: a, to_subaccount_id: b, amount_in_cents: 5, amount_in_minor_units: 6})
    expect(clash.status).toBe(400)
  })

  it.each([
    ['a bad UUID', {from_subaccount_id: 'nope'}, /^from_subaccount_id: must be a UUID/],
    ['the same from and to', {to_subaccount_id: 'SAME'}, /^to_subaccount_id: must differ from from_subaccount_id/],
    ['a zero amount', {amount_in_minor_units: 0}, /amount must be positive/],
    ['a negative amount', {amount_in_minor_units: -5}, /amount must be positive/],
    ['a fractional amount', {amount_in_minor_units: 1.5}, /whole number/],
    ['a string amount', {amount_in_minor_units: '100'}, /amount_in_minor_units/],
    ['no amount', {amount_in_minor_units: undefined}, /amount_in_minor_units is required/],
    ['a non-boolean auto_approve', {auto_approve: 'yes'}, /auto_approve must be a boolean/],
  ])('rejects %s with 400 VALIDATION_ERROR', async (_what, patch, message) => {
    const [a, b] = await pair()
    const body: Record<string, unknown> = {from_subaccount_id: a, to_subaccount_id: b, amount_in_minor_units: 100, ...patch}
    if (body.to_subaccount_id === 'SAME') body.to_subaccount_id = a
    const res = await createMove(body)
    expect(res.status).toBe(400)
    expect(res.body.error_code).toBe('VALIDATION_ERROR')
    expect(res.body.message).toMatch(message)
    expect(await activityCount(a)).toBe(0)
  })

  it('answers 404 NOT_FOUND when either subaccount is unknown or another entity\'s', async () => {
    const [a] = await pair()
    const foreign = await newSubaccount(em.keys.test_other)
    const unknown = '00000000-0000-4000-8000-000000000000'
    for (const [from, to] of [[a, foreign], [foreign, a], [a, unknown], [unknown, a]]) {
      const res = await createMove({from_subaccount_id: from, to_subaccount_id: to, amount_in_minor_units: 1})
      expect(res.status).toBe(404)
      expect(res.body.error_code).toBe('NOT_FOUND')
    }
    expect(await totals(a)).toEqual({in: 0, out: 0})
  })

  describe('client_metadata limits', () => {
    const meta = (n: number, keyLen = 5, valueLen = 5) =>
      Object.fromEntries(Array.from({length: n}, (_, i) => [`${String(i).padStart(keyLen, 'k')}`, 'v'.repeat(valueLen)]))

    it('accepts the maxima: 50 keys, 40-character keys, 500-character values', async () => {
      const [a, b] = await pair()
      expect((await createMove({from_subaccount_id: a, to_subaccount_id: b, amount_in_minor_units: 1, client_metadata: meta(50)})).status).toBe(201)
      const edge = {['k'.repeat(40)]: 'v'.repeat(500)}
      const res = await createMove({from_subaccount_id: a, to_subaccount_id: b, amount_in_minor_units: 1, client_metadata: edge})
      expect(res.status).toBe(201)
      expect(res.body.data.client_metadata).toEqual(edge)
    })

    it.each([
      ['51 keys', meta(51), /at most 50 keys/],
      ['a 41-character key', {['k'.repeat(41)]: 'v'}, /longer than 40 characters/],
      ['a 501-character value', {k: 'v'.repeat(501)}, /longer than 500 characters/],
      ['more than 16 KB', meta(40, 10, 450), /16 KB/],
      ['a non-string value', {k: 1}, /values must be strings/],
      ['an array', ['a'], /client_metadata/],
    ])('rejects %s with 400', async (_what, client_metadata, message) => {
      const [a, b] = await pair()
      const res = await createMove({from_subaccount_id: a, to_subaccount_id: b, amount_in_minor_units: 1, client_metadata})
      expect(res.status).toBe(400)
      expect(res.body.error_code).toBe('VALIDATION_ERROR')
      expect(res.body.message).toMatch(message)
    })
  })
})

describe('approve', () => {
  it('settles a created move: 201 in the drifted example shape', async () => {
    const [a, b] = await pair()
    const made = (await createMove({from_subaccount_id: a, to_subaccount_id: b, amount_in_minor_units: 700, auto_approve: false, client_metadata: {description: 'rent'}})).body.data
    const res = await call('POST', `/api/subaccounts/move/${made.id}/approve`, {body: {}})
    expect(res.status).toBe(201)
    const d = res.body.data
    expect(Object.keys(d).sort()).toEqual(
      ['amount_in_cents', 'amount_in_minor_units', 'client_metadata', 'created_at', 'currency_code', 'description', 'destination_subaccount_id', 'id', 'settled_at', 'source_subaccount_id', 'status', 'updated_at'],
    )
    expect(d).toMatchObject({id: made.id, source_subaccount_id: a, destination_subaccount_id: b, amount_in_minor_units: 700, amount_in_cents: 700, currency_code: 'USD', status: 'SETTLED', description: 'rent'})
    expect(Date.parse(d.settled_at)).toBeGreaterThanOrEqual(Date.parse(made.created_at))
    // The client normalises the drift back to a Move.
    const normal = Move.parse(d)
    expect([normal.from_subaccount_id, normal.to_subaccount_id, normal.status]).toEqual([a, b, 'settled'])
    expect(await totals(a)).toEqual({in: 0, out: 700})
    expect(await totals(b)).toEqual({in: 700, out: 0})
  })

  it('accepts an empty body', async () => {
    const [a, b] = await pair()
    const made = (await createMove({from_subaccount_id: a, to_subaccount_id: b, amount_in_minor_units: 1, auto_approve: false})).body.data
    const res = await call('POST', `/api/subaccounts/move/${made.id}/approve`)
    expect(res.status).toBe(201)
    expect(res.body.data.status).toBe('SETTLED')
    expect(res.body.data.description).toBeNull()
  })

  it('answers 400 for a move in any state other than created, changing nothing', async () => {
    const [a, b] = await pair()
    const settled = (await createMove({from_subaccount_id: a, to_subaccount_id: b, amount_in_minor_units: 3})).body.data
    const again = await call('POST', `/api/subaccounts/move/${settled.id}/approve`, {body: {}})
    expect(again.status).toBe(400)
    expect(again.body.error_code).toBe('VALIDATION_ERROR')
    expect(again.body.message).toBe('move cannot be approved in status settled')

    const canceled = (await createMove({from_subaccount_id: a, to_subaccount_id: b, amount_in_minor_units: 3, auto_approve: false})).body.data
    expect((await call('DELETE', `/api/subaccounts/move/${canceled.id}`)).status).toBe(200)
    const c = await call('POST', `/api/subaccounts/move/${canceled.id}/approve`, {body: {}})
    expect(c.status).toBe(400)
    expect(c.body.message).toBe('move cannot be approved in status canceled')
    expect(await totals(a)).toEqual({in: 0, out: 3})
  })

  it('answers 404 for unknown moves and other entities\' moves', async () => {
    const [a, b] = await pair()
    const made = (await createMove({from_subaccount_id: a, to_subaccount_id: b, amount_in_minor_units: 1, auto_approve: false})).body.data
    const foreign = await call('POST', `/api/subaccounts/move/${made.id}/approve`, {body: {}, key: em.keys.test_other})
    expect(foreign.status).toBe(404)
    expect(foreign.body.error_code).toBe('NOT_FOUND')
    expect((await call('POST', '/api/subaccounts/move/00000000-0000-4000-8000-000000000000/approve', {body: {}})).status).toBe(404)
    // Still approvable by its owner.
    expect((await call('POST', `/api/subaccounts/move/${made.id}/approve`, {body: {}})).status).toBe(201)
  })
})

describe('cancel', () => {
  it('cancels a created move: 200 with the canceled move', async () => {
    const [a, b] = await pair()
    const made = (await createMove({from_subaccount_id: a, to_subaccount_id: b, amount_in_minor_units: 50, auto_approve: false})).body.data
    const res = await call('DELETE', `/api/subaccounts/move/${made.id}`)
    expect(res.status).toBe(200)
    expect(res.body.data).toMatchObject({id: made.id, status: 'canceled', from_subaccount_id: a, amount_in_minor_units: 50})
    expect(Date.parse(res.body.data.status_recorded_at)).toBeGreaterThanOrEqual(Date.parse(made.status_recorded_at))
    const twice = await call('DELETE', `/api/subaccounts/move/${made.id}`)
    expect(twice.status).toBe(400)
    expect(twice.body.message).toBe('move cannot be canceled in status canceled')
  })

  it('refuses to cancel a settled move (400) and answers 404 for unknown or foreign moves', async () => {
    const [a, b] = await pair()
    const settled = (await createMove({from_subaccount_id: a, to_subaccount_id: b, amount_in_minor_units: 50})).body.data
    const res = await call('DELETE', `/api/subaccounts/move/${settled.id}`)
    expect(res.status).toBe(400)
    expect(res.body.error_code).toBe('VALIDATION_ERROR')
    const made = (await createMove({from_subaccount_id: a, to_subaccount_id: b, amount_in_minor_units: 1, auto_approve: false})).body.data
    expect((await call('DELETE', `/api/subaccounts/move/${made.id}`, {key: em.keys.live})).status).toBe(404)
    expect((await call('DELETE', '/api/subaccounts/move/whatever')).status).toBe(404)
  })
})

describe('idempotency', () => {
  it('replays a settled move with 200, upper-case status and the original data, for the same body', async () => {
    const [a, b] = await pair()
    const key = newKey()
    const body = {from_subaccount_id: a, to_subaccount_id: b, amount_in_minor_units: 900, client_metadata: {ref: 'r1'}}
    const first = await createMove(body, {idem: key})
    expect(first.status).toBe(201)
    const replay = await createMove(body, {idem: key})
    expect(replay.status).toBe(200)
    expect(replay.body.data).toEqual({...first.body.data, status: 'SETTLED'})
    // The deprecated amount alias and another auto_approve describe the same move.
    const alias = await createMove({from_subaccount_id: a, to_subaccount_id: b, amount_in_cents: 900, auto_approve: false, client_metadata: {ref: 'r1'}}, {idem: key})
    expect([alias.status, alias.body.data.id, alias.body.data.status]).toEqual([200, first.body.data.id, 'SETTLED'])
    expect(await totals(a)).toEqual({in: 0, out: 900})
  })

  it.each([
    ['another destination', (a: string, _b: string, c: string) => ({from_subaccount_id: a, to_subaccount_id: c, amount_in_minor_units: 900, client_metadata: {ref: 'r1'}})],
    ['another source', (a: string, b: string, c: string) => ({from_subaccount_id: c, to_subaccount_id: b, amount_in_minor_units: 900, client_metadata: {ref: 'r1'}})],
    ['another amount', (a: string, b: string) => ({from_subaccount_id: a, to_subaccount_id: b, amount_in_minor_units: 901, client_metadata: {ref: 'r1'}})],
    ['other metadata', (a: string, b: string) => ({from_subaccount_id: a, to_subaccount_id: b, amount_in_minor_units: 900, client_metadata: {ref: 'r2'}})],
    ['no metadata', (a: string, b: string) => ({from_subaccount_id: a, to_subaccount_id: b, amount_in_minor_units: 900})],
    ['one more metadata key', (a: string, b: string) => ({from_subaccount_id: a, to_subaccount_id: b, amount_in_minor_units: 900, client_metadata: {ref: 'r1', x: 'y'}})],
  ])('refuses a key reused with %s: 409 IDEMPOTENCY_KEY_CONFLICT, nothing changes', async (_what, other) => {
    const [a, b] = await pair()
    const c = await newSubaccount()
    for (const autoApprove of [true, false]) {
      const key = newKey()
      const first = await createMove({from_subaccount_id: a, to_subaccount_id: b, amount_in_minor_units: 900, auto_approve: autoApprove, client_metadata: {ref: 'r1'}}, {idem: key})
      expect(first.status).toBe(201)
      const before = [await totals(a), await totals(b), await totals(c)]
      const res = await createMove(other(a, b, c), {idem: key})
      expect(res.status).toBe(409)
      expect(res.body).toMatchObject({error_code: 'IDEMPOTENCY_KEY_CONFLICT', message: 'A key that was used for one move cannot be used for another move'})
      expect([await totals(a), await totals(b), await totals(c)]).toEqual(before)
      // The move the key names is untouched: a replay of its own body still returns it as it was.
      const again = await createMove({from_subaccount_id: a, to_subaccount_id: b, amount_in_minor_units: 900, auto_approve: false, client_metadata: {ref: 'r1'}}, {idem: key})
      expect([again.status, again.body.data.id, again.body.data.status]).toEqual([200, first.body.data.id, autoApprove ? 'SETTLED' : 'CREATED'])
    }
  })

  it('validates a replay\'s body first (400), changing nothing', async () => {
    const [a, b] = await pair()
    const key = newKey()
    await createMove({from_subaccount_id: a, to_subaccount_id: b, amount_in_minor_units: 5}, {idem: key})
    const junk = await createMove({}, {idem: key})
    expect(junk.status).toBe(400)
    expect(junk.body.error_code).toBe('VALIDATION_ERROR')
    expect(await totals(a)).toEqual({in: 0, out: 5})
  })

  it('ignores an Idempotency-Key on approve and cancel: a second one is refused (400), never repeated', async () => {
    const [a, b] = await pair()
    const m1 = (await createMove({from_subaccount_id: a, to_subaccount_id: b, amount_in_minor_units: 11, auto_approve: false})).body.data
    const m2 = (await createMove({from_subaccount_id: a, to_subaccount_id: b, amount_in_minor_units: 13, auto_approve: false})).body.data
    const headers = {'idempotency-key': newKey()}
    expect((await call('POST', `/api/subaccounts/move/${m1.id}/approve`, {body: {}, headers})).status).toBe(201)
    const twice = await call('POST', `/api/subaccounts/move/${m1.id}/approve`, {body: {}, headers})
    expect([twice.status, twice.body.message]).toEqual([400, 'move cannot be approved in status settled'])
    // The same key on another move's approve and cancel is no replay of the first: each acts on its own move.
    expect((await call('DELETE', `/api/subaccounts/move/${m2.id}`, {headers})).status).toBe(200)
    const cancelTwice = await call('DELETE', `/api/subaccounts/move/${m2.id}`, {headers})
    expect([cancelTwice.status, cancelTwice.body.message]).toEqual([400, 'move cannot be canceled in status canceled'])
    expect(await totals(b)).toEqual({in: 11, out: 0})
  })

  it('scopes keys per entity', async () => {
    const key = newKey()
    const [a, b] = await pair()
    const mine = await createMove({from_subaccount_id: a, to_subaccount_id: b, amount_in_minor_units: 5}, {idem: key})
    const liveA = await newSubaccount(em.keys.live)
    const liveB = await newSubaccount(em.keys.live)
    const theirs = await createMove({from_subaccount_id: liveA, to_subaccount_id: liveB, amount_in_minor_units: 5}, {idem: key, key: em.keys.live})
    expect(theirs.status).toBe(201)
    expect(theirs.body.data.id).not.toBe(mine.body.data.id)
  })

  it('replays a created move as CREATED when the replay does not auto-approve', async () => {
    const [a, b] = await pair()
    const key = newKey()
    const first = await createMove({from_subaccount_id: a, to_subaccount_id: b, amount_in_minor_units: 40, auto_approve: false}, {idem: key})
    expect(first.body.data.status).toBe('created')
    const replay = await createMove({from_subaccount_id: a, to_subaccount_id: b, amount_in_minor_units: 40, auto_approve: false}, {idem: key})
    expect(replay.status).toBe(200)
    expect(replay.body.data.status).toBe('CREATED')
    expect(await totals(a)).toEqual({in: 0, out: 0})
  })

  it('continues approval and settlement when a created move is replayed with auto_approve true', async () => {
    const [a, b] = await pair()
    const key = newKey()
    const first = await createMove({from_subaccount_id: a, to_subaccount_id: b, amount_in_minor_units: 60, auto_approve: false}, {idem: key})
    const replay = await createMove({from_subaccount_id: a, to_subaccount_id: b, amount_in_minor_units: 60}, {idem: key})
    expect(replay.status).toBe(200)
    expect(replay.body.data.id).toBe(first.body.data.id)
    expect(replay.body.data.status).toBe('SETTLED')
    expect(await totals(a)).toEqual({in: 0, out: 60})
    expect(await totals(b)).toEqual({in: 60, out: 0})
    // A further replay changes nothing.
    const third = await createMove({from_subaccount_id: a, to_subaccount_id: b, amount_in_minor_units: 60}, {idem: key})
    expect(third.body.data.status).toBe('SETTLED')
    expect(await totals(a)).toEqual({in: 0, out: 60})
  })

  it('answers 409 IDEMPOTENCY_KEY_CONFLICT when the key names a canceled move', async () => {
    const [a, b] = await pair()
    const key = newKey()
    const first = await createMove({from_subaccount_id: a, to_subaccount_id: b, amount_in_minor_units: 70, auto_approve: false}, {idem: key})
    expect((await call('DELETE', `/api/subaccounts/move/${first.body.data.id}`)).status).toBe(200)
    const replay = await createMove({from_subaccount_id: a, to_subaccount_id: b, amount_in_minor_units: 70}, {idem: key})
    expect(replay.status).toBe(409)
    expect(replay.body.error_code).toBe('IDEMPOTENCY_KEY_CONFLICT')
    expect(await totals(a)).toEqual({in: 0, out: 0})
    // A new key works.
    expect((await createMove({from_subaccount_id: a, to_subaccount_id: b, amount_in_minor_units: 70}, {idem: newKey()})).status).toBe(201)
  })

  it('answers 409 when the key names a failed move', async () => {
    const [a, b] = await pair()
    const key = newKey()
    const first = await createMove({from_subaccount_id: a, to_subaccount_id: b, amount_in_minor_units: 80, auto_approve: false}, {idem: key})
    const failed = await call('POST', `/_emulator/moves/${first.body.data.id}/fail`, {key: null, body: {}})
    expect(failed.status).toBe(200)
    expect(failed.body.data.status).toBe('failed')
    const replay = await createMove({from_subaccount_id: a, to_subaccount_id: b, amount_in_minor_units: 80}, {idem: key})
    expect(replay.status).toBe(409)
    expect(replay.body.error_code).toBe('IDEMPOTENCY_KEY_CONFLICT')
    expect((await call('POST', `/_emulator/moves/${first.body.data.id}/fail`, {key: null, body: {}})).status).toBe(400)
  })

  it('creates exactly one move from concurrent identical requests', async () => {
    const [a, b] = await pair()
    const key = newKey()
    const body = {from_subaccount_id: a, to_subaccount_id: b, amount_in_minor_units: 333}
    const results = await Promise.all(Array.from({length: 12}, () => createMove(body, {idem: key})))
    const statuses = results.map((r) => r.status).sort()
    expect(statuses).toEqual([200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 201])
    expect(new Set(results.map((r) => r.body.data.id)).size).toBe(1)
    expect(await totals(a)).toEqual({in: 0, out: 333})
    expect(await activityCount(b)).toBe(1)
  })

  it('rejects an empty or over-long Idempotency-Key', async () => {
    const [a, b] = await pair()
    const body = {from_subaccount_id: a, to_subaccount_id: b, amount_in_minor_units: 1}
    const long = await createMove(body, {idem: 'k'.repeat(256)})
    expect(long.status).toBe(400)
    expect(long.body.message).toMatch(/Idempotency-Key/)
    expect((await createMove(body, {idem: 'k'.repeat(255)})).status).toBe(201)
  })
})

describe('settlement failures (control API)', () => {
  it('on create: the move stays approved and the answer is 207 with a warning', async () => {
    const [a, b] = await pair()
    expect((await failNext()).pending_settlement_failures).toBe(1)
    const res = await createMove({from_subaccount_id: a, to_subaccount_id: b, amount_in_minor_units: 150})
    expect(res.status).toBe(207)
    expect(res.body.data.status).toBe('approved')
    expect(typeof res.body.warning).toBe('string')
    expect(res.body.warning.length).toBeGreaterThan(10)
    expect(await totals(a)).toEqual({in: 0, out: 0})
    // An approved move cannot be approved again ("any state other than created").
    const approve = await call('POST', `/api/subaccounts/move/${res.body.data.id}/approve`, {body: {}})
    expect(approve.status).toBe(400)
    expect(approve.body.message).toBe('move cannot be approved in status approved')
    // Only one failure was armed: the next move settles.
    expect((await createMove({from_subaccount_id: a, to_subaccount_id: b, amount_in_minor_units: 1})).status).toBe(201)
  })

  it('on approve: the move stays approved, 207 with a warning in the drifted shape', async () => {
    const [a, b] = await pair()
    const made = (await createMove({from_subaccount_id: a, to_subaccount_id: b, amount_in_minor_units: 20, auto_approve: false})).body.data
    await failNext()
    const res = await call('POST', `/api/subaccounts/move/${made.id}/approve`, {body: {}})
    expect(res.status).toBe(207)
    expect(res.body.data.status).toBe('APPROVED')
    expect(res.body.data.settled_at).toBeNull()
    expect(typeof res.body.warning).toBe('string')
    expect(await totals(b)).toEqual({in: 0, out: 0})
    expect((await call('DELETE', `/api/subaccounts/move/${made.id}`)).status).toBe(400)
  })

  it('fails the next N settlements, then settles again; a replay of the approved move returns it as it is (the state table continues only a created move)', async () => {
    const [a, b] = await pair()
    await failNext(2)
    const key = newKey()
    const r1 = await createMove({from_subaccount_id: a, to_subaccount_id: b, amount_in_minor_units: 1}, {idem: key})
    const r2 = await createMove({from_subaccount_id: a, to_subaccount_id: b, amount_in_minor_units: 2})
    expect([r1.status, r2.status]).toEqual([207, 207])
    const replay = await createMove({from_subaccount_id: a, to_subaccount_id: b, amount_in_minor_units: 1}, {idem: key})
    expect(replay.status).toBe(200)
    expect(replay.body.data).toMatchObject({id: r1.body.data.id, status: 'APPROVED'})
    expect(replay.body.warning).toBeUndefined()
    expect(await totals(a)).toEqual({in: 0, out: 0})
    // Settlements work again: a new move settles.
    expect((await createMove({from_subaccount_id: a, to_subaccount_id: b, amount_in_minor_units: 4})).status).toBe(201)
    expect(await totals(a)).toEqual({in: 0, out: 4})
  })

  it('validates the control body', async () => {
    for (const body of [{count: -1}, {count: 1.5}, {count: 'two'}]) {
      const res = await call('POST', '/_emulator/fail-next-settlement', {key: null, body})
      expect(res.status).toBe(400)
      expect(res.body.error_code).toBe('VALIDATION_ERROR')
    }
  })
})
