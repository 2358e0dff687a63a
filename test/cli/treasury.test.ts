import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {defaultConfigDir, expectNothingSent, knownSecrets, run, runAs, startEmulator, type Emulator, outcomeOf, expectOnlyRequests} from '../support/index.js'

let emu: Emulator
let main: string
let gbp: string
let inr: string
let reserve: string
let otherMain: string
let liveMain: string
let sub: string

async function accounts(key = 'test'): Promise<any[]> {
  const r = await runAs(emu, key, ['treasury', 'accounts', 'list', '--all'])
  expect(r.code, r.stderr).toBe(0)
  return r.json()
}

const errorJson = (stderr: string) => JSON.parse(stderr.trim().split('\n').find((l) => l.startsWith('{'))!)
/** Runs `fn` and asserts the emulator received nothing and the (default) audit trail did not grow. */
const nothingSent = <T>(fn: () => Promise<T>) => expectNothingSent(emu, fn, defaultConfigDir())
/**
 * Runs `fn` and asserts the emulator received exactly `reads` ("GET /api/…" lookups, which change
 * nothing) and the audit trail did not grow: nothing that changes anything was sent.
 */
const onlyReads = <T>(reads: string[], fn: () => Promise<T>) => expectOnlyRequests(emu, reads, fn, defaultConfigDir())

beforeAll(async () => {
  emu = await startEmulator()
  const list = await accounts()
  main = list.find((a) => a.label === 'Main operating account').id
  gbp = list.find((a) => a.currency_code === 'GBP').id
  inr = list.find((a) => a.currency_code === 'INR').id
  reserve = list.find((a) => a.currency_code === 'USD' && a.id !== main).id
  otherMain = (await accounts('test_other'))[0].id
  const live = await runAs(emu, 'live', ['treasury', 'accounts', 'list'])
  liveMain = live.json()[0].id
  const entities = await emu.control<{data: Array<{role: string; subaccount_ids: string[]}>}>('GET', '/_emulator/entities')
  sub = entities.data.find((e) => e.role === 'test')!.subaccount_ids[0]
})
afterAll(async () => {
  await emu?.stop()
})

describe('treasury accounts list', () => {
  it('lists the entity\'s accounts as JSON on stdout alone', async () => {
    const r = await runAs(emu, 'test', ['treasury', 'accounts', 'list'])
    expect(r.code).toBe(0)
    // stderr carries only where the list stopped, for scripts that page.
    expect(r.stderr).toBe('{"page":{"has_more":false,"next_cursor":null,"previous_cursor":null}}\n')
    const items = r.json()
    expect(items).toHaveLength(4)
    expect(items.map((a: any) => a.currency_code).sort()).toEqual(['GBP', 'INR', 'USD', 'USD'])
    for (const a of items) expect(a.last_four_digits).toMatch(/^\d{4}$/)
  })

  it('scopes by entity: the other test entity and the live entity see one account each', async () => {
    expect(await accounts('test_other')).toHaveLength(1)
    expect(liveMain).toMatch(/^[0-9a-f-]{36}$/)
    expect(otherMain).not.toBe(main)
  })

  it('renders a table, pages with --limit and --cursor, streams --all as ndjson and csv', async () => {
    const first = await runAs(emu, 'test', ['treasury', 'accounts', 'list', '--limit', '3', '--order', 'asc', '-o', 'table'])
    expect(first.code).toBe(0)
    expect(first.stdout).toMatch(/LABEL\s+CURRENCY\s+LAST FOUR/)
    expect(first.stdout).toMatch(/Main operating account\s+USD/)
    const cursor = /--cursor (\S+)/.exec(first.stderr)![1]
    const second = await runAs(emu, 'test', ['treasury', 'accounts', 'list', '--limit', '3', '--order', 'asc', '--cursor', cursor])
    expect(second.json()).toHaveLength(1)
    const all = await runAs(emu, 'test', ['treasury', 'accounts', 'list', '--limit', '1', '--all', '-o', 'ndjson'])
    const lines = all.stdout.trim().split('\n')
    expect(lines).toHaveLength(4)
    expect(new Set(lines.map((l) => JSON.parse(l).id)).size).toBe(4)
    const csv = await runAs(emu, 'test', ['treasury', 'accounts', 'list', '-o', 'csv', '--order', 'asc', '--limit', '1'])
    const [header, row] = csv.stdout.trim().split('\r\n')
    expect(header).toBe('id,label,currency_code,last_four_digits,created_at')
    expect(row).toMatch(new RegExp(`^${main},Main operating account,USD,\\d{4},`))
  })

  it('bad list flags are usage errors (exit 2); a bad cursor is a 400 (exit 8); a bad key exit 3', async () => {
    expect((await nothingSent(() => runAs(emu, 'test', ['treasury', 'accounts', 'list', '--limit', '0']))).code).toBe(2)
    expect((await nothingSent(() => runAs(emu, 'test', ['treasury', 'accounts', 'list', '--limit', '501']))).code).toBe(2)
    const bad = await runAs(emu, 'test', ['treasury', 'accounts', 'list', '--cursor', 'nope', '-o', 'json'])
    expect(bad.code).toBe(8)
    expect(errorJson(bad.stderr).error.error_code).toBe('VALIDATION_ERROR')
    const unauth = await runAs(emu, 'test_00000000000000000000000000000bad', ['treasury', 'accounts', 'list'])
    expect(unauth.code).toBe(3)
    expect(unauth.stderr).toMatch(/401 AUTHENTICATION_ERROR/)
  })
})

