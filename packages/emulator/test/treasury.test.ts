import {createServer, type Server} from 'node:http'
import type {AddressInfo} from 'node:net'
import {afterAll, beforeAll, beforeEach, describe, expect, it} from 'vitest'
import {Faults, RequestLog, Router, createRequestListener} from '../src/index.js'
import {EventBus, type EmulatorEvent} from '../src/webhooks/events.js'
import {registerRoutes} from '../src/routes/index.js'
import {createSeededStore} from '../src/store/seed.js'
import type {Store} from '../src/store/index.js'
import {AccountTransfer, ConversionEstimate, BankTransaction, SimulatedCredit, TreasuryAccount, TreasuryBalance} from './oracle.js'
import {caller, type Res} from './helpers.js'

let server: Server
let baseUrl: string
let store: Store
let events: EventBus
let keys: {test: string; test_other: string; live: string}

const call = caller(() => ({baseUrl, keys}))

function expectError(res: Res, status: number, code: string, message?: RegExp): void {
  expect(res.status, JSON.stringify(res.body)).toBe(status)
  expect(res.body.error_code).toBe(code)
  if (message) expect(res.body.message).toMatch(message)
}

const qs = (q: Record<string, string | number | Array<string | number>>) => {
  const p = new URLSearchParams()
  for (const [k, v] of Object.entries(q)) for (const x of Array.isArray(v) ? v : [v]) p.append(k, String(x))
  return `?${p}`
}

interface Accounts {
  main: string
  gbp: string
  inr: string
  reserve: string
  other: string
  live: string
}
let acc: Accounts
let subaccount: string

beforeAll(async () => {
  store = createSeededStore()
  events = new EventBus()
  keys = store.keys()
  const router = registerRoutes(new Router(), {store, requests: new RequestLog(), faults: new Faults(), events, log: () => undefined})
  server = createServer(createRequestListener(router, {store, requests: new RequestLog(), faults: new Faults(), events, log: () => undefined}))
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const test = store.entityByRole('test')!
  const find = (pred: (a: {label: string; currency_code: string; simulated: boolean}) => boolean) => test.treasuryAccounts.items.find(pred)!.id
  acc = {
    main: test.mainAccount()!.id,
    gbp: find((a) => a.currency_code === 'GBP'),
    inr: find((a) => a.currency_code === 'INR'),
    reserve: find((a) => a.currency_code === 'USD' && !a.simulated),
    other: store.entityByRole('test_other')!.mainAccount()!.id,
    live: store.entityByRole('live')!.mainAccount()!.id,
  }
  subaccount = test.subaccounts.items[0].id
})

afterAll(async () => {
  await new Promise((r) => server.close(r))
})

