import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {defaultConfigDir, expectNothingSent, fakeClock, steppedClock, run, runAs, startEmulator, type Emulator, outcomeOf, expectOnlyRequests} from '../support/index.js'

let emu: Emulator
let main: string
let gbp: string
let inr: string
let reserve: string
let otherMain: string

const errorJson = (stderr: string) => JSON.parse(stderr.trim().split('\n').find((l) => l.startsWith('{'))!)

async function create(args: string[], key = 'test', opts: Parameters<typeof runAs>[3] = {}) {
  return runAs(emu, key, ['transfers', 'create', ...args], opts)
}

/** Runs `fn` and asserts the emulator received nothing and the (default) audit trail did not grow. */
const nothingSent = <T>(fn: () => Promise<T>) => expectNothingSent(emu, fn, defaultConfigDir())
/**
 * Runs `fn` and asserts the emulator received exactly `reads` ("GET /api/…" lookups, which change
 * nothing) and the audit trail did not grow: nothing that changes anything was sent.
 */
const onlyReads = <T>(reads: string[], fn: () => Promise<T>) => expectOnlyRequests(emu, reads, fn, defaultConfigDir())

/** How many transfers the test entity has. */
const transferCount = async () => (await runAs(emu, 'test', ['transfers', 'list', '--all', '-o', 'ndjson'])).stdout.trim().split('\n').filter(Boolean).length


async function setAsync(enabled: boolean, delay_ms?: number) {
  await emu.control('POST', '/_emulator/async-transfers', {entity: 'test', enabled, ...(delay_ms === undefined ? {} : {delay_ms})})
}

beforeAll(async () => {
  emu = await startEmulator()
  const list = (await runAs(emu, 'test', ['treasury', 'accounts', 'list'])).json()
  main = list.find((a: any) => a.label === 'Main operating account').id
  gbp = list.find((a: any) => a.currency_code === 'GBP').id
  inr = list.find((a: any) => a.currency_code === 'INR').id
  reserve = list.find((a: any) => a.currency_code === 'USD' && a.id !== main).id
  otherMain = (await runAs(emu, 'test_other', ['treasury', 'accounts', 'list'])).json()[0].id
})
afterAll(async () => {
  await emu?.stop()
})

