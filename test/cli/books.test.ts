import {afterAll, beforeAll, beforeEach, describe, expect, it} from 'vitest'
import {runAs, startEmulator, type Emulator} from '../support/index.js'

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