describe('treasury accounts update-label', () => {
  it('changes the label (trimmed) and shows it in the list', async () => {
    const r = await runAs(emu, 'test', ['treasury', 'accounts', 'update-label', inr, '--label', '  Rupee ops  '])
    expect(r.code, r.stderr).toBe(0)
    expect(r.json()).toMatchObject({id: inr, label: 'Rupee ops', currency_code: 'INR'})
    expect((await accounts()).find((a) => a.id === inr).label).toBe('Rupee ops')
  })

  it('an empty or over-long label is refused before sending (exit 2); the API says 400 too (exit 8)', async () => {
    const empty = await nothingSent(() => runAs(emu, 'test', ['treasury', 'accounts', 'update-label', inr, '--label', '   ']))
    expect(empty.code).toBe(2)
    expect(empty.stderr).toMatch(/label/)
    expect((await nothingSent(() => runAs(emu, 'test', ['treasury', 'accounts', 'update-label', inr, '--label', 'x'.repeat(101)]))).code).toBe(2)
    expect((await nothingSent(() => runAs(emu, 'test', ['treasury', 'accounts', 'update-label', inr]))).code).toBe(2)
    const raw = await runAs(emu, 'test', ['api', 'POST', `/api/treasury/accounts/${inr}/update-label`, '-f', 'label='])
    expect(raw.code).toBe(8)
    expect(raw.stderr).toMatch(/400 VALIDATION_ERROR/)
  })

  it('unknown and other-entity accounts are not found (exit 4)', async () => {
    expect((await runAs(emu, 'test', ['treasury', 'accounts', 'update-label', 'nope', '--label', 'x'])).code).toBe(4)
    const other = await runAs(emu, 'test_other', ['treasury', 'accounts', 'update-label', main, '--label', 'x'])
    expect(other.code).toBe(4)
    expect(other.stderr).toMatch(/404 NOT_FOUND/)
  })

  it('a read-only key is forbidden (403, exit 3)', async () => {
    const {key} = await emu.control<{key: string}>('POST', '/_emulator/keys', {entity: 'test', read_only: true})
    knownSecrets.add(key)
    const r = await runAs(emu, key, ['treasury', 'accounts', 'update-label', inr, '--label', 'x'])
    expect(r.code).toBe(3)
    expect(r.stderr).toMatch(/403 AUTHORIZATION_ERROR/)
  })

  it('on a live key it asks; without a terminal it refuses (exit 3) unless --yes', async () => {
    const refused = await nothingSent(() => runAs(emu, 'live', ['treasury', 'accounts', 'update-label', liveMain, '--label', 'Live ops']))
    expect(refused.code).toBe(3)
    expect(refused.stderr).toMatch(/LIVE/)
    expect(refused.stderr).toMatch(/Relabel treasury account/)
    const declined = await nothingSent(() => runAs(emu, 'live', ['treasury', 'accounts', 'update-label', liveMain, '--label', 'Live ops'], {tty: true, answers: ['n']}))
    expect(declined.code).toBe(3)
    expect(declined.asked).toEqual(['Proceed with a LIVE action?'])
    expect(declined.stderr).toMatch(/Relabel treasury account/)
    const ok = await runAs(emu, 'live', ['treasury', 'accounts', 'update-label', liveMain, '--label', 'Live ops', '--yes'])
    expect(ok.code, ok.stderr).toBe(0)
    expect(ok.json().label).toBe('Live ops')
  })
})

