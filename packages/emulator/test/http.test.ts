import {createServer, type Server} from 'node:http'
import type {AddressInfo} from 'node:net'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {Faults, RequestLog, HttpError, Router, createRequestListener, ok, startEmulator, type RunningEmulator} from '../src/index.js'
import {createSeededStore} from '../src/store/seed.js'
import {EventBus} from '../src/webhooks/events.js'
import {caller, type EntityView, type Res} from './helpers.js'

let em: RunningEmulator

const call = caller(() => em)

function expectError(res: Res, status: number, code: string): void {
  expect(res.status).toBe(status)
  expect(res.headers.get('content-type')).toBe('application/json')
  expect(res.body.error_code).toBe(code)
  expect(typeof res.body.message).toBe('string')
  expect(res.body.message.length).toBeGreaterThan(0)
  expect(res.body.request_id).toBe(res.headers.get('x-request-id'))
  expect(Object.keys(res.body).sort()).toEqual(['error_code', 'message', 'request_id'])
}

let testSubaccount: string
let liveCreated: string

beforeAll(async () => {
  em = await startEmulator({port: 0})
  const ents = await call('GET', '/_emulator/entities', {key: null})
  testSubaccount = ents.body.data.find((e: EntityView) => e.role === 'test').subaccount_ids[0]
})

afterAll(async () => {
  await em.close()
})

describe('router', () => {
  const noop = () => ok({})
  const tagged = (tag: string) => () => ok({tag})

  it('prefers static segments over parameters, left to right', () => {
    const r = new Router()
      .add('GET', '/api/subaccounts/:subaccount_id', tagged('get'))
      .add('POST', '/api/subaccounts/move', tagged('move'))
      .add('GET', '/api/subaccounts/:subaccount_id/activity', tagged('activity'))
      .add('DELETE', '/api/subaccounts/move/{move_id}', tagged('cancel'))
    const move = r.match('POST', '/api/subaccounts/move')
    expect(move.kind).toBe('found')
    if (move.kind === 'found') expect(move.pattern).toBe('/api/subaccounts/move')

    const get = r.match('GET', '/api/subaccounts/abc')
    expect(get.kind === 'found' && get.params).toEqual({subaccount_id: 'abc'})

    // The static route decides: GET on it is 405, not a lookup of a subaccount named "move".
    const getMove = r.match('GET', '/api/subaccounts/move')
    expect(getMove).toEqual({kind: 'method_not_allowed', allow: ['POST'], pattern: '/api/subaccounts/move'})

    const cancel = r.match('DELETE', '/api/subaccounts/move/m-1')
    expect(cancel.kind === 'found' && cancel.params).toEqual({move_id: 'm-1'})
    expect(r.match('GET', '/api/subaccounts/abc/activity').kind).toBe('found')
  })

  it('decodes parameters, ignores a trailing slash, serves HEAD with GET, and reports 404s', () => {
    const r = new Router().add('GET', '/a/:id', noop)
    const m = r.match('GET', '/a/x%20y/')
    expect(m.kind === 'found' && m.params).toEqual({id: 'x y'})
    expect(r.match('HEAD', '/a/1').kind).toBe('found')
    expect(r.match('GET', '/a/%E0%A4%A').kind).toBe('not_found')
    expect(r.match('GET', '/a').kind).toBe('not_found')
    expect(r.match('GET', '/a/1/2').kind).toBe('not_found')
    expect(r.match('GET', '/a//').kind).toBe('not_found')
  })

  it('refuses a route registered twice', () => {
    const r = new Router().add('GET', '/a', noop)
    expect(() => r.add('GET', '/a', noop)).toThrow(/registered twice/)
    expect(r.list()).toEqual(['GET /a'])
  })
})

describe('authentication', () => {
  it('answers 401 without a key and with an unknown key', async () => {
    expectError(await call('GET', `/api/subaccounts/${testSubaccount}`, {key: null}), 401, 'AUTHENTICATION_ERROR')
    const bad = await call('GET', `/api/subaccounts/${testSubaccount}`, {key: 'test_00000000000000000000000000000000'})
    expectError(bad, 401, 'AUTHENTICATION_ERROR')
    expect(bad.body.message).not.toContain('test_0000')
  })

  it('lets a read-only key read but answers 403 to writes', async () => {
    const issued = await call('POST', '/_emulator/keys', {key: null, body: {entity: 'test', read_only: true}})
    expect(issued.status).toBe(201)
    const roKey: string = issued.body.key
    expect(/^test_[0-9a-f]{32}$/.test(roKey)).toBe(true)
    expect(issued.body.read_only).toBe(true)

    const read = await call('GET', `/api/subaccounts/${testSubaccount}`, {key: roKey})
    expect(read.status).toBe(200)
    expect(read.body.data.id).toBe(testSubaccount)
    expectError(await call('POST', '/api/subaccounts', {key: roKey, body: {name: 'Nope'}}), 403, 'AUTHORIZATION_ERROR')
    expectError(await call('DELETE', `/api/subaccounts/move/${testSubaccount}`, {key: roKey}), 403, 'AUTHORIZATION_ERROR')
  })

  it('issues full-access keys of the entity mode, and validates the request', async () => {
    const live = await call('POST', '/_emulator/keys', {key: null, body: {entity: 'live'}})
    expect(live.status).toBe(201)
    expect(/^live_[0-9a-f]{32}$/.test(live.body.key)).toBe(true)
    const created = await call('POST', '/api/subaccounts', {key: live.body.key, body: {name: 'Live ops'}})
    expect(created.status).toBe(201)
    liveCreated = created.body.data.id
    expectError(await call('POST', '/_emulator/keys', {key: null, body: {entity: 'prod'}}), 400, 'VALIDATION_ERROR')
  })

  it('never lists API keys in the control API', async () => {
    const res = await fetch(`${em.baseUrl}/_emulator/entities`)
    const text = await res.text()
    expect(text.includes(em.keys.test)).toBe(false)
    expect(text.includes(em.keys.live)).toBe(false)
    const body: {data: EntityView[]} = JSON.parse(text)
    expect(body.data.map((e) => e.role)).toEqual(['test', 'test_other', 'live'])
    expect(body.data.map((e) => e.mode)).toEqual(['test', 'test', 'live'])
    // Seeded: 3, 1 and 2 subaccounts; the live one made with the issued key above is the third.
    expect(body.data.map((e) => e.subaccount_ids.length)).toEqual([3, 1, 3])
    expect(body.data[2].subaccount_ids[2]).toBe(liveCreated)
    // The main test entity also holds GBP, INR and a non-simulated USD account.
    expect(body.data.map((e) => e.treasury_account_ids.length)).toEqual([4, 1, 1])
  })
})