describe('treasury accounts', () => {
  it('lists the seeded accounts of the caller only, with last four digits', async () => {
    const res = await call('GET', '/api/treasury/accounts')
    expect(res.status).toBe(200)
    const items: TreasuryAccount[] = res.body.data.map((a: unknown) => TreasuryAccount.parse(a))
    expect(items.map((a) => a.currency_code).sort()).toEqual(['GBP', 'INR', 'USD', 'USD'])
    expect(items.every((a) => /^\d{4}$/.test(String(a.last_four_digits)))).toBe(true)
    expect(res.body.total_count).toBe(4)
    const other = await call('GET', '/api/treasury/accounts', {key: keys.test_other})
    expect(other.body.data.map((a: TreasuryAccount) => a.id)).toEqual([acc.other])
    const live = await call('GET', '/api/treasury/accounts', {key: keys.live})
    expect(live.body.data.map((a: TreasuryAccount) => a.id)).toEqual([acc.live])
  })

  it('pages with limit and cursor; bad limit, order and cursor are 400', async () => {
    const first = await call('GET', `/api/treasury/accounts${qs({limit: 3, order: 'asc'})}`)
    expect(first.body.data).toHaveLength(3)
    expect(first.body.data[0].id).toBe(acc.main)
    const second = await call('GET', `/api/treasury/accounts${qs({limit: 3, order: 'asc', cursor: first.body.next_cursor})}`)
    expect(second.body.data).toHaveLength(1)
    expect(second.body.has_more).toBe(false)
    expectError(await call('GET', '/api/treasury/accounts?limit=501'), 400, 'VALIDATION_ERROR')
    expectError(await call('GET', '/api/treasury/accounts?order=up'), 400, 'VALIDATION_ERROR')
    expectError(await call('GET', '/api/treasury/accounts?cursor=zzz'), 400, 'VALIDATION_ERROR')
  })

  it('updates a label (trimmed); empty, missing, too long 400; other entity 404; read-only key 403', async () => {
    const res = await call('POST', `/api/treasury/accounts/${acc.gbp}/update-label`, {body: {label: '  Sterling ops  '}})
    expect(res.status).toBe(200)
    expect(res.body.data).toMatchObject({id: acc.gbp, label: 'Sterling ops', currency_code: 'GBP'})
    expect(store.entityByRole('test')!.treasuryAccounts.get(acc.gbp)!.label).toBe('Sterling ops')
    expectError(await call('POST', `/api/treasury/accounts/${acc.gbp}/update-label`, {body: {label: '  '}}), 400, 'VALIDATION_ERROR', /label/)
    expectError(await call('POST', `/api/treasury/accounts/${acc.gbp}/update-label`, {body: {}}), 400, 'VALIDATION_ERROR', /label/)
    expectError(await call('POST', `/api/treasury/accounts/${acc.gbp}/update-label`, {body: {label: 'x'.repeat(101)}}), 400, 'VALIDATION_ERROR', /100/)
    expectError(await call('POST', `/api/treasury/accounts/${acc.gbp}/update-label`, {body: {label: 'x'}, key: keys.test_other}), 404, 'NOT_FOUND')
    const ro = store.issueKey(store.entityByRole('test')!, {readOnly: true})
    expectError(await call('POST', `/api/treasury/accounts/${acc.gbp}/update-label`, {body: {label: 'x'}, key: ro.key}), 403, 'AUTHORIZATION_ERROR')
  })
})

describe('treasury account balance (assumed shape)', () => {
  it('is the sum of the account\'s bank lines that carry a direction, in the client\'s shape; 404 for another entity\'s account', async () => {
    const lines = store.entityByRole('test')!.bankTransactions.get(acc.main)!.items
    const expected = lines.reduce((s, l) => s + (l.direction === 'credit' ? l.amount_in_minor_units : l.direction === 'debit' ? -l.amount_in_minor_units : 0), 0)
    const res = await call('GET', `/api/treasury/accounts/${acc.main}/balance`)
    expect(res.status).toBe(200)
    const b = TreasuryBalance.parse(res.body.data)
    expect(b).toMatchObject({account_id: acc.main, currency_code: 'USD', current_balance_in_minor_units: expected, available_balance_in_minor_units: expected})
    expectError(await call('GET', `/api/treasury/accounts/${acc.other}/balance`), 404, 'NOT_FOUND')
    expectError(await call('GET', '/api/treasury/accounts/nope/balance'), 404, 'NOT_FOUND')
  })

  it('the control API refuses a bad bank feed or bank line (400), and an unknown account (404)', async () => {
    const control = async (path: string, body: unknown) => (await fetch(`${baseUrl}${path}`, {method: 'POST', headers: {'content-type': 'application/json'}, body: JSON.stringify(body)})).status
    expect(await control('/_emulator/bank-feed', {entity: 'test', enabled: true, fee_rate: 2})).toBe(400)
    expect(await control('/_emulator/bank-feed', {entity: 'nobody', enabled: true})).toBe(400)
    expect(await control('/_emulator/bank-lines', {account_id: acc.main, amount_in_minor_units: 5, direction: 'sideways'})).toBe(400)
    expect(await control('/_emulator/bank-lines', {account_id: acc.main, amount_in_minor_units: 5, direction: 'debit', transaction_date: '2026-02-30'})).toBe(400)
    expect(await control('/_emulator/bank-lines', {account_id: 'nope', amount_in_minor_units: 5, direction: 'debit'})).toBe(404)
    expect(await control('/_emulator/bulk/transfers', {from_account_id: acc.main, to_account_id: acc.main, count: 1, first_date: '2026-01-01'})).toBe(400)
  })
})

