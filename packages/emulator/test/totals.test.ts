/** Subaccount totals stay exact integers: a sum past 2^53 - 1 is refused before anything is written. */
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {startEmulator, type RunningEmulator} from '../src/index.js'
import {canAdd} from '../src/store/index.js'
import {type Move, type TreasuryAccount} from './oracle.js'
import type {SubaccountView} from './helpers.js'
import {tempDir} from './support.js'

const MAX = Number.MAX_SAFE_INTEGER

describe('canAdd', () => {
  it('is true only while the sum stays an exact integer', () => {
    expect(canAdd(0, MAX)).toBe(true)
    expect(canAdd(MAX - 1, 1)).toBe(true)
    expect(canAdd(MAX, 1)).toBe(false)
    expect(canAdd(MAX, MAX)).toBe(false)
    expect(canAdd(1, 1.5)).toBe(false)
  })
})

describe('emulator: subaccount totals stay within the exact integer range', () => {
  let em: RunningEmulator
  let main: string

  /** A reply: the envelope around `T` (a resource or a list), or an error body. */
  interface Res<T = unknown> {
    status: number
    body: {data: T; error_code?: string}
  }

  async function call<T = unknown>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Res<T>> {
    const h: Record<string, string> = {'x-api-key': em.keys.test, ...headers}
    if (body !== undefined) h['content-type'] = 'application/json'
    const res = await fetch(em.baseUrl + path, {method, headers: h, body: body === undefined ? undefined : JSON.stringify(body)})
    const text = await res.text()
    return {status: res.status, body: text ? JSON.parse(text) : undefined}
  }

  let n = 0
  async function sub(): Promise<string> {
    const r = await call<SubaccountView>('POST', '/api/subaccounts', {name: `Range ${++n}`})
    expect(r.status).toBe(201)
    return r.body.data.id
  }

  async function state(id: string): Promise<{in: number; out: number; lines: number}> {
    const s = await call<SubaccountView>('GET', `/api/subaccounts/${id}`)
    const a = await call<unknown[]>('GET', `/api/subaccounts/${id}/activity`)
    return {in: s.body.data.total_incoming_in_minor_units, out: s.body.data.total_outgoing_in_minor_units, lines: a.body.data.length}
  }

  const move = (from: string, to: string, amount: number, extra: Record<string, unknown> = {}, key?: string) =>
    call<Move>('POST', '/api/subaccounts/move', {from_subaccount_id: from, to_subaccount_id: to, amount_in_minor_units: amount, ...extra}, key ? {'idempotency-key': key} : {})

  function refused(r: Res): void {
    expect(r.status, JSON.stringify(r.body)).toBe(400)
    expect(r.body.error_code).toBe('VALIDATION_ERROR')
    expect(JSON.stringify(r.body)).toContain(String(MAX))
  }

  beforeAll(async () => {
    em = await startEmulator({port: 0, log: () => undefined})
    const accounts = await call<TreasuryAccount[]>('GET', '/api/treasury/accounts?order=asc&limit=100')
    main = accounts.body.data.find((a) => a.currency_code === 'USD')!.id
  })

  afterAll(async () => {
    await em.close()
  })

  it('create with auto-approve: the move that would overflow is refused and nothing is written', async () => {
    const [a, b, c] = [await sub(), await sub(), await sub()]
    expect((await move(a, b, MAX)).status).toBe(201)
    const before = {a: await state(a), b: await state(b), c: await state(c)}
    refused(await move(c, b, MAX, {}, 'range-create-1'))
    refused(await move(a, c, 1))
    expect({a: await state(a), b: await state(b), c: await state(c)}).toEqual(before)
    // The key was not bound to anything: it can still be used for a move that fits.
    const ok = await move(c, a, 5, {}, 'range-create-1')
    expect(ok.status).toBe(201)
    expect(ok.body.data.amount_in_minor_units).toBe(5)
    // Every total is still readable by the client's schemas.
    for (const id of [a, b, c]) {
      const s = await state(id)
      expect(Number.isSafeInteger(s.in) && Number.isSafeInteger(s.out)).toBe(true)
    }
  })

  it('approve: refused with 400 and the move stays created', async () => {
    const [a, b, c] = [await sub(), await sub(), await sub()]
    const pending = await move(a, b, MAX, {auto_approve: false})
    expect(pending.status).toBe(201)
    expect((await move(c, b, 1)).status).toBe(201)
    const before = await state(b)
    refused(await call('POST', `/api/subaccounts/move/${pending.body.data.id}/approve`))
    expect(await state(b)).toEqual(before)
    // Still created: only a created move can be canceled (there is no GET for one move).
    const cancel = await call<Move>('DELETE', `/api/subaccounts/move/${pending.body.data.id}`)
    expect(cancel.status).toBe(200)
    expect(cancel.body.data.status).toBe('canceled')
  })

  it('a replay that would settle a created move is refused; an approved one is returned as it is (only a created move continues)', async () => {
    const [a, b, c] = [await sub(), await sub(), await sub()]
    expect((await move(a, b, MAX, {auto_approve: false}, 'range-replay-created')).status).toBe(201)
    // An approved move whose settlement failed, replayed later.
    expect((await call('POST', '/_emulator/fail-next-settlement', {})).status).toBeLessThan(300)
    const approved = await move(c, a, MAX - 7, {}, 'range-replay-approved')
    expect(approved.status).toBe(207)
    expect((await move(c, b, 1)).status).toBe(201)
    expect((await move(b, a, 8)).status).toBe(201)
    const before = {a: await state(a), b: await state(b), c: await state(c)}
    refused(await move(a, b, MAX, {}, 'range-replay-created'))
    const replayed = await move(c, a, MAX - 7, {}, 'range-replay-approved')
    expect(replayed.status).toBe(200)
    expect((replayed.body as {data: {status: string}}).data.status).toBe('APPROVED')
    expect({a: await state(a), b: await state(b), c: await state(c)}).toEqual(before)
  })

  it('a simulated inbound credit to a subaccount is refused before the bank line is added', async () => {
    const s = await sub()
    const credit = (amount: number) => call('POST', `/api/treasury/accounts/${main}/simulate-inbound-credit`, {rail: 'wire', amount_in_minor_units: amount, subaccount_id: s})
    const lines = async () => (await call<unknown[]>('GET', `/api/treasury/accounts/${main}/bank-transactions?limit=100`)).body.data.length
    expect((await credit(MAX)).status).toBe(201)
    const before = {sub: await state(s), lines: await lines()}
    refused(await credit(1))
    expect({sub: await state(s), lines: await lines()}).toEqual(before)
  })
})