describe('request handling', () => {
  it('answers JSON with an x-request-id on success', async () => {
    const res = await call('GET', `/api/subaccounts/${testSubaccount}`)
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('application/json')
    expect(res.headers.get('x-request-id')).toMatch(/^req_[0-9a-f]{16}$/)
    const again = await call('GET', `/api/subaccounts/${testSubaccount}`)
    expect(again.headers.get('x-request-id')).not.toBe(res.headers.get('x-request-id'))
  })

  it('rejects malformed JSON and non-object JSON with 400, and keeps serving', async () => {
    const bad = await call('POST', '/api/subaccounts', {raw: '{"name": '})
    expectError(bad, 400, 'VALIDATION_ERROR')
    expect(bad.body.message).toBe('request body is not valid JSON')
    for (const raw of ['[1,2]', '"text"', '42', 'null']) {
      const r = await call('POST', '/api/subaccounts', {raw})
      expectError(r, 400, 'VALIDATION_ERROR')
      expect(r.body.message).toBe('request body must be a JSON object')
    }
    expect((await call('POST', '/api/subaccounts', {body: {name: 'After bad JSON'}})).status).toBe(201)
  })

  it('treats an empty POST body as {} (so validation names the missing field)', async () => {
    const res = await call('POST', '/api/subaccounts', {raw: ''})
    expectError(res, 400, 'VALIDATION_ERROR')
    expect(res.body.message).toMatch(/^name: /)
  })

  it('answers 413 to a body over 1 MB and keeps serving on the same server', async () => {
    const big = JSON.stringify({name: 'x'.repeat(1024 * 1024 + 10)})
    expectError(await call('POST', '/api/subaccounts', {raw: big}), 413, 'PAYLOAD_TOO_LARGE')
    const after = await call('GET', `/api/subaccounts/${testSubaccount}`)
    expect(after.status).toBe(200)
  })

  it('answers 404 to unknown paths and 405 with Allow to a wrong method', async () => {
    const unknown = await call('GET', '/api/nothing-here')
    expectError(unknown, 404, 'NOT_FOUND')
    expectError(await call('GET', '/nothing', {key: null}), 404, 'NOT_FOUND')
    const wrong = await call('PUT', `/api/subaccounts/${testSubaccount}`, {body: {}})
    expectError(wrong, 405, 'METHOD_NOT_ALLOWED')
    expect(wrong.headers.get('allow')).toBe('GET')
    const wrongStatic = await call('GET', '/api/subaccounts/move')
    expectError(wrongStatic, 405, 'METHOD_NOT_ALLOWED')
    expect(wrongStatic.headers.get('allow')).toBe('POST')
    expect((await call('GET', `/api/subaccounts/${testSubaccount}`)).status).toBe(200)
  })
})

describe('unexpected exceptions', () => {
  let server: Server
  let base: string
  const logged: string[] = []

  beforeAll(async () => {
    const store = createSeededStore()
    let calls = 0
    const router = new Router()
      .add('GET', '/boom', () => {
        calls++
        throw new Error(`exploded ${calls}`)
      })
      .add('GET', '/async-boom', async () => {
        await new Promise((r) => setTimeout(r, 1))
        throw new TypeError('async failure')
      })
      .add('GET', '/teapot', () => {
        throw new HttpError(418, 'TEAPOT', 'short and stout', {'retry-after': '3'})
      })
      .add('GET', '/fine', () => ok({fine: true}))
    server = createServer(createRequestListener(router, {store, requests: new RequestLog(), faults: new Faults(), events: new EventBus(), log: (l) => logged.push(l)}))
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  })

  afterAll(async () => {
    server.closeAllConnections()
    await new Promise((r) => server.close(r))
  })

  it('turns a thrown error into 500 INTERNAL_ERROR without leaking it, and keeps serving', async () => {
    for (const path of ['/boom', '/async-boom', '/boom']) {
      const res = await fetch(base + path)
      expect(res.status).toBe(500)
      const body = await res.json()
      expect(body.error_code).toBe('INTERNAL_ERROR')
      expect(body.message).toBe('internal error')
      expect(body.request_id).toBe(res.headers.get('x-request-id'))
    }
    expect(logged.filter((l) => l.includes('exploded'))).toHaveLength(2)
    expect(logged.some((l) => l.includes('async failure'))).toBe(true)
    const fine = await fetch(base + '/fine')
    expect(fine.status).toBe(200)
    expect(await fine.json()).toEqual({fine: true})
  })

  it('sends an HttpError status, code and extra headers as they are', async () => {
    const res = await fetch(base + '/teapot')
    expect(res.status).toBe(418)
    expect(res.headers.get('retry-after')).toBe('3')
    expect((await res.json()).error_code).toBe('TEAPOT')
  })
})