describe('treasury transactions', () => {
  it('lists bank lines; unknown fields stay omitted', async () => {
    const r = await runAs(emu, 'test', ['treasury', 'transactions', 'list', main, '--order', 'asc'])
    expect(r.code, r.stderr).toBe(0)
    const items = r.json()
    expect(items.length).toBeGreaterThanOrEqual(6)
    const fee = items.find((t: any) => t.description === 'MISCELLANEOUS FEE')
    expect(Object.keys(fee).sort()).toEqual(['amount_in_minor_units', 'currency_code', 'description', 'id'])
    expect(r.stdout).not.toMatch(/null/)
  })

  it('filters by inclusive transaction dates; a bad date is exit 2', async () => {
    const r = await runAs(emu, 'test', ['treasury', 'transactions', 'list', main, '--transaction-date-gte', '2026-01-05', '--transaction-date-lte', '2026-01-10', '--order', 'asc'])
    expect(r.json().map((t: any) => t.transaction_date)).toEqual(['2026-01-05', '2026-01-07', '2026-01-10'])
    const bad = await nothingSent(() => runAs(emu, 'test', ['treasury', 'transactions', 'list', main, '--transaction-date-gte', '2026-02-30']))
    expect(bad.code).toBe(2)
    expect(bad.stderr).toMatch(/YYYY-MM-DD/)
    expect((await nothingSent(() => runAs(emu, 'test', ['treasury', 'transactions', 'list', main, '--transaction-date-lte', 'yesterday']))).code).toBe(2)
  })

  it('pages with --limit/--cursor, --all streams ndjson, csv leaves unknown cells empty', async () => {
    const first = await runAs(emu, 'test', ['treasury', 'transactions', 'list', main, '--limit', '2', '--order', 'asc', '-o', 'table'])
    expect(first.stdout).toMatch(/25,000\.00 USD/)
    const cursor = /--cursor (\S+)/.exec(first.stderr)![1]
    const second = await runAs(emu, 'test', ['treasury', 'transactions', 'list', main, '--limit', '2', '--order', 'asc', '--cursor', cursor])
    expect(second.json().map((t: any) => t.description)).toEqual(['BOOK TRANSFER', 'MISCELLANEOUS FEE'])
    const total = (await runAs(emu, 'test', ['treasury', 'transactions', 'list', main, '--limit', '500'])).json().length
    const all = await runAs(emu, 'test', ['treasury', 'transactions', 'list', main, '--limit', '2', '--all', '-o', 'ndjson'])
    expect(all.stdout.trim().split('\n')).toHaveLength(total)
    const csv = await runAs(emu, 'test', ['treasury', 'transactions', 'list', main, '-o', 'csv', '--order', 'asc', '--limit', '4'])
    const rows = csv.stdout.trim().split('\r\n')
    expect(rows[0]).toBe('id,transaction_date,direction,amount,description,sender_info,receiver_info')
    expect(rows[1]).toMatch(/,2026-01-05,credit,25000\.00 USD,WIRE IN,Globex Corporation,$/)
    expect(rows[4]).toMatch(/^[0-9a-f-]{36},,,9\.99 USD,MISCELLANEOUS FEE,,$/)
  })

  it('unknown account, other entity (exit 4); bad cursor (exit 8)', async () => {
    expect((await runAs(emu, 'test', ['treasury', 'transactions', 'list', 'nope'])).code).toBe(4)
    expect((await runAs(emu, 'test_other', ['treasury', 'transactions', 'list', main])).code).toBe(4)
    expect((await runAs(emu, 'test', ['treasury', 'transactions', 'list', main, '--cursor', 'bogus'])).code).toBe(8)
  })

  it('gets one line; unknown line, unknown account, other entity are exit 4', async () => {
    const first = (await runAs(emu, 'test', ['treasury', 'transactions', 'list', main, '--limit', '1'])).json()[0]
    const r = await runAs(emu, 'test', ['treasury', 'transactions', 'get', main, first.id])
    expect(r.code).toBe(0)
    expect(r.json()).toEqual(first)
    const table = await runAs(emu, 'test', ['treasury', 'transactions', 'get', main, first.id, '-o', 'table'])
    expect(table.stdout).toMatch(/AMOUNT\s+[\d,.]+ USD/)
    const missing = await runAs(emu, 'test', ['treasury', 'transactions', 'get', main, '00000000-0000-4000-8000-000000000000'])
    expect(missing.code).toBe(4)
    expect(missing.stderr).toMatch(/bank transaction/)
    expect((await runAs(emu, 'test', ['treasury', 'transactions', 'get', gbp, first.id])).code).toBe(4)
    expect((await runAs(emu, 'test', ['treasury', 'transactions', 'get', 'nope', first.id])).code).toBe(4)
    expect((await runAs(emu, 'test_other', ['treasury', 'transactions', 'get', main, first.id])).code).toBe(4)
  })
})

