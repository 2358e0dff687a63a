import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {beforeEach, describe, expect, it} from 'vitest'
import {ROOT, knownSecrets, run, runAs, startEmulator, tempDir, type Emulator} from '../support/index.js'

const example = (name: string) => join(ROOT, 'examples', name)
const HOOK_SECRET = 'whsec_payroll_day_example_secret_0001'
knownSecrets.add(HOOK_SECRET)

let emu: Emulator
const dir = tempDir()

beforeEach(async () => {
  emu = await startEmulator()
})

function file(name: string, text: string): string {
  const path = join(dir.path, name)
  writeFileSync(path, text)
  return path
}

const load = (path: string, env: Record<string, string> = {}) => runAs(emu, 'test', ['emulator', 'load', path, '-o', 'json'], {env})
const testEntity = () => emu.store!.entityByRole('test')!
const subaccountNames = () => testEntity().subaccounts.items.map((s) => s.name)
const json = async (args: string[]) => {
  const r = await runAs(emu, 'test', [...args, '-o', 'json'])
  expect(r.code, r.stderr).toBe(0)
  return r.json()
}

describe('emulator load: the examples', () => {
  it('a treasury morning: accounts with opening balances, named subaccounts with balances, transfers in every state, a bank line that appears on its date', async () => {
    const r = await load(example('treasury-morning.yaml'))
    expect(r.code, r.stderr).toBe(0)
    expect(r.json()).toMatchObject({name: 'Treasury morning', accounts: 3, subaccounts: 3, moves: 2, transfers: 4, payins: 1, bank_lines: 2, planned_bank_lines: 1})
    expect((await json(['emulator', 'clock'])).now).toMatch(/^2026-01-05T12:30:/)
    const accounts = await json(['treasury', 'accounts', 'list'])
    expect(accounts.map((a: any) => a.label).sort()).toEqual(['GBP operating account', 'Operating account', 'Reserve account'])
    const subs = testEntity().subaccounts.items
    expect(subs.map((s) => s.name)).toEqual(['Operating', 'Payroll', 'Tax reserve'])
    const payroll = await json(['subaccounts', 'get', subs[1].id])
    expect(payroll).toMatchObject({name: 'Payroll', total_incoming_in_minor_units: 18_000_000, total_outgoing_in_minor_units: 0})
    const statuses = (await json(['transfers', 'list', '--all'])).map((t: any) => t.status).sort()
    expect(statuses).toEqual(['approved', 'created', 'initiated', 'initiated'])
    const operating = accounts.find((a: any) => a.label === 'Operating account').id
    const before = await json(['treasury', 'transactions', 'list', operating, '--all'])
    expect(before.some((l: any) => l.transaction_date === '2026-01-06')).toBe(false)
    const moved = await json(['emulator', 'clock', 'advance', '1d'])
    // The Friday ACH settles, tomorrow's wire is sent and settles, the stuck wire stays, the line appears.
    expect(moved.happened.filter((h: any) => h.entity === 'test' && h.kind === 'transfer').map((h: any) => h.status)).toEqual(['settled', 'initiated', 'settled'])
    const after = await json(['treasury', 'transactions', 'list', operating, '--all'])
    expect(after.find((l: any) => l.transaction_date === '2026-01-06' && l.sender_info === 'Initech LLC')).toMatchObject({amount_in_minor_units: 980_000, direction: 'credit'})
    const stuck = (await json(['transfers', 'list', '--all'])).filter((t: any) => t.status === 'initiated')
    expect(stuck.map((t: any) => t.amount_in_minor_units)).toEqual([1_800_000])
  })

  it('a payroll day: moves in every state, and a webhook endpoint whose secret comes from the environment, never from the file or the output', async () => {
    const r = await load(example('payroll-day.yaml'), {PAYROLL_HOOK_SECRET: HOOK_SECRET})
    expect(r.code, r.stderr).toBe(0)
    expect(r.json()).toMatchObject({name: 'Payroll day', moves: 4, webhooks: 1, planned_bank_lines: 1})
    expect(testEntity().moves.items.map((m) => m.status)).toEqual(['settled', 'approved', 'canceled', 'failed'])
    expect(testEntity().webhooks.items.map((h) => [h.url, h.secret])).toEqual([['http://127.0.0.1:8787/payroll-hooks', HOOK_SECRET]])
    const unset = await load(example('payroll-day.yaml'))
    expect(unset.code).toBe(2)
    expect(unset.stderr).toMatch(/payroll-day\.yaml:\d+:\d+: webhooks\[0\]\.secret_env: environment variable PAYROLL_HOOK_SECRET is not set/)
  })

  it('a month end, moved day by day: reconcile finds the stuck wire and the lines nobody announced, and the statement opens on the opening balance', async () => {
    expect((await load(example('month-end.yaml'))).code).toBe(0)
    for (let day = 0; day < 7; day++) expect((await runAs(emu, 'test', ['emulator', 'clock', 'advance', '1d'])).code).toBe(0)
    expect((await json(['emulator', 'clock'])).day).toBe('2026-02-02')
    const operating = (await json(['treasury', 'accounts', 'list'])).find((a: any) => a.label === 'Operating account').id
    const rec = await runAs(emu, 'test', ['reconcile', operating, '--from', '2026-01-01', '--to', '2026-01-31', '-o', 'json'])
    expect(rec.code).toBe(9)
    expect(rec.json().summary).toMatchObject({matched: 3, bank_only: 4, stuck: 1, transfer_only: 0, amount_mismatch: 0, pending: 0})
    const statement = await json(['report', 'statement', '--account', operating, '--month', '2026-01'])
    // complete: the month is over on the emulator's clock (2 February), which the books take from its answers' Date.
    expect(statement).toMatchObject({opening_balance_in_minor_units: 375_000_000, closing_balance_in_minor_units: 390_757_460, complete: true})
    // The walk-through's bank-file step: the month written as a bank writes it, reconciled from the file.
    for (const format of ['bai2', 'camt053']) {
      const file = await runAs(emu, 'test', ['report', 'statement', '--account', operating, '--month', '2026-01', '--format', format])
      expect(file.code, file.stderr).toBe(0)
      const path = join(dir.path, `january.${format}`)
      writeFileSync(path, file.stdout)
      const fromFile = await runAs(emu, 'test', ['reconcile', operating, '--from', '2026-01-01', '--to', '2026-01-31', '--statement', path, '-o', 'json'])
      expect(fromFile.code, fromFile.stderr).toBe(9)
      expect(fromFile.json().summary).toEqual(rec.json().summary)
      expect(fromFile.json().items.map((i: any) => i.key).sort()).toEqual(rec.json().items.map((i: any) => i.key).sort())
    }
  })

  it('emulator start --scenario starts from the file, with its clock', async () => {
    const started = await startEmulator(['--scenario', example('treasury-morning.yaml')])
    try {
      const c = (await runAs(started, 'test', ['emulator', 'clock', '-o', 'json'])).json()
      expect(c.now).toMatch(/^2026-01-05T12:30:/)
      const labels = (await runAs(started, 'test', ['treasury', 'accounts', 'list', '-o', 'json'])).json().map((a: any) => a.label)
      expect(labels).toContain('Reserve account')
      // The other entities are seeded as usual and every key works.
      expect((await runAs(started, 'test_other', ['treasury', 'accounts', 'list', '-o', 'json'])).code).toBe(0)
    } finally {
      await started.stop()
    }
  })
})