describe('bank transactions', () => {
  it('omits the fields the bank did not report (never null)', async () => {
    const res = await call('GET', `/api/treasury/accounts/${acc.main}/bank-transactions${qs({limit: 500})}`)
    expect(res.status).toBe(200)
    const fee = res.body.data.find((t: BankTransaction) => t.description === 'MISCELLANEOUS FEE')
    expect(Object.keys(fee).sort()).toEqual(['amount_in_minor_units', 'currency_code', 'description', 'id'])
    for (const t of res.body.data) {
      for (const v of Object.values(t)) expect(v).not.toBeNull()
      BankTransaction.parse(t)
    }
  })

  it('filters by transaction date, inclusive; lines without a date never match', async () => {
    const res = await call('GET', `/api/treasury/accounts/${acc.main}/bank-transactions${qs({transaction_date_gte: '2026-01-07', transaction_date_lte: '2026-01-15', order: 'asc'})}`)
    expect(res.body.data.map((t: BankTransaction) => t.transaction_date)).toEqual(['2026-01-07', '2026-01-10', '2026-01-15'])
    expect(res.body.total_count).toBe(3)
    expectError(await call('GET', `/api/treasury/accounts/${acc.main}/bank-transactions?transaction_date_gte=2026-02-30`), 400, 'VALIDATION_ERROR')
    expectError(await call('GET', `/api/treasury/accounts/${acc.main}/bank-transactions?transaction_date_lte=jan`), 400, 'VALIDATION_ERROR')
  })

  it('gets one line; unknown account, unknown line, another account\'s line and another entity are 404', async () => {
    const list = await call('GET', `/api/treasury/accounts/${acc.main}/bank-transactions?limit=1`)
    const id = list.body.data[0].id
    const res = await call('GET', `/api/treasury/accounts/${acc.main}/bank-transactions/${id}`)
    expect(res.status).toBe(200)
    expect(res.body.data).toEqual(list.body.data[0])
    expectError(await call('GET', `/api/treasury/accounts/${acc.gbp}/bank-transactions/${id}`), 404, 'NOT_FOUND', /bank transaction/)
    expectError(await call('GET', `/api/treasury/accounts/${acc.main}/bank-transactions/nope`), 404, 'NOT_FOUND')
    expectError(await call('GET', `/api/treasury/accounts/nope/bank-transactions/${id}`), 404, 'NOT_FOUND', /treasury account/)
    expectError(await call('GET', `/api/treasury/accounts/${acc.main}/bank-transactions/${id}`, {key: keys.test_other}), 404, 'NOT_FOUND')
    expectError(await call('GET', `/api/treasury/accounts/${acc.main}/bank-transactions`, {key: keys.test_other}), 404, 'NOT_FOUND')
  })
})