describe('treasury simulate-credit', () => {
  it('credits the account in its own currency; the line is then listed and fetched by its id', async () => {
    const r = await runAs(emu, 'test', ['treasury', 'simulate-credit', main, '--rail', 'standard_ach', '--amount', '1,234.56', '--sender-info', 'Wayne Enterprises', '--transaction-date', '2026-03-01'])
    expect(r.code, r.stderr).toBe(0)
    expect(outcomeOf(r)).toMatchObject({kind: 'created', idempotency_key: expect.stringMatching(/^[0-9a-f-]{36}$/)})
    const credit = r.json()
    expect(credit).toMatchObject({amount_in_minor_units: 123456, currency_code: 'USD', transaction_date: '2026-03-01', direction: 'credit'})
    const line = await runAs(emu, 'test', ['treasury', 'transactions', 'get', main, credit.bank_transaction_id])
    expect(line.json()).toMatchObject({amount_in_minor_units: 123456, sender_info: 'Wayne Enterprises', direction: 'credit'})
    const listed = await runAs(emu, 'test', ['treasury', 'transactions', 'list', main, '--transaction-date-gte', '2026-03-01', '--transaction-date-lte', '2026-03-01'])
    expect(listed.json().map((t: any) => t.id)).toContain(credit.bank_transaction_id)
  })

  it('parses --amount with the account\'s currency (GBP by wire); a different --currency is exit 2', async () => {
    const r = await runAs(emu, 'test', ['treasury', 'simulate-credit', gbp, '--rail', 'wire', '--amount', '10.50', '-o', 'table'])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toMatch(/AMOUNT\s+10\.50 GBP/)
    // Refused once the account's currency is read: only that lookup is sent.
    const mismatch = await onlyReads(['GET /api/treasury/accounts'], () => runAs(emu, 'test', ['treasury', 'simulate-credit', gbp, '--rail', 'wire', '--amount', '10.50', '--currency', 'USD']))
    expect(mismatch.code).toBe(2)
    expect(mismatch.stderr).toMatch(/does not match/)
  })

  it('credits a subaccount: its incoming total and a bai2 activity item', async () => {
    const before = (await runAs(emu, 'test', ['subaccounts', 'get', sub])).json().total_incoming_in_minor_units
    const r = await runAs(emu, 'test', ['treasury', 'simulate-credit', main, '--rail', 'wire', '--amount-minor', '2500', '--subaccount', sub])
    expect(r.code, r.stderr).toBe(0)
    expect((await runAs(emu, 'test', ['subaccounts', 'get', sub])).json().total_incoming_in_minor_units).toBe(before + 2500)
    const activity = (await runAs(emu, 'test', ['subaccounts', 'activity', sub, '--limit', '1'])).json()
    expect(activity[0]).toMatchObject({source: 'bai2', direction: 'credit', amount_in_minor_units: 2500})
  })

  it('is refused on a live key before any request (exit 3)', async () => {
    // The base URL answers nothing: had a request been sent the exit would be 7.
    const r = await run(['treasury', 'simulate-credit', liveMain, '--rail', 'wire', '--amount', '1.00'], {
      env: {PAYOPS_BASE_URL: 'http://127.0.0.1:1', PAYOPS_API_KEY: emu.keys.live},
    })
    expect(r.code).toBe(3)
    expect(r.stderr).toMatch(/sandbox operation.*LIVE/)
    expect(r.stderr).toMatch(/Nothing was sent/)
    // Against the emulator: it receives nothing, with or without --yes.
    const live = await nothingSent(() => runAs(emu, 'live', ['treasury', 'simulate-credit', liveMain, '--rail', 'wire', '--amount', '1.00']))
    expect(live.code).toBe(3)
    expect(live.stderr).toMatch(/sandbox operation.*LIVE/)
    const yes = await nothingSent(() => runAs(emu, 'live', ['treasury', 'simulate-credit', liveMain, '--rail', 'wire', '--amount', '1.00', '--yes']))
    expect(yes.code).toBe(3)
    expect(yes.stderr).toMatch(/Nothing was sent/)
  })

  it('the API refuses a non-simulated account, ACH on GBP and a foreign subaccount (400, exit 8)', async () => {
    const reserveR = await runAs(emu, 'test', ['treasury', 'simulate-credit', reserve, '--rail', 'wire', '--amount', '5.00'])
    expect(reserveR.code).toBe(8)
    expect(reserveR.stderr).toMatch(/not a simulated account/)
    const ach = await runAs(emu, 'test', ['treasury', 'simulate-credit', gbp, '--rail', 'standard_ach', '--amount', '5.00'])
    expect(ach.code).toBe(8)
    expect(ach.stderr).toMatch(/standard_ach needs a US\/USD/)
    const wrongSub = await runAs(emu, 'test', ['treasury', 'simulate-credit', gbp, '--rail', 'wire', '--amount', '5.00', '--subaccount', sub])
    expect(wrongSub.code).toBe(8)
    expect(wrongSub.stderr).toMatch(/invalid subaccount/)
  })

  it('bad input is refused before sending (exit 2): sender_info over 200, zero or negative amount, bad date, no rail', async () => {
    const cases = [
      ['--rail', 'wire', '--amount', '1', '--sender-info', 'x'.repeat(201)],
      ['--rail', 'wire', '--amount', '0'],
      ['--rail', 'wire', '--amount-minor', '-5'],
      ['--rail', 'wire', '--amount', '1', '--transaction-date', '03/01/2026'],
      ['--amount', '1'],
      ['--rail', 'rtp', '--amount', '1'],
    ]
    for (const args of cases) {
      const r = await nothingSent(() => runAs(emu, 'test', ['treasury', 'simulate-credit', main, ...args]))
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(2)
      expect(r.stdout).toBe('')
    }
  })

  it('unknown or other-entity account is not found (exit 4)', async () => {
    expect((await runAs(emu, 'test', ['treasury', 'simulate-credit', 'nope', '--rail', 'wire', '--amount', '1.00'])).code).toBe(4)
    expect((await runAs(emu, 'test', ['treasury', 'simulate-credit', 'nope', '--rail', 'wire', '--amount-minor', '100'])).code).toBe(4)
    expect((await runAs(emu, 'test', ['treasury', 'simulate-credit', otherMain, '--rail', 'wire', '--amount-minor', '100'])).code).toBe(4)
  })

  it('a retry with the same reference credits once; the reference with other details is a conflict (exit 5)', async () => {
    const ref = `sim-${Date.now()}`
    const first = await runAs(emu, 'test', ['treasury', 'simulate-credit', main, '--rail', 'wire', '--amount-minor', '4242', '--idempotency-key', ref])
    expect(first.code, first.stderr).toBe(0)
    const again = await runAs(emu, 'test', ['treasury', 'simulate-credit', main, '--rail', 'wire', '--amount-minor', '4242', '--reference', ref])
    expect(again.code).toBe(0)
    expect(again.json().bank_transaction_id).toBe(first.json().bank_transaction_id)
    expect(outcomeOf(again)).toMatchObject({kind: 'replayed', id: first.json().bank_transaction_id, idempotency_key: ref})
    const conflict = await runAs(emu, 'test', ['treasury', 'simulate-credit', main, '--rail', 'wire', '--amount-minor', '4243', '--idempotency-key', ref])
    expect(conflict.code).toBe(5)
    expect(conflict.stderr).toMatch(/409 DUPLICATE_SANDBOX_REFERENCE/)
  })

  it('an invalid key is exit 3', async () => {
    const r = await runAs(emu, 'test_00000000000000000000000000000bad', ['treasury', 'simulate-credit', main, '--rail', 'wire', '--amount-minor', '1'])
    expect(r.code).toBe(3)
  })
})
