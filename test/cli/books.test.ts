import {afterAll, beforeAll, beforeEach, describe, expect, it} from 'vitest'
import {scheduleDayOf} from '../../src/books/dates.js'
import {expectNothingSent, expectOnlyRequests, runAs, startEmulator, tempDir, type Emulator} from '../support/index.js'

let emu: Emulator
let main: string
let reserve: string
let gbp: string
let otherMain: string

const errorJson = (stderr: string) => JSON.parse(stderr.trim().split('\n').find((l) => l.startsWith('{'))!)

async function accounts(key = 'test'): Promise<any[]> {
  const r = await runAs(emu, key, ['treasury', 'accounts', 'list', '--all'])
  expect(r.code, r.stderr).toBe(0)
  return r.json()
}

/** Credits minus debits of an account's bank lines (those with a direction), read through the list. */
async function linesBalance(account: string): Promise<number> {
  const r = await runAs(emu, 'test', ['treasury', 'transactions', 'list', account, '--all', '-o', 'ndjson'])
  expect(r.code, r.stderr).toBe(0)
  let sum = 0
  for (const l of r.stdout.trim().split('\n').filter(Boolean)) {
    const t = JSON.parse(l)
    if (t.direction === 'credit') sum += t.amount_in_minor_units
    if (t.direction === 'debit') sum -= t.amount_in_minor_units
  }
  return sum
}

async function balance(account: string): Promise<any> {
  const r = await runAs(emu, 'test', ['treasury', 'accounts', 'balance', account, '-o', 'json'])
  expect(r.code, r.stderr).toBe(0)
  return r.json()
}

async function transfer(args: string[]): Promise<any> {
  const r = await runAs(emu, 'test', ['transfers', 'create', ...args, '-o', 'json'])
  expect(r.code, r.stderr).toBe(0)
  return r.json()
}

beforeAll(async () => {
  emu = await startEmulator()
})
/** Fresh data and the ids of the seeded accounts. */
async function reset() {
  await emu.reset()
  const list = await accounts()
  main = list.find((a) => a.label === 'Main operating account').id
  reserve = list.find((a) => a.currency_code === 'USD' && a.id !== main).id
  gbp = list.find((a) => a.currency_code === 'GBP').id
  otherMain = (await accounts('test_other'))[0].id
}
beforeEach(reset)
afterAll(async () => {
  await emu?.stop()
})

describe('treasury accounts balance', () => {
  it('is what the bank lines add up to; a transfer out sets money aside until it is booked', async () => {
    const before = await balance(main)
    expect(before).toMatchObject({account_id: main, currency_code: 'USD'})
    expect(before.current_balance_in_minor_units).toBe(await linesBalance(main))
    expect(before.available_balance_in_minor_units).toBe(before.current_balance_in_minor_units)
    expect(Number.isNaN(Date.parse(before.as_of))).toBe(false)

    const t = await transfer(['--from', main, '--to', reserve, '--amount-minor', '12345', '--currency', 'USD', '--rail', 'wire'])
    expect(t.status).toBe('initiated')
    const committed = await balance(main)
    expect(committed.current_balance_in_minor_units).toBe(before.current_balance_in_minor_units)
    expect(committed.available_balance_in_minor_units).toBe(before.current_balance_in_minor_units - 12345)

    await emu.control('POST', `/_emulator/transfers/${t.id}/advance`, {status: 'settled'})
    const booked = await balance(main)
    expect(booked.current_balance_in_minor_units).toBe(before.current_balance_in_minor_units - 12345)
    expect(booked.available_balance_in_minor_units).toBe(booked.current_balance_in_minor_units)
    expect(booked.current_balance_in_minor_units).toBe(await linesBalance(main))
    expect((await balance(reserve)).current_balance_in_minor_units).toBe(await linesBalance(reserve))
  })

  it('shows money on a terminal and in csv', async () => {
    const table = await runAs(emu, 'test', ['treasury', 'accounts', 'balance', gbp, '-o', 'table'])
    expect(table.code, table.stderr).toBe(0)
    expect(table.stdout).toMatch(/CURRENT\s+0\.00 GBP/)
    const csv = await runAs(emu, 'test', ['treasury', 'accounts', 'balance', gbp, '-o', 'csv'])
    expect(csv.stdout.split('\r\n')[0]).toBe('account_id,current,available,as_of')
    expect(csv.stdout.split('\r\n')[1]).toMatch(new RegExp(`^${gbp},0.00 GBP,0.00 GBP,`))
  })

  it('an unknown account and another entity\'s account are not found (exit 4, one line)', async () => {
    const unknown = await runAs(emu, 'test', ['treasury', 'accounts', 'balance', '00000000-0000-4000-8000-000000000000', '-o', 'json'])
    expect(unknown.code).toBe(4)
    expect(errorJson(unknown.stderr).error.error_code).toBe('NOT_FOUND')
    const other = await runAs(emu, 'test', ['treasury', 'accounts', 'balance', otherMain, '-o', 'table'])
    expect(other.code).toBe(4)
    expect(other.stderr.trim().split('\n')).toHaveLength(1)
    expect(other.stderr).toMatch(/404 NOT_FOUND/)
  })
})