describe('simulate inbound credit', () => {
  const path = (id: string) => `/api/treasury/accounts/${id}/simulate-inbound-credit`

  it('creates a credit line that the bank-transactions endpoints return', async () => {
    const res = await call('POST', path(acc.main), {body: {rail: 'standard_ach', amount_in_minor_units: 4321, sender_info: 'Acme Payer', transaction_date: '2026-02-01'}})
    expect(res.status).toBe(201)
    const credit = SimulatedCredit.parse(res.body.data)
    expect(credit).toMatchObject({amount_in_minor_units: 4321, currency_code: 'USD', transaction_date: '2026-02-01', direction: 'credit'})
    const line = await call('GET', `/api/treasury/accounts/${acc.main}/bank-transactions/${credit.bank_transaction_id}`)
    expect(line.body.data).toMatchObject({id: credit.bank_transaction_id, amount_in_minor_units: 4321, sender_info: 'Acme Payer', direction: 'credit', transaction_date: '2026-02-01'})
  })

  it('defaults the date to today (UTC) and credits GBP and INR accounts by wire', async () => {
    const gbp = await call('POST', path(acc.gbp), {body: {rail: 'wire', amount_in_minor_units: 100}})
    expect(gbp.status).toBe(201)
    expect(gbp.body.data).toMatchObject({currency_code: 'GBP', transaction_date: new Date().toISOString().slice(0, 10)})
    const inr = await call('POST', path(acc.inr), {body: {rail: 'wire', amount_in_minor_units: 100}})
    expect(inr.body.data.currency_code).toBe('INR')
  })

  it('credits a subaccount: totals, bai2 activity item and a subaccount.credit_received event', async () => {
    const before = store.entityByRole('test')!.subaccounts.get(subaccount)!.total_incoming_in_minor_units
    const seen: EmulatorEvent[] = []
    const off = events.on((e) => seen.push(e))
    const res = await call('POST', path(acc.main), {body: {rail: 'wire', amount_in_minor_units: 2500, subaccount_id: subaccount}})
    off()
    expect(res.status).toBe(201)
    const sub = await call('GET', `/api/subaccounts/${subaccount}`)
    expect(sub.body.data.total_incoming_in_minor_units).toBe(before + 2500)
    const activity = await call('GET', `/api/subaccounts/${subaccount}/activity?limit=1`)
    expect(activity.body.data[0]).toMatchObject({source: 'bai2', direction: 'credit', amount_in_cents: 2500})
    expect(seen).toHaveLength(1)
    expect(seen[0]).toMatchObject({type: 'subaccount.credit_received', entity_id: store.entityByRole('test')!.id, data: {subaccount_id: subaccount, amount_cents: 2500, amount_in_minor_units: 2500}})
  })

  it('refuses: live entity, non-simulated account, invalid subaccount, ACH on GBP, long sender_info, non-positive amount (400)', async () => {
    expectError(await call('POST', path(acc.live), {key: keys.live, body: {rail: 'wire', amount_in_minor_units: 1}}), 400, 'VALIDATION_ERROR', /live/)
    expectError(await call('POST', path(acc.reserve), {body: {rail: 'wire', amount_in_minor_units: 1}}), 400, 'VALIDATION_ERROR', /not a simulated/)
    expectError(await call('POST', path(acc.gbp), {body: {rail: 'wire', amount_in_minor_units: 1, subaccount_id: subaccount}}), 400, 'VALIDATION_ERROR', /invalid subaccount/)
    const otherSub = store.entityByRole('test_other')!.subaccounts.items[0].id
    expectError(await call('POST', path(acc.main), {body: {rail: 'wire', amount_in_minor_units: 1, subaccount_id: otherSub}}), 400, 'VALIDATION_ERROR', /invalid subaccount/)
    expectError(await call('POST', path(acc.gbp), {body: {rail: 'standard_ach', amount_in_minor_units: 1}}), 400, 'VALIDATION_ERROR', /standard_ach/)
    expectError(await call('POST', path(acc.main), {body: {rail: 'wire', amount_in_minor_units: 1, sender_info: 'x'.repeat(201)}}), 400, 'VALIDATION_ERROR', /200/)
    expectError(await call('POST', path(acc.main), {body: {rail: 'wire', amount_in_minor_units: 0}}), 400, 'VALIDATION_ERROR', /positive/)
    expectError(await call('POST', path(acc.main), {body: {rail: 'wire', amount_in_minor_units: -5}}), 400, 'VALIDATION_ERROR')
    expectError(await call('POST', path(acc.main), {body: {rail: 'rtp', amount_in_minor_units: 5}}), 400, 'VALIDATION_ERROR')
  })

  it('unknown account and another entity\'s account are 404', async () => {
    expectError(await call('POST', path('nope'), {body: {rail: 'wire', amount_in_minor_units: 1}}), 404, 'NOT_FOUND')
    expectError(await call('POST', path(acc.other), {body: {rail: 'wire', amount_in_minor_units: 1}}), 404, 'NOT_FOUND')
  })

  it('a sandbox reference is used once: any repeat, with the same body or another, is 409 and credits nothing (no replay)', async () => {
    const headers = {'idempotency-key': `ref-${Date.now()}`}
    const body = {rail: 'wire', amount_in_minor_units: 777}
    const first = await call('POST', path(acc.main), {body, headers})
    expect(first.status).toBe(201)
    const count = store.entityByRole('test')!.bankTransactions.get(acc.main)!.size
    const again = await call('POST', path(acc.main), {body, headers})
    expectError(again, 409, 'DUPLICATE_SANDBOX_REFERENCE')
    expect(again.body.message).toContain(first.body.data.bank_transaction_id)
    expect(store.entityByRole('test')!.bankTransactions.get(acc.main)!.size).toBe(count)
    expectError(await call('POST', path(acc.main), {body: {...body, amount_in_minor_units: 778}, headers}), 409, 'DUPLICATE_SANDBOX_REFERENCE')
    expectError(await call('POST', path(acc.gbp), {body, headers}), 409, 'DUPLICATE_SANDBOX_REFERENCE')
    expect(store.entityByRole('test')!.bankTransactions.get(acc.main)!.size).toBe(count)
    expectError(await call('POST', path(acc.main), {body, headers: {'idempotency-key': 'x'.repeat(256)}}), 400, 'VALIDATION_ERROR')
  })
})