describe('transfers create', () => {
  it('auto-approves and initiates (201), always sending an Idempotency-Key', async () => {
    const r = await create(['--from', main, '--to', reserve, '--amount', '1500.00', '--currency', 'usd', '--rail', 'same_day_ach', '--metadata', 'po=PO-7'])
    expect(r.code, r.stderr).toBe(0)
    expect(outcomeOf(r)).toMatchObject({kind: 'created', id: r.json().id, idempotency_key: expect.stringMatching(/^[0-9a-f-]{36}$/)})
    expect(r.json()).toMatchObject({from_account_id: main, to_account_id: reserve, amount_in_minor_units: 150000, currency_code: 'USD', rail: 'same_day_ach', status: 'initiated', client_metadata: {po: 'PO-7'}, scheduled_date: null})
  })

  it('renders the money column in a table', async () => {
    const r = await create(['--from', main, '--to', reserve, '--amount-minor', '123456', '--currency', 'USD', '--rail', 'wire', '-o', 'table'])
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(/AMOUNT\s+1,234\.56 USD/)
    expect(r.stdout).toMatch(/STATUS\s+initiated/)
  })

  it('replaying the Idempotency-Key returns the same transfer and sends nothing new', async () => {
    const key = `tr-${Date.now()}`
    const first = await create(['--from', main, '--to', gbp, '--amount', '20', '--currency', 'USD', '--rail', 'wire', '--idempotency-key', key])
    expect(first.code, first.stderr).toBe(0)
    const count = await transferCount()
    const again = await create(['--from', main, '--to', gbp, '--amount', '20', '--currency', 'USD', '--rail', 'wire', '--idempotency-key', key])
    expect(again.code).toBe(0)
    expect(again.json().id).toBe(first.json().id)
    expect(await transferCount()).toBe(count)
    expect(outcomeOf(again)).toMatchObject({kind: 'replayed', id: first.json().id, idempotency_key: key})
  })

  it('--no-auto-approve leaves it created with its scheduled date; approve moves it to approved', async () => {
    const r = await create(['--from', gbp, '--to', inr, '--amount', '99.99', '--currency', 'GBP', '--rail', 'wire', '--no-auto-approve', '--scheduled-date', '2026-12-24'])
    expect(r.code, r.stderr).toBe(0)
    const t = r.json()
    expect(t).toMatchObject({status: 'created', amount_in_minor_units: 9999, currency_code: 'GBP', scheduled_date: '2026-12-24'})
    const ok = await runAs(emu, 'test', ['transfers', 'approve', t.id])
    expect(ok.code, ok.stderr).toBe(0)
    expect(ok.json()).toMatchObject({id: t.id, status: 'approved'})
    // A second approve is refused by the API in a way that shows the state: approved, as asked.
    const count = await transferCount()
    const again = await runAs(emu, 'test', ['transfers', 'approve', t.id, '-o', 'table'])
    expect(again.code, again.stderr).toBe(0)
    expect(again.stderr).toMatch(new RegExp(`Account transfer ${t.id} .*is already approved \\(approved now\\)\\. Nothing was changed now\\. It was approved before this request\\.`))
    expect(await transferCount()).toBe(count)
  })

  it('a currency other than the source account\'s is refused before sending (exit 2), by `api` too', async () => {
    const before = await transferCount()
    const cur = await onlyReads(['GET /api/treasury/accounts'], () => create(['--from', main, '--to', reserve, '--amount', '1', '--currency', 'GBP', '--rail', 'wire']))
    expect(cur.code).toBe(2)
    expect(cur.stderr).toMatch(/--currency GBP does not match the source account's currency USD; nothing was sent\./)
    const raw = await onlyReads(['GET /api/treasury/accounts'], () =>
      runAs(emu, 'test', ['api', 'POST', '/api/treasury/account-transfers', '--input', '-'], {input: JSON.stringify({from_account_id: gbp, to_account_id: main, amount_in_minor_units: 100, currency_code: 'USD', rail: 'wire'})}),
    )
    expect(raw.code).toBe(2)
    expect(raw.stderr).toMatch(/does not match the source account's currency GBP/)
    expect(await transferCount()).toBe(before)
  })

  it('API rejections: ACH across currencies (exit 8), unknown account (exit 4)', async () => {
    const ach = await create(['--from', main, '--to', gbp, '--amount', '1', '--currency', 'USD', '--rail', 'standard_ach', '-o', 'json'])
    expect(ach.code).toBe(8)
    expect(errorJson(ach.stderr).error).toMatchObject({status: 400, error_code: 'VALIDATION_ERROR'})
    expect(ach.stderr).toMatch(/unsupported rail/)
    expect((await create(['--from', main, '--to', 'nope', '--amount', '1', '--currency', 'USD', '--rail', 'wire'])).code).toBe(4)
    expect((await create(['--from', main, '--to', otherMain, '--amount', '1', '--currency', 'USD', '--rail', 'wire'])).code).toBe(4)
  })

  it('same account is refused before sending (exit 2), by `api` too (the same checks), and by the API (400, exit 8)', async () => {
    const r = await nothingSent(() => create(['--from', main, '--to', main, '--amount', '1', '--currency', 'USD', '--rail', 'wire']))
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(/invalid account pair/)
    const raw = await nothingSent(() =>
      runAs(emu, 'test', ['api', 'POST', '/api/treasury/account-transfers', '--input', '-'], {
        input: JSON.stringify({from_account_id: main, to_account_id: main, amount_in_minor_units: 1, currency_code: 'USD', rail: 'wire'}),
      }),
    )
    expect(raw.code).toBe(2)
    expect(raw.stderr).toMatch(/invalid account pair/)
    expect(raw.stderr).toMatch(/Nothing was sent/)
    const direct = await fetch(`${emu.baseUrl}/api/treasury/account-transfers`, {
      method: 'POST',
      headers: {'content-type': 'application/json', 'x-api-key': emu.keys.test},
      body: JSON.stringify({from_account_id: main, to_account_id: main, amount_in_minor_units: 1, currency_code: 'USD', rail: 'wire'}),
    })
    expect(direct.status).toBe(400)
    expect(await direct.text()).toMatch(/invalid account pair/)
  })

  it('usage errors (exit 2): unsupported rail, zero amount, missing currency, bad date, both amounts', async () => {
    const base = ['--from', main, '--to', reserve]
    const cases = [
      [...base, '--amount', '1', '--currency', 'USD', '--rail', 'rtp'],
      [...base, '--amount', '0', '--currency', 'USD', '--rail', 'wire'],
      [...base, '--amount', '1.234', '--currency', 'USD', '--rail', 'wire'],
      [...base, '--amount', '1', '--rail', 'wire'],
      [...base, '--amount', '1', '--currency', 'USD', '--rail', 'wire', '--scheduled-date', '2026-02-30'],
      [...base, '--amount', '1', '--amount-minor', '100', '--currency', 'USD', '--rail', 'wire'],
      [...base, '--currency', 'USD', '--rail', 'wire'],
    ]
    const count = await transferCount()
    for (const args of cases) {
      const r = await nothingSent(() => create(args))
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(2)
      expect(r.stdout).toBe('')
    }
    expect(await transferCount()).toBe(count)
  })

  it('on a live key it shows the summary and refuses without a terminal (exit 3): only the account list is read', async () => {
    const r = await onlyReads(['GET /api/treasury/accounts'], () => create(['--from', 'A', '--to', 'B', '--amount', '12.34', '--currency', 'USD', '--rail', 'wire'], 'live'))
    expect(r.code).toBe(3)
    expect(r.stderr).toMatch(/LIVE/)
    expect(r.stderr).toMatch(/amount:\s+12\.34 USD/)
    expect(r.stderr).toMatch(/from:\s+A/)
    expect(r.stderr).toMatch(/to:\s+B/)
    expect(r.stdout).toBe('')
  })

  it('an invalid key is exit 3', async () => {
    const r = await create(['--from', main, '--to', reserve, '--amount', '1', '--currency', 'USD', '--rail', 'wire'], 'test_00000000000000000000000000000bad')
    expect(r.code).toBe(3)
    expect(r.stderr).toMatch(/401/)
  })
})

describe('transfers create --wait', () => {
  /** The pending transfer of `amountMinor` from `from`, found by the list (the command does not print its id until it ends). */
  const approvedOf = async (account: string, amountMinor: number) => {
    const list = (await runAs(emu, 'test', ['transfers', 'list', '--account', account, '--status', 'approved', '--amount-minor-gte', String(amountMinor), '--amount-minor-lte', String(amountMinor)])).json()
    expect(list, 'the approved transfer').toHaveLength(1)
    return list[0].id as string
  }

  it('a 202 (async initiation) is followed until it settles', async () => {
    // The emulator would take its steps after a minute: the test takes them, one poll at a time.
    await setAsync(true, 60_000)
    try {
      const clock = steppedClock()
      const pending = create(['--from', main, '--to', inr, '--amount', '10.00', '--currency', 'USD', '--rail', 'wire', '--wait', '--poll-interval', '200'], 'test', {clock})
      await clock.asleep()
      const id = await approvedOf(inr, 1000)
      await emu.control('POST', `/_emulator/transfers/${id}/advance`, {status: 'initiated'})
      clock.wake()
      await clock.asleep()
      await emu.control('POST', `/_emulator/transfers/${id}/advance`, {status: 'settled'})
      clock.wake()
      const r = await pending
      expect(r.code, r.stderr).toBe(0)
      expect(r.stderr).toMatch(/Accepted \(202\): transfer \S+ is approved/)
      const t = r.json()
      expect(t).toMatchObject({id, status: 'settled'})
      const listed = (await runAs(emu, 'test', ['transfers', 'list', '--account', inr, '--status', 'settled'])).json()
      expect(listed.map((x: any) => x.id)).toContain(t.id)
    } finally {
      await setAsync(false)
    }
  })

  it('without --wait a 202 returns at once with status approved', async () => {
    await setAsync(true, 60_000)
    try {
      const clock = fakeClock()
      const r = await create(['--from', main, '--to', reserve, '--amount', '3', '--currency', 'USD', '--rail', 'wire'], 'test', {clock})
      expect(r.code).toBe(0)
      expect(r.json().status).toBe('approved')
      expect(r.stderr).toMatch(/use --wait/)
      expect(clock.slept()).toBe(0)
    } finally {
      await setAsync(false)
    }
  })

  it('--wait-timeout ends the wait with exit 7, the last status in the message and on stdout', async () => {
    await setAsync(true, 60_000)
    try {
      const clock = fakeClock()
      const r = await create(['--from', main, '--to', reserve, '--amount', '4', '--currency', 'USD', '--rail', 'wire', '--wait', '--wait-timeout', '1', '--poll-interval', '200', '-o', 'json'], 'test', {clock})
      expect(r.code).toBe(7)
      expect(r.stderr).toMatch(/Timed out after 1s waiting for account transfer \S+; last status: approved/)
      expect(errorJson(r.stderr).error).toMatchObject({exit_code: 7, last_status: 'approved'})
      expect(r.json().status).toBe('approved')
      expect(clock.slept()).toBe(1000)
    } finally {
      await setAsync(false)
    }
  })

  it('a transfer that stays initiated is waited on until --wait-timeout (exit 7), its last state on stdout', async () => {
    const clock = fakeClock()
    const r = await create(['--from', main, '--to', reserve, '--amount', '5', '--currency', 'USD', '--rail', 'wire', '--wait', '--poll-interval', '100', '--wait-timeout', '1'], 'test', {clock})
    expect(r.code, r.stderr).toBe(7)
    expect(r.json().status).toBe('initiated')
    expect(r.stderr).toMatch(/Timed out after 1s waiting for account transfer .*last status: initiated/)
    expect(clock.slept()).toBe(1000)
  })

  it('a transfer advanced by the bank side is seen by the next poll', async () => {
    await setAsync(true, 60_000)
    try {
      const clock = steppedClock()
      const pending = create(['--from', main, '--to', gbp, '--amount', '6', '--currency', 'USD', '--rail', 'wire', '--wait', '--poll-interval', '200', '--wait-timeout', '20'], 'test', {clock})
      await clock.asleep()
      const id = await approvedOf(gbp, 600)
      await emu.control('POST', `/_emulator/transfers/${id}/advance`, {status: 'failed'})
      clock.wake()
      const r = await pending
      expect(r.code, r.stderr).toBe(0)
      expect(r.json()).toMatchObject({id, status: 'failed'})
      expect(clock.now() - Date.parse('2026-11-23T12:00:00Z')).toBe(200)
    } finally {
      await setAsync(false)
    }
  })
})

describe('transfers approve', () => {
  it('unknown or another entity\'s transfer is exit 4; a live key is refused without --yes (exit 3)', async () => {
    expect((await runAs(emu, 'test', ['transfers', 'approve', 'nope'])).code).toBe(4)
    const t = (await create(['--from', main, '--to', reserve, '--amount', '1', '--currency', 'USD', '--rail', 'wire', '--no-auto-approve'])).json()
    const other = await runAs(emu, 'test_other', ['transfers', 'approve', t.id])
    expect(other.code).toBe(4)
    expect(other.stderr).toMatch(/404 NOT_FOUND/)
    // The live key reads the transfers awaiting approval (its own entity's: this one is not among them) and approves nothing.
    const live = await onlyReads(['GET /api/treasury/account-transfers'], () => runAs(emu, 'live', ['transfers', 'approve', t.id]))
    expect(live.code).toBe(3)
    expect(live.stderr).toMatch(/not among the transfers awaiting approval/)
    const still = (await runAs(emu, 'test', ['transfers', 'list', '--status', 'created', '--limit', '500'])).json()
    expect(still.map((x: any) => x.id)).toContain(t.id)
  })
})

describe('transfers list', () => {
  let ids: {usdAch: string; gbpWire: string; inrCreated: string}
  let since: string
  beforeAll(async () => {
    since = new Date(Date.now() - 1000).toISOString()
    const a = await create(['--from', main, '--to', reserve, '--amount-minor', '70001', '--currency', 'USD', '--rail', 'standard_ach'])
    const b = await create(['--from', gbp, '--to', main, '--amount-minor', '70002', '--currency', 'GBP', '--rail', 'wire'])
    const c = await create(['--from', inr, '--to', gbp, '--amount-minor', '70003', '--currency', 'INR', '--rail', 'wire', '--no-auto-approve'])
    ids = {usdAch: a.json().id, gbpWire: b.json().id, inrCreated: c.json().id}
  })

  const list = async (args: string[]) => {
    const r = await runAs(emu, 'test', ['transfers', 'list', '--limit', '500', ...args])
    expect(r.code, r.stderr).toBe(0)
    return r.json().map((t: any) => t.id) as string[]
  }

  it('--account matches from or to, repeatable with OR (also --account-id and commas)', async () => {
    const g = await list(['--account', gbp, '--amount-minor-gte', '70001', '--amount-minor-lte', '70003'])
    expect(g.sort()).toEqual([ids.gbpWire, ids.inrCreated].sort())
    const two = await list(['--account', reserve, '--account-id', inr, '--amount-minor-gte', '70001', '--amount-minor-lte', '70003'])
    expect(two.sort()).toEqual([ids.usdAch, ids.inrCreated].sort())
    expect((await list([`--account=${reserve},${inr}`, '--amount-minor-gte', '70001', '--amount-minor-lte', '70003'])).sort()).toEqual(two.sort())
  })

  it('--status and --rail are repeatable with OR; rail groups expand', async () => {
    const s = await list(['--status', 'created', '--status', 'initiated', '--amount-minor-gte', '70001', '--amount-minor-lte', '70003'])
    expect(s.sort()).toEqual(Object.values(ids).sort())
    expect(await list(['--status', 'created', '--amount-minor-gte', '70001', '--amount-minor-lte', '70003'])).toEqual([ids.inrCreated])
    expect(await list(['--rail', 'ach', '--amount-minor-gte', '70001', '--amount-minor-lte', '70003'])).toEqual([ids.usdAch])
    const r = await list(['--rail', 'standard_ach', '--rail', 'wire', '--amount-minor-gte', '70001', '--amount-minor-lte', '70003'])
    expect(r.sort()).toEqual(Object.values(ids).sort())
  })

  it('amount (with the full mirror names) and created_at ranges are inclusive', async () => {
    expect(await list(['--amount-in-minor-units-gte', '70002', '--amount-in-minor-units-lte', '70002'])).toEqual([ids.gbpWire])
    const recent = await list(['--created-at-gte', since, '--amount-minor-gte', '70001', '--amount-minor-lte', '70003'])
    expect(recent.sort()).toEqual(Object.values(ids).sort())
    expect(await list(['--created-at-lte', '2000-01-01T00:00:00Z'])).toEqual([])
  })

  it('pages with --limit/--cursor, --all streams ndjson, csv has money columns', async () => {
    const first = await runAs(emu, 'test', ['transfers', 'list', '--limit', '2', '-o', 'table'])
    expect(first.stdout).toMatch(/STATUS\s+AMOUNT\s+RAIL/)
    const cursor = /--cursor (\S+)/.exec(first.stderr)![1]
    const second = await runAs(emu, 'test', ['transfers', 'list', '--limit', '2', '--cursor', cursor])
    expect(second.json()).toHaveLength(2)
    const total = (await list([])).length
    const all = await runAs(emu, 'test', ['transfers', 'list', '--limit', '3', '--all', '-o', 'ndjson'])
    const lines = all.stdout.trim().split('\n')
    expect(lines).toHaveLength(total)
    expect(new Set(lines.map((l) => JSON.parse(l).id)).size).toBe(total)
    const csv = await runAs(emu, 'test', ['transfers', 'list', '-o', 'csv', '--amount-minor-gte', '70002', '--amount-minor-lte', '70002'])
    const [header, row] = csv.stdout.trim().split('\r\n')
    expect(header).toBe('id,status,amount,rail,from_account_id,to_account_id,scheduled_date,created_at')
    expect(row).toMatch(new RegExp(`^${ids.gbpWire},initiated,700\\.02 GBP,wire,${gbp},${main},,`))
  })

  it('invalid filters are usage errors (exit 2); a bad cursor is a 400 (exit 8)', async () => {
    for (const args of [['--status', 'lost'], ['--rail', 'rtp'], ['--amount-minor-gte', '1.5'], ['--created-at-gte', 'last week'], ['--limit', '501']]) {
      expect((await nothingSent(() => runAs(emu, 'test', ['transfers', 'list', ...args]))).code, args.join(' ')).toBe(2)
    }
    expect((await runAs(emu, 'test', ['transfers', 'list', '--cursor', 'nope'])).code).toBe(8)
    const raw = await runAs(emu, 'test', ['api', 'GET', '/api/treasury/account-transfers', '-f', 'status=lost'])
    expect(raw.code).toBe(8)
  })

  it('is scoped to the entity', async () => {
    const r = await runAs(emu, 'test_other', ['transfers', 'list'])
    expect(r.json()).toEqual([])
  })
})

describe('transfers estimate', () => {
  it('converts USD -> INR in the source currency\'s minor units', async () => {
    const r = await runAs(emu, 'test', ['transfers', 'estimate', '--from', main, '--to', inr, '--amount', '1000.00'])
    expect(r.code, r.stderr).toBe(0)
    expect(r.json()).toEqual({
      source_currency_code: 'USD',
      source_amount_in_minor_units: 100000,
      destination_currency_code: 'INR',
      destination_amount_in_minor_units: 8312000,
      indicative_fx_rate: '83.12',
    })
    const table = await runAs(emu, 'test', ['transfers', 'estimate', '--from', main, '--to', inr, '--amount', '1000', '-o', 'table'])
    expect(table.stdout).toMatch(/SOURCE\s+1,000\.00 USD/)
    expect(table.stdout).toMatch(/DESTINATION\s+83,120\.00 INR/)
    expect(table.stdout).toMatch(/INDICATIVE RATE\s+83\.12/)
  })

  it('GBP -> USD with --amount-minor, rounding half-up', async () => {
    const r = await runAs(emu, 'test', ['transfers', 'estimate', '--from', gbp, '--to', main, '--amount-minor', '10000'])
    expect(r.json()).toMatchObject({destination_amount_in_minor_units: 12658, indicative_fx_rate: '1.265823'})
  })

  it('a --currency other than the source account\'s is exit 2; a bad amount exit 2', async () => {
    // Refused once the source account's currency is read: only that lookup is sent.
    const r = await onlyReads(['GET /api/treasury/accounts'], () => runAs(emu, 'test', ['transfers', 'estimate', '--from', gbp, '--to', main, '--amount', '1', '--currency', 'USD']))
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(/source account's currency GBP/)
    // A zero or missing amount, too, is refused only after the source account's currency is read; no estimate is asked for.
    expect((await onlyReads(['GET /api/treasury/accounts'], () => runAs(emu, 'test', ['transfers', 'estimate', '--from', main, '--to', inr, '--amount', '0']))).code).toBe(2)
    expect((await onlyReads(['GET /api/treasury/accounts'], () => runAs(emu, 'test', ['transfers', 'estimate', '--from', main, '--to', inr]))).code).toBe(2)
  })

  it('same account is an invalid pair (400, exit 8); unknown accounts exit 4', async () => {
    const same = await runAs(emu, 'test', ['transfers', 'estimate', '--from', main, '--to', main, '--amount', '1'])
    expect(same.code).toBe(8)
    expect(same.stderr).toMatch(/invalid account pair/)
    expect((await runAs(emu, 'test', ['transfers', 'estimate', '--from', main, '--to', 'nope', '--amount', '1'])).code).toBe(4)
    expect((await runAs(emu, 'test', ['transfers', 'estimate', '--from', 'nope', '--to', main, '--amount', '1'])).code).toBe(4)
    expect((await runAs(emu, 'test', ['transfers', 'estimate', '--from', 'nope', '--to', main, '--amount-minor', '1'])).code).toBe(4)
  })
})

describe('transfers rails', () => {
  it('USD to USD offers ACH, RTP and Wire; across currencies only Wire', async () => {
    const usd = await runAs(emu, 'test', ['transfers', 'rails', '--from', main, '--to', reserve])
    expect(usd.code).toBe(0)
    expect(usd.json()).toEqual({supported_rails: ['ACH', 'RTP', 'Wire']})
    const cross = await runAs(emu, 'test', ['transfers', 'rails', '--from', main, '--to', gbp, '-o', 'table'])
    expect(cross.stdout).toMatch(/SUPPORTED RAILS\s+Wire/)
  })

  it('same account exit 8, unknown account exit 4, missing flag exit 2, bad key exit 3', async () => {
    expect((await runAs(emu, 'test', ['transfers', 'rails', '--from', main, '--to', main])).code).toBe(8)
    expect((await runAs(emu, 'test', ['transfers', 'rails', '--from', main, '--to', otherMain])).code).toBe(4)
    expect((await nothingSent(() => runAs(emu, 'test', ['transfers', 'rails', '--from', main]))).code).toBe(2)
    const r = await run(['transfers', 'rails', '--from', main, '--to', gbp], {env: {PAYOPS_BASE_URL: emu.baseUrl, PAYOPS_API_KEY: 'test_00000000000000000000000000000bad'}})
    expect(r.code).toBe(3)
  })
})