describe('the emulator\'s bank feed', () => {
  it('adds a bank line by hand through the control API', async () => {
    const {data} = await emu.control('POST', '/_emulator/bank-lines', {
      account_id: main,
      amount_in_minor_units: 777,
      direction: 'debit',
      description: 'SERVICE CHARGE',
      transaction_date: '2026-03-02',
    })
    const got = await runAs(emu, 'test', ['treasury', 'transactions', 'get', main, data.id, '-o', 'json'])
    expect(got.json()).toMatchObject({id: data.id, amount_in_minor_units: 777, direction: 'debit', currency_code: 'USD', transaction_date: '2026-03-02', description: 'SERVICE CHARGE'})
    await expect(emu.control('POST', '/_emulator/bank-lines', {account_id: main, amount_in_minor_units: 0, direction: 'debit'})).rejects.toThrow(/400/)
    await expect(emu.control('POST', '/_emulator/bank-lines', {account_id: 'nope', amount_in_minor_units: 5, direction: 'debit'})).rejects.toThrow(/404/)
  })

  it('off: a settlement is dated the day it settles and books no fee', async () => {
    const t = await transfer(['--from', main, '--to', reserve, '--amount-minor', '500', '--currency', 'USD', '--rail', 'standard_ach', '--scheduled-date', '2026-02-02'])
    await emu.control('POST', `/_emulator/transfers/${t.id}/advance`, {status: 'settled'})
    const lines = (await runAs(emu, 'test', ['treasury', 'transactions', 'list', main, '--limit', '2', '--order', 'desc'])).json()
    expect(lines[0]).toMatchObject({amount_in_minor_units: 500, direction: 'debit', transaction_date: new Date().toISOString().slice(0, 10)})
    expect(lines[1].description).not.toMatch(/FEE/)
  })

  it('on: lines are dated send day + the rail\'s lag, and seeded fees come as separate lines, the same for the same seed', async () => {
    async function run(seed: number) {
      await reset()
      await emu.control('POST', '/_emulator/bank-feed', {entity: 'test', enabled: true, fee_rate: 0.5, seed})
      const feeDays: string[] = []
      for (let i = 0; i < 8; i++) {
        const rail = i % 2 ? 'wire' : 'standard_ach'
        const t = await transfer(['--from', main, '--to', reserve, '--amount-minor', String(1000 + i), '--currency', 'USD', '--rail', rail, '--scheduled-date', `2026-02-1${i}`])
        await emu.control('POST', `/_emulator/transfers/${t.id}/advance`, {status: 'settled'})
      }
      const lines = (await runAs(emu, 'test', ['treasury', 'transactions', 'list', main, '--transaction-date-gte', '2026-02-01', '--all', '--order', 'asc'])).json()
      for (const l of lines) {
        if (/FEE/.test(l.description)) {
          feeDays.push(`${l.transaction_date} ${l.amount_in_minor_units}`)
          continue
        }
        const i = l.amount_in_minor_units - 1000
        expect(l.transaction_date).toBe(`2026-02-${String(10 + i + (i % 2 ? 0 : 2)).padStart(2, '0')}`)
      }
      return feeDays
    }
    const a = await run(7)
    expect(a.length).toBeGreaterThan(0)
    expect(a.length).toBeLessThan(8)
    for (const f of a) expect(f).toMatch(/ (25|2500)$/)
    expect(await run(7)).toEqual(a)
    const c = await run(8)
    expect(c).not.toEqual(a)
  })
})

let sub: string
let reserveLabel: string
/** What each transfer of the scenario is, by name. */
const ids: Record<string, string> = {}
const lines: Record<string, string> = {}

async function settle(id: string) {
  await emu.control('POST', `/_emulator/transfers/${id}/advance`, {status: 'settled'})
}
async function hand(body: Record<string, unknown>): Promise<string> {
  return (await emu.control('POST', '/_emulator/bank-lines', body)).data.id
}

/**
 * March 2026 on the main account, every kind on purpose: two settled transfers the bank reported
 * (a wire the same day, a standard ACH two days later), a fee nobody announced, a settled transfer
 * the bank never reported in the window, a wire still initiated, a wire the bank booked for
 * another amount, and a simulated credit to a subaccount.
 */
async function scenario() {
  await emu.control('POST', '/_emulator/bank-feed', {entity: 'test', enabled: true, fee_rate: 0, seed: 1})
  sub = (await emu.control('GET', '/_emulator/entities')).data.find((e: any) => e.role === 'test').subaccount_ids[0]
  reserveLabel = (await accounts()).find((a) => a.id === reserve).label
  const wire = (amount: number, day: string, rail = 'wire') =>
    transfer(['--from', main, '--to', reserve, '--amount-minor', String(amount), '--currency', 'USD', '--rail', rail, '--scheduled-date', day])
  ids.wire = (await wire(10_000, '2026-03-02')).id
  await settle(ids.wire)
  ids.ach = (await wire(20_000, '2026-03-09', 'standard_ach')).id
  await settle(ids.ach)
  lines.fee = await hand({account_id: main, amount_in_minor_units: 1500, direction: 'debit', description: 'SERVICE FEE', transaction_date: '2026-03-12'})
  ids.unreported = (await wire(30_000, '2026-03-20')).id
  await emu.control('POST', '/_emulator/bank-feed', {entity: 'test', enabled: false})
  await settle(ids.unreported) // booked today, months after the window
  await emu.control('POST', '/_emulator/bank-feed', {entity: 'test', enabled: true, fee_rate: 0, seed: 1})
  ids.stuck = (await wire(50_000, '2026-03-25')).id
  ids.short = (await wire(40_000, '2026-03-16')).id
  lines.short = await hand({account_id: main, amount_in_minor_units: 39_000, direction: 'debit', receiver_info: reserveLabel, transaction_date: '2026-03-16'})
  const credit = await runAs(emu, 'test', ['treasury', 'simulate-credit', main, '--rail', 'wire', '--amount-minor', '5000', '--subaccount', sub, '--transaction-date', '2026-03-18', '-o', 'json'])
  expect(credit.code, credit.stderr).toBe(0)
  lines.credit = credit.json().bank_transaction_id
}