describe('account transfers', () => {
  const create = (body: Record<string, unknown>, opts: {key?: string; headers?: Record<string, string>} = {}) =>
    call('POST', '/api/treasury/account-transfers', {body: {currency_code: 'USD', rail: 'wire', amount_in_minor_units: 1000, ...body}, ...opts})

  beforeEach(async () => {
    await fetch(`${baseUrl}/_emulator/async-transfers`, {method: 'POST', headers: {'content-type': 'application/json'}, body: JSON.stringify({entity: 'test', enabled: false})})
  })

  it('auto-approve: 201 initiated; without: 201 created; approve: 200 approved; again 400; unknown 404', async () => {
    const auto = await create({from_account_id: acc.main, to_account_id: acc.reserve, rail: 'same_day_ach'})
    expect(auto.status).toBe(201)
    expect(AccountTransfer.parse(auto.body.data)).toMatchObject({status: 'initiated', rail: 'same_day_ach', scheduled_date: null})
    const manual = await create({from_account_id: acc.main, to_account_id: acc.gbp, auto_approve: false, scheduled_date: '2026-12-01', client_metadata: {po: 'PO-1', n: 2}})
    expect(manual.status).toBe(201)
    expect(manual.body.data).toMatchObject({status: 'created', scheduled_date: '2026-12-01', client_metadata: {po: 'PO-1', n: 2}})
    const approved = await call('POST', `/api/treasury/account-transfers/${manual.body.data.id}/approve`, {body: {}})
    expect(approved.status).toBe(200)
    expect(approved.body.data.status).toBe('approved')
    expectError(await call('POST', `/api/treasury/account-transfers/${manual.body.data.id}/approve`, {body: {}}), 400, 'VALIDATION_ERROR', /approved/)
    expectError(await call('POST', '/api/treasury/account-transfers/nope/approve', {body: {}}), 404, 'NOT_FOUND')
    expectError(await call('POST', `/api/treasury/account-transfers/${manual.body.data.id}/approve`, {body: {}, key: keys.test_other}), 404, 'NOT_FOUND')
  })

  it('validation: unknown account 404, same account 400, incompatible currency, unsupported rail, ACH across currencies, bad amount', async () => {
    expectError(await create({from_account_id: acc.main, to_account_id: 'nope'}), 404, 'NOT_FOUND')
    expectError(await create({from_account_id: acc.main, to_account_id: acc.other}), 404, 'NOT_FOUND')
    expectError(await create({from_account_id: acc.main, to_account_id: acc.main}), 400, 'VALIDATION_ERROR', /invalid account pair/)
    expectError(await create({from_account_id: acc.gbp, to_account_id: acc.main}), 400, 'VALIDATION_ERROR', /incompatible currency/)
    expectError(await create({from_account_id: acc.main, to_account_id: acc.reserve, rail: 'rtp'}), 400, 'VALIDATION_ERROR', /unsupported rail/)
    expectError(await create({from_account_id: acc.main, to_account_id: acc.gbp, rail: 'standard_ach'}), 400, 'VALIDATION_ERROR', /unsupported rail/)
    expectError(await create({from_account_id: acc.main, to_account_id: acc.inr, rail: 'instant_bank'}), 400, 'VALIDATION_ERROR', /unsupported rail/)
    expectError(await create({from_account_id: acc.main, to_account_id: acc.reserve, amount_in_minor_units: 0}), 400, 'VALIDATION_ERROR', /positive/)
    expectError(await create({from_account_id: acc.main, to_account_id: acc.reserve, amount_in_minor_units: 1.5}), 400, 'VALIDATION_ERROR')
  })

  it('honours no Idempotency-Key (the spec promises none for transfers): a repeated key creates another transfer', async () => {
    const headers = {'idempotency-key': `t-${Date.now()}`}
    const first = await create({from_account_id: acc.main, to_account_id: acc.reserve}, {headers})
    const size = store.entityByRole('test')!.accountTransfers.size
    const again = await create({from_account_id: acc.main, to_account_id: acc.reserve}, {headers})
    expect(again.status).toBe(201)
    expect(again.body.data.id).not.toBe(first.body.data.id)
    expect(store.entityByRole('test')!.accountTransfers.size).toBe(size + 1)
  })

  it('async initiation: 202 approved, then initiated and settled on its own, booking bank lines', async () => {
    const ctl = await fetch(`${baseUrl}/_emulator/async-transfers`, {method: 'POST', headers: {'content-type': 'application/json'}, body: JSON.stringify({entity: 'test', enabled: true, delay_ms: 30})})
    expect(await ctl.json()).toEqual({entity: 'test', enabled: true, delay_ms: 30})
    const res = await create({from_account_id: acc.main, to_account_id: acc.inr, amount_in_minor_units: 100_000})
    expect(res.status).toBe(202)
    expect(res.body.data.status).toBe('approved')
    const id = res.body.data.id
    const t = store.entityByRole('test')!.accountTransfers.get(id)!
    for (let i = 0; i < 100 && t.status !== 'settled'; i++) await new Promise((r) => setTimeout(r, 10))
    expect(t.status).toBe('settled')
    const inrLines = store.entityByRole('test')!.bankTransactions.get(acc.inr)!.items.filter((l) => l.transfer_id === id)
    expect(inrLines).toHaveLength(1)
    expect(inrLines[0]).toMatchObject({direction: 'credit', currency_code: 'INR', amount_in_minor_units: 8_312_000})
    const out = store.entityByRole('test')!.bankTransactions.get(acc.main)!.items.filter((l) => l.transfer_id === id)
    expect(out[0]).toMatchObject({direction: 'debit', amount_in_minor_units: 100_000})
  })

  it('the control API advances one step or to a status; final transfers cannot advance', async () => {
    const res = await create({from_account_id: acc.main, to_account_id: acc.reserve, auto_approve: false})
    const id = res.body.data.id
    const adv = (body: unknown) => fetch(`${baseUrl}/_emulator/transfers/${id}/advance`, {method: 'POST', headers: {'content-type': 'application/json'}, body: JSON.stringify(body)}).then(async (r) => ({status: r.status, body: await r.json()}))
    expect((await adv({})).body.data.status).toBe('approved')
    expect((await adv({})).body.data.status).toBe('initiated')
    expect((await adv({status: 'failed'})).body.data.status).toBe('failed')
    expect((await adv({})).status).toBe(400)
    expect((await adv({status: 'bogus'})).status).toBe(400)
    const missing = await fetch(`${baseUrl}/_emulator/transfers/nope/advance`, {method: 'POST', headers: {'content-type': 'application/json'}})
    expect(missing.status).toBe(404)
  })

  it('list filters: account (from or to, OR), status and rail (OR, groups), amounts and created_at inclusive', async () => {
    const a = await create({from_account_id: acc.gbp, to_account_id: acc.inr, currency_code: 'GBP', amount_in_minor_units: 5000})
    const b = await create({from_account_id: acc.inr, to_account_id: acc.gbp, currency_code: 'INR', amount_in_minor_units: 6000, auto_approve: false})
    const list = (q: Record<string, string | number | Array<string | number>>) => call('GET', `/api/treasury/account-transfers${qs({limit: 500, ...q})}`).then((r) => r.body.data.map((t: AccountTransfer) => t.id))
    const both = await list({account_id: acc.inr})
    expect(both).toEqual(expect.arrayContaining([a.body.data.id, b.body.data.id]))
    expect(await list({account_id: acc.gbp, status: 'created'})).toEqual([b.body.data.id])
    const statuses = await list({account_id: acc.gbp, status: ['created', 'initiated']})
    expect(statuses.sort()).toEqual([a.body.data.id, b.body.data.id].sort())
    expect(await list({account_id: [acc.gbp], amount_in_minor_units_gte: 5000, amount_in_minor_units_lte: 5000})).toEqual([a.body.data.id])
    const ach = await call('GET', `/api/treasury/account-transfers${qs({rail: 'ach', limit: 500})}`)
    expect(ach.body.data.length).toBeGreaterThan(0)
    expect(ach.body.data.every((t: AccountTransfer) => t.rail === 'same_day_ach' || t.rail === 'standard_ach')).toBe(true)
    const wire = await call('GET', `/api/treasury/account-transfers${qs({rail: ['instant', 'wire'], limit: 500})}`)
    expect(wire.body.data.every((t: AccountTransfer) => t.rail === 'wire')).toBe(true)
    const created = a.body.data.created_at
    expect(await list({account_id: acc.gbp, created_at_gte: created, created_at_lte: created, amount_in_minor_units_gte: 5000, amount_in_minor_units_lte: 5000})).toEqual([a.body.data.id])
    expect(await list({account_id: acc.gbp, created_at_gte: '2999-01-01T00:00:00Z'})).toEqual([])
    const bads: Array<Record<string, string | number>> = [{status: 'lost'}, {rail: 'rtp'}, {amount_in_minor_units_gte: 'x'}, {created_at_lte: 'today'}, {limit: 0}, {cursor: 'nope'}]
    for (const bad of bads) {
      expectError(await call('GET', `/api/treasury/account-transfers${qs(bad)}`), 400, 'VALIDATION_ERROR')
    }
    const other = await call('GET', '/api/treasury/account-transfers', {key: keys.test_other})
    expect(other.body.data).toEqual([])
  })

  it('pages the list with cursors without repeating items', async () => {
    const ids: string[] = []
    let cursor: string | undefined
    for (;;) {
      const r = await call('GET', `/api/treasury/account-transfers${qs(cursor ? {limit: 2, cursor} : {limit: 2})}`)
      ids.push(...r.body.data.map((t: AccountTransfer) => t.id))
      if (!r.body.has_more) break
      cursor = r.body.next_cursor
    }
    expect(new Set(ids).size).toBe(ids.length)
    expect(ids.length).toBe(store.entityByRole('test')!.accountTransfers.size)
  })

  it('conversion estimate: exact conversion; same account and bad amount 400; unknown account 404', async () => {
    const est = await call('GET', `/api/treasury/account-transfers/conversion-estimate${qs({from_account_id: acc.main, to_account_id: acc.inr, amount_in_minor_units: 100_000})}`)
    expect(est.status).toBe(200)
    expect(ConversionEstimate.parse(est.body.data)).toEqual({
      source_currency_code: 'USD',
      source_amount_in_minor_units: 100_000,
      destination_currency_code: 'INR',
      destination_amount_in_minor_units: 8_312_000,
      indicative_fx_rate: '83.12',
    })
    const gbp = await call('GET', `/api/treasury/account-transfers/conversion-estimate${qs({from_account_id: acc.gbp, to_account_id: acc.main, amount_in_minor_units: 10_000})}`)
    expect(gbp.body.data).toMatchObject({destination_amount_in_minor_units: 12_658, indicative_fx_rate: '1.265823'})
    const path = '/api/treasury/account-transfers/conversion-estimate'
    expectError(await call('GET', `${path}${qs({from_account_id: acc.main, to_account_id: acc.main, amount_in_minor_units: 1})}`), 400, 'VALIDATION_ERROR', /invalid account pair/)
    expectError(await call('GET', `${path}${qs({from_account_id: acc.main, to_account_id: acc.inr, amount_in_minor_units: 0})}`), 400, 'VALIDATION_ERROR')
    expectError(await call('GET', `${path}${qs({from_account_id: acc.main, to_account_id: acc.inr, amount_in_minor_units: '1.5'})}`), 400, 'VALIDATION_ERROR')
    expectError(await call('GET', `${path}${qs({from_account_id: acc.main, to_account_id: acc.inr})}`), 400, 'VALIDATION_ERROR')
    expectError(await call('GET', `${path}${qs({from_account_id: acc.main, to_account_id: 'nope', amount_in_minor_units: 1})}`), 404, 'NOT_FOUND')
    expectError(await call('GET', `${path}${qs({from_account_id: acc.main, to_account_id: acc.inr, amount_in_minor_units: 1})}`, {key: keys.test_other}), 404, 'NOT_FOUND')
  })

  it('rail options: ACH, RTP, Wire between USD accounts; Wire across currencies', async () => {
    const path = '/api/treasury/account-transfers/rail-options'
    expect((await call('GET', `${path}${qs({from_account_id: acc.main, to_account_id: acc.reserve})}`)).body.data).toEqual({supported_rails: ['ACH', 'RTP', 'Wire']})
    expect((await call('GET', `${path}${qs({from_account_id: acc.main, to_account_id: acc.gbp})}`)).body.data).toEqual({supported_rails: ['Wire']})
    expectError(await call('GET', `${path}${qs({from_account_id: acc.main})}`), 400, 'VALIDATION_ERROR')
    expectError(await call('GET', `${path}${qs({from_account_id: acc.main, to_account_id: acc.main})}`), 400, 'VALIDATION_ERROR')
    expectError(await call('GET', `${path}${qs({from_account_id: acc.main, to_account_id: 'nope'})}`), 404, 'NOT_FOUND')
  })

  it('state survives a JSON round trip of the store', async () => {
    const {Store} = await import('../src/store/index.js')
    const copy = Store.fromJSON(JSON.parse(JSON.stringify(store)))
    const e = copy.entityByRole('test')!
    expect(e.accountTransfers.size).toBe(store.entityByRole('test')!.accountTransfers.size)
    expect(e.bankTransactions.get(acc.main)!.size).toBe(store.entityByRole('test')!.bankTransactions.get(acc.main)!.size)
    expect([...e.creditReferences.keys()]).toEqual([...store.entityByRole('test')!.creditReferences.keys()])
  })
})