const SHAPE_ERRORS = `name: Broken
accounts:
  - name: operating
    currency: usd
subaccounts:
  - name: Payroll
    balanse: 100.00
transfers:
  - from: operating
    to: reserve
    rail: carrier_pigeon
    amount: 5.00
  - from: operating
    to: reserve
    rail: wire
`

const REFERENCE_ERRORS = `accounts:
  - {name: operating}
  - {name: gbp, currency: GBP}
subaccounts:
  - {name: Payroll}
moves:
  - {from: Payroll, to: Payroll, amount: 1.005}
transfers:
  - {from: operating, to: gbp, amount: 10, rail: standard_ach}
  - {from: operating, to: reserve, amount: 10, rail: wire}
bank_lines:
  - {account: gbp, amount: 5, direction: debit, subaccount: Payroll}
`

describe('emulator load: bad input', () => {
  it('lists every problem of the shape as FILE:LINE:COL: field: message, exit 2, and loads nothing', async () => {
    const path = file('shape.yaml', SHAPE_ERRORS)
    const r = await load(path)
    expect(r.code).toBe(2)
    const lines = r.stderr.split('\n').filter((l) => l.startsWith(path))
    expect(lines).toEqual([
      `${path}:4:5: accounts[0].currency: currency must be an ISO 4217 code such as USD`,
      `${path}:7:5: subaccounts[0].balanse: unknown field`,
      `${path}:11:5: transfers[0].rail: rail must be one of instant_card, instant_bank, same_day_ach, standard_ach, wire`,
      `${path}:13:5: transfers[1].amount: amount must be a decimal such as 1250.00`,
    ])
    expect(r.stderr).toMatch(/4 problems in scenario file .*shape\.yaml; nothing was loaded/)
    expect(subaccountNames()).toEqual(['Operating', 'Payroll', 'Reserve'])
  })

  it('checks what the fields name: unknown accounts and subaccounts, amounts finer than the currency, rails between currencies', async () => {
    const path = file('refs.yaml', REFERENCE_ERRORS)
    const r = await load(path)
    expect(r.code).toBe(2)
    const lines = r.stderr.split('\n').filter((l) => l.startsWith(path))
    expect(lines).toEqual([
      `${path}:7:21: moves[0].to: a move needs two different subaccounts`,
      `${path}:7:34: moves[0].amount: Amount "1.005" has more than 2 decimal places, the precision of USD.`,
      `${path}:9:44: transfers[0].rail: standard_ach needs two USD accounts; between USD and GBP use wire`,
      `${path}:10:23: transfers[1].to: no account named "reserve" in accounts`,
      `${path}:12:49: bank_lines[0].subaccount: only a credit can be booked to a subaccount`,
    ])
    expect(subaccountNames()).toEqual(['Operating', 'Payroll', 'Reserve'])
  })

  it('a syntax error, a secret written in the file, a missing file and a non-loopback emulator are refused (exit 2)', async () => {
    const broken = file('broken.yaml', 'accounts:\n  - name: a\n    label: [unclosed\n')
    const syntax = await load(broken)
    expect(syntax.code).toBe(2)
    expect(syntax.stderr).toMatch(new RegExp(`${broken.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}:\\d+:\\d+: `))
    const secret = file('secret.yaml', 'accounts: [{name: a}]\nwebhooks:\n  - url: https://hooks.example.com/x\n    event_types: [payin.settled]\n    secret: whsec_written_in_the_file_0000\n')
    const s = await load(secret)
    expect(s.code).toBe(2)
    expect(s.stderr).toContain(`${secret}:5:5: webhooks[0].secret: a signing secret does not belong in a file`)
    const missing = await load(join(dir.path, 'nope.yaml'))
    expect(missing.code).toBe(2)
    expect(missing.stderr).toMatch(/Cannot read scenario file .*nope\.yaml: no such file/)
    const remote = await run(['emulator', 'load', example('month-end.yaml')], {env: {PAYOPS_BASE_URL: 'https://api.example.com', PAYOPS_API_KEY: 'test_x'}})
    expect(remote.code).toBe(2)
    expect(remote.stderr).toMatch(/is not a loopback address/)
    expect(subaccountNames()).toEqual(['Operating', 'Payroll', 'Reserve'])
  })

  it('emulator start --scenario with a bad file stops before listening (exit 2, no start-up line)', async () => {
    const path = file('start.yaml', SHAPE_ERRORS)
    const r = await run(['emulator', 'start', '--port', '0', '--json', '--scenario', path])
    expect(r.code).toBe(2)
    expect(r.stdout).toBe('')
    expect(r.stderr).toContain(`${path}:7:5: subaccounts[0].balanse: unknown field`)
  })

  it('the control API checks a scenario whole too: a bad one is a 400 and changes nothing', async () => {
    await expect(emu.control('POST', '/_emulator/scenario', {scenario: {accounts: [{name: 'a'}], transfers: [{from: 'a', to: 'b', amount: 1, rail: 'wire'}]}})).rejects.toThrow(
      /400 .*transfers\[0\]\.to: no account named \\"b\\" in accounts/,
    )
    await expect(emu.control('POST', '/_emulator/scenario', {})).rejects.toThrow(/400/)
    expect(subaccountNames()).toEqual(['Operating', 'Payroll', 'Reserve'])
  })
})