describe('reconcile', () => {
  const reconcileRun = (args: string[], opts: Parameters<typeof runAs>[3] = {}) => runAs(emu, 'test', ['reconcile', ...args], opts)
  const byExpected = (items: any[], id: string) => items.filter((i) => i.expected_id === id)

  it('finds every kind, exits 9 while exceptions remain, and keys are stable', async () => {
    await scenario()
    const r = await reconcileRun([main, '--from', '2026-03-01', '--to', '2026-03-31', '--subaccount', sub, '-o', 'json'])
    expect(r.code, r.stderr).toBe(9)
    expect(r.stderr).toMatch(/^Error: 4 exceptions on .* \(1 bank_only, 1 transfer_only, 1 stuck, 1 amount_mismatch\); resolve each with/)
    const report = r.json()
    expect(report).toMatchObject({account_id: main, from: '2026-03-01', to: '2026-03-31', window_days: 3, currency_code: 'USD'})
    expect(report.summary).toEqual({matched: 3, bank_only: 1, transfer_only: 1, stuck: 1, amount_mismatch: 1, pending: 0, resolved: 0, exceptions: 4})
    const items = report.items
    expect(byExpected(items, ids.wire)).toEqual([expect.objectContaining({kind: 'matched', gap_days: 0, date: '2026-03-02', direction: 'debit', amount_in_minor_units: 10_000, exception: false})])
    expect(byExpected(items, ids.ach)).toEqual([expect.objectContaining({kind: 'matched', gap_days: 2, bank_date: '2026-03-11', expected_date: '2026-03-09'})])
    expect(items.find((i: any) => i.source === 'bai2')).toMatchObject({kind: 'matched', bank_transaction_id: lines.credit, amount_in_minor_units: 5000, direction: 'credit'})
    expect(items.find((i: any) => i.bank_transaction_id === lines.fee)).toMatchObject({kind: 'bank_only', key: `bank_only:${lines.fee}`, exception: true})
    expect(byExpected(items, ids.unreported)).toEqual([expect.objectContaining({kind: 'transfer_only', key: `transfer_only:${ids.unreported}`, status: 'settled'})])
    expect(byExpected(items, ids.stuck)).toEqual([expect.objectContaining({kind: 'stuck', status: 'initiated', rail: 'wire'})])
    expect(byExpected(items, ids.short)).toEqual([
      expect.objectContaining({kind: 'amount_mismatch', key: `amount_mismatch:${lines.short}:${ids.short}`, amount_in_minor_units: 40_000, bank_amount_in_minor_units: 39_000, counterparty: reserveLabel}),
    ])
    // Items come in date order; the same data gives the same report.
    expect(items.map((i: any) => i.date)).toEqual([...items.map((i: any) => i.date)].sort())
    const again = await reconcileRun([main, '--from', '2026-03-01', '--to', '2026-03-31', '--subaccount', sub, '-o', 'json'])
    expect(again.json()).toEqual(report)
  })

  it('the credit of a subaccount not named is a bank line nothing announced; the other side of a transfer matches too', async () => {
    await scenario()
    const r = await reconcileRun([main, '--from', '2026-03-01', '--to', '2026-03-31', '-o', 'json'])
    expect(r.code).toBe(9)
    expect(r.json().items.find((i: any) => i.bank_transaction_id === lines.credit)).toMatchObject({kind: 'bank_only'})
    expect(r.json().summary.bank_only).toBe(2)
    const other = await reconcileRun([reserve, '--from', '2026-03-01', '--to', '2026-03-31', '-o', 'json'])
    const items = other.json().items
    expect(byExpected(items, ids.wire)).toEqual([expect.objectContaining({kind: 'matched', direction: 'credit'})])
    expect(byExpected(items, ids.stuck)).toEqual([expect.objectContaining({kind: 'stuck', direction: 'credit'})])
  })

  it('what is not due yet is pending, judged by today', async () => {
    await scenario()
    const clock = {now: () => Date.parse('2026-03-26T12:00:00Z'), sleep: async () => undefined}
    const r = await reconcileRun([main, '--from', '2026-03-01', '--to', '2026-03-31', '--subaccount', sub, '-o', 'json'], {clock})
    const items = r.json().items
    expect(byExpected(items, ids.stuck)).toEqual([expect.objectContaining({kind: 'pending'})])
    expect(byExpected(items, ids.unreported)).toEqual([expect.objectContaining({kind: 'transfer_only'})])
    expect(r.json().summary).toMatchObject({pending: 1, stuck: 0, exceptions: 3})
  })

  it('a narrower window leaves a late bank line and its transfer apart', async () => {
    await scenario()
    const r = await reconcileRun([main, '--from', '2026-03-01', '--to', '2026-03-31', '--subaccount', sub, '--window', '1', '-o', 'json'])
    const items = r.json().items
    expect(byExpected(items, ids.ach)).toEqual([expect.objectContaining({kind: 'transfer_only'})])
    expect(items.find((i: any) => i.bank_date === '2026-03-11')).toMatchObject({kind: 'bank_only', amount_in_minor_units: 20_000})
  })

  it('resolve: each decision is kept and audited; once all are resolved the run exits 0', async () => {
    await scenario()
    const args = [main, '--from', '2026-03-01', '--to', '2026-03-31', '--subaccount', sub, '-o', 'json']
    const open = (await reconcileRun(args)).json().items.filter((i: any) => i.exception)
    expect(open).toHaveLength(4)
    const auditBefore = (await runAs(emu, 'test', ['audit', 'list', '-o', 'json'])).json().length
    for (const item of open) {
      const d = await runAs(emu, 'test', ['reconcile', 'resolve', item.key, '--as', 'investigated', '--note', `ticket ${item.kind}`, '-o', 'json'])
      expect(d.code, d.stderr).toBe(0)
      expect(d.json()).toMatchObject({key: item.key, label: 'investigated', note: `ticket ${item.kind}`, replaced: null})
    }
    const audit = (await runAs(emu, 'test', ['audit', 'list', '-o', 'json'])).json()
    expect(audit.length).toBe(auditBefore + 8)
    expect(audit.filter((a: any) => a.kind === 'outcome').slice(-4).map((a: any) => a.resource_id)).toEqual(open.map((i: any) => i.key))
    const done = await reconcileRun(args)
    expect(done.code, done.stderr).toBe(0)
    expect(done.json().summary).toMatchObject({exceptions: 0, resolved: 4, bank_only: 1})
    expect(done.json().items.find((i: any) => i.key === open[0].key).resolution).toMatchObject({label: 'investigated', note: `ticket ${open[0].kind}`})
    // A second decision replaces the first.
    const again = await runAs(emu, 'test', ['reconcile', 'resolve', open[0].key, '--as', 'fee', '-o', 'table'])
    expect(again.stdout).toMatch(/Replaced the decision "investigated" on .* as "fee"/)
    expect((await runAs(emu, 'test', ['audit', 'verify'])).code).toBe(0)
  })

  it('resolve takes the short key an 80-column table shows; a key no reconciliation found is exit 4, an ambiguous start exit 2, and neither writes anything', async () => {
    const auditLength = async () => (await runAs(emu, 'test', ['audit', 'list', '-o', 'json'])).json().length
    const before = await auditLength()
    const unknown = await runAs(emu, 'test', ['reconcile', 'resolve', 'bank_only:6f1c2d3e-0000-4000-8000-000000000001', '--as', 'fee', '-o', 'table'])
    expect(unknown.code, unknown.stderr).toBe(4)
    expect(unknown.stderr).toMatch(/No reconciliation on this machine found an exception with the key bank_only:6f1c2d3e-0000-4000-8000-000000000001.*Nothing was recorded/)
    expect((await runAs(emu, 'test', ['reconcile', 'resolve', '6f1c2d3e', '--as', 'fee'])).code).toBe(4)
    expect(await auditLength()).toBe(before)

    await scenario()
    const args = [main, '--from', '2026-03-01', '--to', '2026-03-31', '--subaccount', sub]
    const t = await runAs(emu, 'test', ['reconcile', ...args, '--no-color'], {tty: true, columns: 80})
    expect(t.code).toBe(9)
    const rows = t.stdout.trimEnd().split('\n')
    for (const l of rows) expect(l.length, t.stdout).toBeLessThanOrEqual(80)
    expect(rows[0]).toMatch(/^DATE\s+KIND\s+AMOUNT\s+KEY\b/)
    const fee = rows.find((l) => l.includes('bank_only'))!.split(/\s{2,}/)
    expect(fee.slice(0, 3)).toEqual(['2026-03-12', 'bank_only', '15.00 USD'])
    const short = fee[3]
    expect(short.length).toBeLessThan(`bank_only:${lines.fee}`.length)
    expect(lines.fee.startsWith(short)).toBe(true)
    const d = await runAs(emu, 'test', ['reconcile', 'resolve', short, '--as', 'fee', '-o', 'json'])
    expect(d.code, d.stderr).toBe(0)
    expect(d.json()).toMatchObject({key: `bank_only:${lines.fee}`, label: 'fee'})
    // --wide shows whole keys.
    expect((await runAs(emu, 'test', ['reconcile', ...args, '--wide'], {tty: true, columns: 80})).stdout).toContain(`bank_only:${lines.fee}`)

    // The short line paired as an amount_mismatch; once its transfer's own line is booked it is a bank_only: its id starts two keys.
    await hand({account_id: main, amount_in_minor_units: 40_000, direction: 'debit', receiver_info: reserveLabel, transaction_date: '2026-03-16'})
    const again = (await runAs(emu, 'test', ['reconcile', ...args, '-o', 'json'])).json().items
    // Its short key then carries its kind: the start of its id alone names two items.
    expect(again.find((i: any) => i.bank_transaction_id === lines.short)).toMatchObject({kind: 'bank_only', short_key: `bank_only:${lines.short.slice(0, 8)}`})
    const decided = await auditLength()
    const ambiguous = await runAs(emu, 'test', ['reconcile', 'resolve', lines.short.slice(0, 8), '--as', 'x', '-o', 'table'])
    expect(ambiguous.code).toBe(2)
    expect(ambiguous.stderr).toMatch(/is the start of more than one key \(amount_mismatch:.*, bank_only:/)
    expect(await auditLength()).toBe(decided)
    const named = await runAs(emu, 'test', ['reconcile', 'resolve', `bank_only:${lines.short.slice(0, 8)}`, '--as', 'fee', '-o', 'json'])
    expect(named.code, named.stderr).toBe(0)
    expect(named.json().key).toBe(`bank_only:${lines.short}`)
  })

  it('resolve refuses what is not an exception key, and blank or control-laden labels (exit 2, nothing written)', async () => {
    const bad = [
      ['reconcile', 'resolve', 'not a key', '--as', 'x'],
      ['reconcile', 'resolve', `matched:${main}:${reserve}`, '--as', 'x'],
      ['reconcile', 'resolve', `bank_only:${main}`, '--as', '   '],
      ['reconcile', 'resolve', `bank_only:${main}`, '--as', 'fee\u001b[2J'],
      ['reconcile', 'resolve', `bank_only:${main}`],
    ]
    const before = (await runAs(emu, 'test', ['audit', 'list', '-o', 'json'])).json().length
    for (const args of bad) {
      const r = await runAs(emu, 'test', [...args, '-o', 'table'])
      expect(r.code, args.join(' ')).toBe(2)
      expect(r.stderr.trim().split('\n')).toHaveLength(1)
    }
    expect((await runAs(emu, 'test', ['audit', 'list', '-o', 'json'])).json().length).toBe(before)
  })

  it('bad input: inverted or impossible dates and a bad window are exit 2 before any request; unknown and other-entity accounts exit 4', async () => {
    for (const args of [
      [main, '--from', '2026-03-31', '--to', '2026-03-01'],
      [main, '--from', '2026-02-30', '--to', '2026-03-01'],
      [main, '--from', '2026-03-01', '--to', '2026-03-31', '--window', '99'],
      [main, '--from', '2026-03-01'],
    ]) {
      const r = await expectNothingSent(emu, () => reconcileRun([...args, '-o', 'table']))
      expect(r.code, args.join(' ')).toBe(2)
      expect(r.stderr.trim().split('\n'), r.stderr).toHaveLength(1)
    }
    const inverted = await reconcileRun([main, '--from', '2026-03-31', '--to', '2026-03-01', '-o', 'table'])
    expect(inverted.stderr).toMatch(/--from 2026-03-31 is after --to 2026-03-01/)
    for (const account of [otherMain, '00000000-0000-4000-8000-000000000000']) {
      const r = await reconcileRun([account, '--from', '2026-03-01', '--to', '2026-03-31', '-o', 'table'])
      expect(r.code).toBe(4)
      expect(r.stderr.trim().split('\n')).toHaveLength(1)
      expect(r.stderr).toMatch(/404 NOT_FOUND: treasury account .* not found/)
    }
  })

  it('renders a table with a summary line, and csv', async () => {
    await scenario()
    const t = await reconcileRun([main, '--from', '2026-03-01', '--to', '2026-03-31', '--subaccount', sub, '--hide-matched', '-o', 'table'])
    expect(t.code).toBe(9)
    expect(t.stdout).toMatch(/DATE\s+KIND\s+AMOUNT\s+KEY/)
    expect(t.stdout).toMatch(/bank_only/)
    expect(t.stdout).not.toMatch(/matched/)
    expect(t.stderr).toMatch(/3 matched, 1 bank_only, 1 transfer_only, 1 stuck, 1 amount_mismatch, 0 pending; 0 resolved, 4 open exceptions/)
    const csv = await reconcileRun([main, '--from', '2026-03-01', '--to', '2026-03-31', '--subaccount', sub, '-o', 'csv'])
    const rows = csv.stdout.trim().split('\r\n')
    expect(rows[0]).toBe('date,kind,amount,key,direction,bank_amount,counterparty,status,resolution')
    expect(rows).toHaveLength(1 + 7)
  })
})

describe('report statement', () => {
  const statementRun = (args: string[], opts: Parameters<typeof runAs>[3] = {}) => runAs(emu, 'test', ['report', 'statement', ...args], opts)

  /** Every bank line of an account with a direction, through the list. */
  async function allLines(account: string): Promise<any[]> {
    const r = await runAs(emu, 'test', ['treasury', 'transactions', 'list', account, '--all', '-o', 'ndjson'])
    return r.stdout.trim().split('\n').filter(Boolean).map((l) => JSON.parse(l)).filter((t) => t.direction)
  }
  const signedOf = (t: {direction: string; amount_in_minor_units: number}) => (t.direction === 'credit' ? t.amount_in_minor_units : -t.amount_in_minor_units)

  it('an account\'s month: opening and closing agree with every line before and in it; each line has its reconciliation status', async () => {
    await scenario()
    const r = await statementRun(['--account', main, '--month', '2026-03', '-o', 'json'])
    expect(r.code, r.stderr).toBe(0)
    const s = r.json()
    const every = await allLines(main)
    // Lines without a date fall in the opening balance; those after March in no March balance.
    const upToMarch = every.filter((t) => !t.transaction_date || t.transaction_date <= '2026-03-31').reduce((sum, t) => sum + signedOf(t), 0)
    const march = every.filter((t) => t.transaction_date >= '2026-03-01' && t.transaction_date <= '2026-03-31')
    expect(s).toMatchObject({kind: 'account', id: main, month: '2026-03', from: '2026-03-01', to: '2026-03-31', complete: true, currency_code: 'USD'})
    expect(s.closing_balance_in_minor_units).toBe(upToMarch)
    expect(s.opening_balance_in_minor_units).toBe(upToMarch - march.reduce((sum, t) => sum + signedOf(t), 0))
    expect(s.lines.map((l: any) => l.id).sort()).toEqual(march.map((t) => t.id).sort())
    expect(s.lines.at(-1).balance_in_minor_units).toBe(s.closing_balance_in_minor_units)
    expect(s.total_credits_in_minor_units - s.total_debits_in_minor_units).toBe(s.closing_balance_in_minor_units - s.opening_balance_in_minor_units)
    const status = Object.fromEntries(s.lines.map((l: any) => [l.id, l.reconciliation]))
    expect(status[lines.fee]).toBe('bank_only')
    expect(status[lines.short]).toBe('amount_mismatch')
    expect(s.lines.filter((l: any) => l.reconciliation === 'matched')).toHaveLength(2)

    await runAs(emu, 'test', ['reconcile', 'resolve', `bank_only:${lines.fee}`, '--as', 'fee'])
    const after = (await statementRun(['--account', main, '--month', '2026-03', '-o', 'json'])).json()
    expect(after.lines.find((l: any) => l.id === lines.fee)).toMatchObject({reconciliation: 'bank_only', resolution: 'fee'})
  })

  it('csv and tables show an opening row, the lines with the running balance, and a closing row', async () => {
    await scenario()
    const json = (await statementRun(['--account', main, '--month', '2026-03', '-o', 'json'])).json()
    const csv = await statementRun(['--account', main, '--month', '2026-03', '-o', 'csv'])
    expect(csv.code).toBe(0)
    const rows = csv.stdout.trim().split('\r\n')
    expect(rows[0]).toBe('row,date,direction,amount,balance,description,counterparty,reconciliation,resolution,id')
    expect(rows).toHaveLength(json.lines.length + 3)
    expect(rows[1]).toMatch(/^opening,2026-03-01,,,/)
    expect(rows.at(-1)).toMatch(/^closing,2026-03-31,,,/)
    const table = await statementRun(['--account', main, '--month', '2026-03', '-o', 'table'])
    expect(table.stderr).toMatch(/2026-03: opening .* USD, \d+ lines, closing .* USD\./)
  })

  it('--format ofx is an OFX bank statement a parser reads back: every line, signed amounts, the closing balance', async () => {
    await scenario()
    const {parse} = await import('ofx-js')
    const json = (await statementRun(['--account', main, '--month', '2026-03', '-o', 'json'])).json()
    const r = await statementRun(['--account', main, '--month', '2026-03', '--format', 'ofx'])
    expect(r.code, r.stderr).toBe(0)
    const ofx = await parse(r.stdout)
    expect(ofx.header).toMatchObject({OFXHEADER: '100', DATA: 'OFXSGML', VERSION: '102'})
    const st = ofx.OFX.BANKMSGSRSV1.STMTTRNRS.STMTRS
    expect(st.CURDEF).toBe('USD')
    expect(st.BANKACCTFROM.ACCTID).toBe(main.replace(/-/g, '').slice(0, 22))
    expect(st.BANKTRANLIST.DTSTART).toBe('20260301')
    const trns = [st.BANKTRANLIST.STMTTRN].flat()
    expect(trns.map((t: any) => t.FITID).sort()).toEqual(json.lines.map((l: any) => l.id).sort())
    for (const l of json.lines) {
      const t = trns.find((x: any) => x.FITID === l.id)
      expect(Math.round(Number(t.TRNAMT) * 100)).toBe(l.signed_amount_in_minor_units)
      expect(t.DTPOSTED).toBe(l.date.replace(/-/g, ''))
      expect(t.MEMO).toContain(`reconciliation: ${l.reconciliation}`)
    }
    expect(trns.find((t: any) => t.FITID === lines.fee).TRNTYPE).toBe('FEE')
    expect(Math.round(Number(st.LEDGERBAL.BALAMT) * 100)).toBe(json.closing_balance_in_minor_units)
    expect((await statementRun(['--account', main, '--month', '2026-03', '--format', 'ofx', '--columns', 'id'])).code).toBe(2)
  })

  it('OFX text is escaped: a counterparty with markup cannot break the file', async () => {
    await hand({account_id: main, amount_in_minor_units: 4200, direction: 'credit', sender_info: 'Fish & Chips <Ltd>\u0007', transaction_date: '2026-05-05'})
    const {parse} = await import('ofx-js')
    const r = await statementRun(['--account', main, '--month', '2026-05', '--format', 'ofx'])
    expect(r.stdout).toContain('<NAME>Fish &amp; Chips &lt;Ltd&gt;')
    const trn = [(await parse(r.stdout)).OFX.BANKMSGSRSV1.STMTTRNRS.STMTRS.BANKTRANLIST.STMTTRN].flat()[0]
    expect(trn.TRNAMT).toBe('42.00')
  })

  it('a subaccount\'s month: opening derived from its totals and the activity after; bai2 credits reconciled on the account given', async () => {
    await scenario()
    const subs = (await emu.control('GET', '/_emulator/entities')).data.find((e: any) => e.role === 'test').subaccount_ids
    // A move now: after March, so in neither March balance.
    const move = await runAs(emu, 'test', ['moves', 'create', '--from', sub, '--to', subs[1], '--amount-minor', '700', '-o', 'json'])
    expect(move.code, move.stderr).toBe(0)
    const r = await statementRun(['--subaccount', sub, '--month', '2026-03', '--bank-account', main, '-o', 'json'])
    expect(r.code, r.stderr).toBe(0)
    const s = r.json()
    const act = (await runAs(emu, 'test', ['subaccounts', 'activity', sub, '--all', '-o', 'ndjson'])).stdout.trim().split('\n').filter(Boolean).map((l) => JSON.parse(l))
    const before = act.filter((a) => a.effective_at < '2026-03-01').reduce((sum, a) => sum + signedOf(a), 0)
    const inMarch = act.filter((a) => a.effective_at >= '2026-03-01' && a.effective_at < '2026-04-01')
    expect(s).toMatchObject({kind: 'subaccount', id: sub, currency_code: 'USD'})
    expect(s.opening_balance_in_minor_units).toBe(before)
    expect(s.closing_balance_in_minor_units).toBe(before + inMarch.reduce((sum, a) => sum + signedOf(a), 0))
    expect(s.lines).toEqual([expect.objectContaining({source: 'bai2', amount_in_minor_units: 5000, direction: 'credit', reconciliation: 'matched'})])
    const unchecked = (await statementRun(['--subaccount', sub, '--month', '2026-03', '-o', 'json'])).json()
    expect(unchecked.lines[0].reconciliation).toBe('not_checked')
    const ofx = await statementRun(['--subaccount', sub, '--month', '2026-03', '--format', 'ofx'])
    const subRecord = (await runAs(emu, 'test', ['subaccounts', 'get', sub, '-o', 'json'])).json()
    expect(ofx.stdout).toContain(`<BANKID>${subRecord.routing_numbers.ach}<ACCTID>${subRecord.account_number}<ACCTTYPE>CHECKING`)
  })

  it('bad input is exit 2 before any request; unknown or another entity\'s account or subaccount exit 4', async () => {
    for (const args of [
      ['--account', main, '--subaccount', main, '--month', '2026-03'],
      ['--month', '2026-03'],
      ['--account', main, '--month', '2026-13'],
      ['--account', main, '--month', 'March'],
      ['--account', main, '--month', '2026-03', '--bank-account', main],
      ['--account', main, '--month', '2026-03', '--format', 'qif'],
    ]) {
      const r = await expectNothingSent(emu, () => statementRun([...args, '-o', 'table']))
      expect(r.code, args.join(' ')).toBe(2)
    }
    for (const args of [
      ['--account', otherMain],
      ['--account', '00000000-0000-4000-8000-000000000000'],
      ['--subaccount', '00000000-0000-4000-8000-000000000000'],
    ]) {
      const r = await statementRun([...args, '--month', '2026-03', '-o', 'table'])
      expect(r.code, args.join(' ')).toBe(4)
      expect(r.stderr.trim().split('\n')).toHaveLength(1)
    }
  })
})

describe('position', () => {
  // Days as the position counts them: in the schedule time zone (America/New_York).
  const day = (n: number) => scheduleDayOf(Date.now() + n * 86_400_000)
  const positionRun = (args: string[], opts: Parameters<typeof runAs>[3] = {}) => runAs(emu, 'test', ['position', ...args], opts)
  const find = (p: any, id: string) => p.accounts.find((a: any) => a.account_id === id)
  let now: string

  /** An unscheduled wire main -> reserve, one scheduled in 3 days main -> GBP, one awaiting approval in 20 days reserve -> main. */
  async function flows() {
    now = (await transfer(['--from', main, '--to', reserve, '--amount-minor', '10000', '--currency', 'USD', '--rail', 'wire'])).id
    await transfer(['--from', main, '--to', gbp, '--amount-minor', '20000', '--currency', 'USD', '--rail', 'wire', '--scheduled-date', day(3)])
    await transfer(['--from', reserve, '--to', main, '--amount-minor', '5000', '--currency', 'USD', '--rail', 'wire', '--scheduled-date', day(20), '--no-auto-approve'])
    // Settled: nothing committed any more.
    const done = await transfer(['--from', reserve, '--to', main, '--amount-minor', '777', '--currency', 'USD', '--rail', 'wire'])
    await emu.control('POST', `/_emulator/transfers/${done.id}/advance`, {status: 'settled'})
  }

  it('per account: balance, committed and scheduled flows over the horizon, projected balance', async () => {
    await flows()
    const r = await positionRun(['-o', 'json'])
    expect(r.code, r.stderr).toBe(0)
    const p = r.json()
    expect(p).toMatchObject({horizon_days: 14, horizon_end: day(14), totals: null, subaccounts: []})
    const m = find(p, main)
    const mainBalance = (await balance(main)).current_balance_in_minor_units
    expect(m).toMatchObject({
      balance_in_minor_units: mainBalance,
      committed_outflows_in_minor_units: 10_000,
      committed_inflows_in_minor_units: 0,
      scheduled: [{date: day(3), outflows_in_minor_units: 20_000, inflows_in_minor_units: 0}],
      projected_balance_in_minor_units: mainBalance - 30_000,
      reporting: null,
    })
    const res = find(p, reserve)
    const reserveBalance = (await balance(reserve)).current_balance_in_minor_units
    expect(res).toMatchObject({balance_in_minor_units: reserveBalance, committed_inflows_in_minor_units: 10_000, scheduled: [], projected_balance_in_minor_units: reserveBalance + 10_000})
    expect(find(p, gbp)).toMatchObject({unconverted_inflows: 1, scheduled: []})

    const longer = (await positionRun(['--horizon', '30', '-o', 'json'])).json()
    expect(find(longer, reserve).scheduled).toEqual([{date: day(20), outflows_in_minor_units: 5000, inflows_in_minor_units: 0}])
    expect(find(longer, main).projected_balance_in_minor_units).toBe(mainBalance - 30_000 + 5000)
  })

  it('--reporting-currency: totals through the conversion estimate, labelled indicative; subaccounts listed, not added', async () => {
    await flows()
    await emu.control('POST', '/_emulator/bank-lines', {account_id: gbp, amount_in_minor_units: 100_000, direction: 'credit', transaction_date: day(0)})
    const sub0 = (await emu.control('GET', '/_emulator/entities')).data.find((e: any) => e.role === 'test').subaccount_ids[0]
    const p = (await positionRun(['--reporting-currency', 'usd', '--subaccount', sub0, '-o', 'json'])).json()
    const estimate = (await runAs(emu, 'test', ['transfers', 'estimate', '--from', gbp, '--to', main, '--amount-minor', '100000', '-o', 'json'])).json()
    expect(find(p, gbp).reporting).toEqual({currency_code: 'USD', balance_in_minor_units: estimate.destination_amount_in_minor_units, projected_balance_in_minor_units: estimate.destination_amount_in_minor_units, indicative: true})
    const usd = p.accounts.filter((a: any) => a.currency_code === 'USD')
    expect(p.totals).toMatchObject({currency_code: 'USD', indicative: true, note: expect.stringMatching(/^indicative/)})
    expect(p.totals.balance_in_minor_units).toBe(usd.reduce((s: number, a: any) => s + a.balance_in_minor_units, 0) + estimate.destination_amount_in_minor_units)
    const subRecord = (await runAs(emu, 'test', ['subaccounts', 'get', sub0, '-o', 'json'])).json()
    expect(p.subaccounts).toEqual([{subaccount_id: sub0, name: subRecord.name, currency_code: 'USD', balance_in_minor_units: subRecord.total_incoming_in_minor_units - subRecord.total_outgoing_in_minor_units}])
    const table = await positionRun(['--reporting-currency', 'USD', '-o', 'table'])
    expect(table.stdout).toMatch(/PROJECTED \(INDICATIVE\)/)
    expect(table.stdout).toMatch(/total \(indicative\)/)
    expect(table.stderr).toMatch(/Scheduled over the next 14 days/)
  })

  it('bad input: a bad horizon or currency is exit 2 before any request; a currency no account holds is exit 2 after the account list', async () => {
    for (const args of [['--horizon', '-1'], ['--horizon', '999'], ['--reporting-currency', 'U$D']]) {
      const r = await expectNothingSent(emu, () => positionRun([...args, '-o', 'table']))
      expect(r.code, args.join(' ')).toBe(2)
    }
    const jpy = await expectOnlyRequests(emu, ['GET /api/treasury/accounts'], () => positionRun(['--reporting-currency', 'JPY', '-o', 'table']))
    expect(jpy.code).toBe(2)
    expect(jpy.stderr).toMatch(/No treasury account in JPY/)
  })

  it('--save keeps a snapshot; position diff shows what changed since', async () => {
    const dir = tempDir()
    try {
      const none = await positionRun(['diff', '-o', 'table'], {configDir: dir.path})
      expect(none.code).toBe(2)
      expect(none.stderr).toMatch(/run `payops position --save` first/)
      await flows()
      const saved = await positionRun(['--save', '-o', 'json'], {configDir: dir.path})
      expect(saved.code, saved.stderr).toBe(0)
      expect(saved.stderr).toMatch(/Saved position snapshot 1/)
      expect((await positionRun(['diff', '-o', 'json'], {configDir: dir.path})).json().changes).toEqual([])
      await emu.control('POST', `/_emulator/transfers/${now}/advance`, {status: 'settled'})
      const d = (await positionRun(['diff', '-o', 'json'], {configDir: dir.path})).json()
      expect(d.snapshot_id).toBe(1)
      const of = (id: string) => Object.fromEntries(d.changes.filter((c: any) => c.account_id === id).map((c: any) => [c.field, c.change]))
      // Booked: the balance fell, nothing committed any more, the projection unchanged.
      expect(of(main)).toEqual({balance_in_minor_units: -10_000, committed_outflows_in_minor_units: -10_000})
      expect(of(reserve)).toEqual({balance_in_minor_units: 10_000, committed_inflows_in_minor_units: -10_000})
      const table = await positionRun(['diff', '-o', 'table'], {configDir: dir.path})
      expect(table.stderr).toMatch(/4 changes since snapshot 1/)
    } finally {
      dir.cleanup()
    }
  })
})

describe('reconcile: how it pairs', () => {
  it('one to one, smallest date gap first across the whole period, not first come first served; currency and direction must agree', async () => {
    const t = async (amount: number, date: string, from = main, to = reserve) =>
      (await transfer(['--from', from, '--to', to, '--amount-minor', String(amount), '--currency', 'USD', '--rail', 'wire', '--scheduled-date', date, '--no-auto-approve'])).id
    // Two transfers of the same amount, on the 5th and the 6th; the bank booked that amount on the 6th and the 8th.
    const early = await t(2500, '2026-07-05')
    const late = await t(2500, '2026-07-06')
    for (const id of [early, late]) {
      await runAs(emu, 'test', ['transfers', 'approve', id])
      await emu.control('POST', `/_emulator/transfers/${id}/advance`, {status: 'initiated'})
    }
    const sixth = await hand({account_id: main, amount_in_minor_units: 2500, direction: 'debit', transaction_date: '2026-07-06'})
    const eighth = await hand({account_id: main, amount_in_minor_units: 2500, direction: 'debit', transaction_date: '2026-07-08'})
    // Same amount, wrong direction; same amount and day on an account of another currency.
    const credit = await hand({account_id: main, amount_in_minor_units: 3300, direction: 'credit', transaction_date: '2026-07-10'})
    const outbound = await t(3300, '2026-07-10')
    await runAs(emu, 'test', ['transfers', 'approve', outbound])
    await emu.control('POST', `/_emulator/transfers/${outbound}/advance`, {status: 'initiated'})
    const r = await runAs(emu, 'test', ['reconcile', main, '--from', '2026-07-01', '--to', '2026-07-31', '-o', 'json'])
    const items = r.json().items
    // First come first served would give the 5th the 6th (gap 1) and the 6th the 8th (gap 2);
    // smallest gap first pairs the 6th with the 6th (gap 0), then the 5th with the 8th (gap 3).
    expect(items.find((i: any) => i.expected_id === late)).toMatchObject({kind: 'matched', bank_transaction_id: sixth, gap_days: 0})
    expect(items.find((i: any) => i.expected_id === early)).toMatchObject({kind: 'matched', bank_transaction_id: eighth, gap_days: 3})
    // With a window of 2 the 5th and the 8th are too far apart.
    const narrow = (await runAs(emu, 'test', ['reconcile', main, '--from', '2026-07-01', '--to', '2026-07-31', '--window', '2', '-o', 'json'])).json().items
    expect(narrow.find((i: any) => i.expected_id === early)).toMatchObject({kind: 'stuck'})
    expect(narrow.find((i: any) => i.bank_transaction_id === eighth)).toMatchObject({kind: 'bank_only'})
    expect(items.find((i: any) => i.bank_transaction_id === credit)).toMatchObject({kind: 'bank_only'})
    expect(items.find((i: any) => i.expected_id === outbound)).toMatchObject({kind: 'stuck'})
    const gbpLine = await hand({account_id: gbp, amount_in_minor_units: 3300, direction: 'debit', transaction_date: '2026-07-10'})
    const onGbp = (await runAs(emu, 'test', ['reconcile', gbp, '--from', '2026-07-01', '--to', '2026-07-31', '-o', 'json'])).json()
    expect(onGbp.items).toEqual([expect.objectContaining({kind: 'bank_only', bank_transaction_id: gbpLine, currency_code: 'GBP'})])
  })

  it('a transfer in from an account of another currency never matches exactly: an amount_mismatch showing each side in its own currency', async () => {
    await emu.control('POST', '/_emulator/bank-feed', {entity: 'test', enabled: true, fee_rate: 0, seed: 1})
    const t = await transfer(['--from', gbp, '--to', main, '--amount-minor', '10000', '--currency', 'GBP', '--rail', 'wire', '--scheduled-date', '2026-08-03'])
    await emu.control('POST', `/_emulator/transfers/${t.id}/advance`, {status: 'settled'})
    const r = await runAs(emu, 'test', ['reconcile', main, '--from', '2026-08-01', '--to', '2026-08-31', '-o', 'json'])
    const item = r.json().items.find((i: any) => i.expected_id === t.id)
    // The transfer's amount is its own (10,000 GBP minor units), never the bank line's in USD.
    expect(item).toMatchObject({kind: 'amount_mismatch', direction: 'credit', amount_in_minor_units: 10000, currency_code: 'GBP', expected_amount_in_minor_units: 10000, expected_currency_code: 'GBP', bank_currency_code: 'USD'})
    expect(item.bank_amount_in_minor_units).toBeGreaterThan(10000)
    const bank = (item.bank_amount_in_minor_units / 100).toLocaleString('en-US', {minimumFractionDigits: 2})
    const table = await runAs(emu, 'test', ['reconcile', main, '--from', '2026-08-01', '--to', '2026-08-31', '--wide'], {tty: true, columns: 80})
    const row = table.stdout.split('\n').find((l) => l.includes(t.id))!
    expect(row, table.stdout).toMatch(new RegExp(`amount_mismatch\\s+100\\.00 GBP\\s.*${bank} USD`))
  })

  it('an amount_mismatch pairs the closest amounts of the same day first', async () => {
    const reserveName = (await accounts()).find((a) => a.id === reserve).label
    const t = async (amount: number, date: string) => {
      const id = (await transfer(['--from', main, '--to', reserve, '--amount-minor', String(amount), '--currency', 'USD', '--rail', 'wire', '--scheduled-date', date, '--no-auto-approve'])).id
      await runAs(emu, 'test', ['transfers', 'approve', id])
      await emu.control('POST', `/_emulator/transfers/${id}/advance`, {status: 'initiated'})
      return id
    }
    const pairs: Array<[string, string]> = []
    for (const date of ['2026-09-08', '2026-09-09']) {
      const sent = [await t(10_000, date), await t(20_000, date), await t(30_000, date)]
      // Booked in the other order, each a little short of its transfer.
      const booked: string[] = []
      for (const amount of [29_700, 19_800, 9_900]) booked.push(await hand({account_id: main, amount_in_minor_units: amount, direction: 'debit', receiver_info: reserveName, transaction_date: date}))
      booked.reverse()
      sent.forEach((id, i) => pairs.push([id, booked[i]]))
    }
    const items = (await runAs(emu, 'test', ['reconcile', main, '--from', '2026-09-01', '--to', '2026-09-30', '-o', 'json'])).json().items
    for (const [transferId, lineId] of pairs) {
      expect(items.find((i: any) => i.expected_id === transferId), transferId).toMatchObject({kind: 'amount_mismatch', bank_transaction_id: lineId})
    }
  })
})
