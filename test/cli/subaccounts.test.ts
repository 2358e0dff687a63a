import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {defaultConfigDir, expectNothingSent, run, runAs, startEmulator, type Emulator} from '../support/index.js'

let emu: Emulator
/** Runs `fn` and asserts the emulator received nothing and the (default) audit trail did not grow. */
const nothingSent = <T>(fn: () => Promise<T>) => expectNothingSent(emu, fn, defaultConfigDir())

beforeAll(async () => {
  emu = await startEmulator()
})
afterAll(async () => {
  await emu?.stop()
})

async function createSub(name: string, key = 'test'): Promise<Record<string, any>> {
  const r = await runAs(emu, key, ['subaccounts', 'create', '--name', name, '-o', 'json'])
  expect(r.code, r.stderr).toBe(0)
  return r.json()
}

describe('subaccounts create/get', () => {
  it('creates a subaccount with banking details and zero totals', async () => {
    const sub = await createSub('Payroll')
    expect(sub.id).toMatch(/^[0-9a-f-]{36}$/)
    expect(sub.name).toBe('Payroll')
    expect(sub.account_number).toMatch(/^\d+$/)
    expect(sub.routing_numbers.ach).toMatch(/^\d{9}$/)
    expect(sub.total_incoming_in_minor_units).toBe(0)
    expect(sub.total_outgoing_in_minor_units).toBe(0)
  })

  it('gets it back as JSON on stdout alone (no TTY means json by default)', async () => {
    const sub = await createSub('Reserve')
    const r = await runAs(emu, 'test', ['subaccounts', 'get', sub.id])
    expect(r.code).toBe(0)
    expect(r.json().id).toBe(sub.id)
    expect(r.stderr).toBe('')
  })

  it('renders a table with -o table', async () => {
    const sub = await createSub('Tabled')
    const r = await runAs(emu, 'test', ['subaccounts', 'get', sub.id, '-o', 'table'])
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(/NAME\s+Tabled/)
    expect(r.stdout).toMatch(/INCOMING\s+0\.00 USD/)
  })

  it('csv of a single resource has a header and one row', async () => {
    const sub = await createSub('Csv')
    const r = await runAs(emu, 'test', ['subaccounts', 'get', sub.id, '-o', 'csv', '--columns', 'id,name'])
    expect(r.stdout).toBe(`id,name\r\n${sub.id},Csv\r\n`)
  })

  it('another entity\'s subaccount is not found (exit 4)', async () => {
    const sub = await createSub('Mine')
    const r = await runAs(emu, 'test_other', ['subaccounts', 'get', sub.id, '-o', 'json'])
    expect(r.code).toBe(4)
    expect(r.stderr).toMatch(/404 NOT_FOUND/)
    const errLine = r.stderr.trim().split('\n').find((l) => l.startsWith('{'))!
    expect(JSON.parse(errLine).error.status).toBe(404)
    expect(r.stdout).toBe('')
  })

  it('unknown id is exit 4', async () => {
    const r = await runAs(emu, 'test', ['subaccounts', 'get', '00000000-0000-4000-8000-000000000000'])
    expect(r.code).toBe(4)
  })

  it('a name over 100 characters is rejected by the API (exit 8)', async () => {
    const r = await runAs(emu, 'test', ['subaccounts', 'create', '--name', 'x'.repeat(101)])
    expect(r.code).toBe(8)
    expect(r.stderr).toMatch(/400 VALIDATION_ERROR/)
  })

  it('missing --name is a usage error (exit 2)', async () => {
    const r = await nothingSent(() => runAs(emu, 'test', ['subaccounts', 'create']))
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(/name/)
  })

  it('no key at all is exit 3 with guidance', async () => {
    const r = await nothingSent(() => run(['subaccounts', 'get', 'x'], {env: {PAYOPS_BASE_URL: emu.baseUrl}}))
    expect(r.code).toBe(3)
    expect(r.stderr).toMatch(/No API key/)
  })

  it('an invalid key is exit 3 (401 AUTHENTICATION_ERROR) and is not echoed', async () => {
    const bogus = 'test_0000000000000000000000000000dead'
    const r = await runAs(emu, bogus, ['subaccounts', 'get', 'x'])
    expect(r.code).toBe(3)
    expect(r.stderr).toMatch(/401 AUTHENTICATION_ERROR/)
    expect(r.stderr + r.stdout).not.toContain(bogus)
  })

  it('an unreachable server is exit 7', async () => {
    const r = await run(['subaccounts', 'get', 'x', '--max-retries', '0'], {
      env: {PAYOPS_BASE_URL: 'http://127.0.0.1:1', PAYOPS_API_KEY: emu.keys.test},
    })
    expect(r.code).toBe(7)
    expect(r.stderr).toMatch(/could not reach/)
  })

  it('refuses to send a key over http:// to a non-loopback host (exit 2)', async () => {
    const r = await run(['subaccounts', 'get', 'x'], {env: {PAYOPS_BASE_URL: 'http://example.com', PAYOPS_API_KEY: emu.keys.test}})
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(/plain http/)
    // 0.0.0.0 is not a loopback name, yet connecting to it reaches this machine's listeners: had the
    // key been sent, the emulator would have received it.
    const port = new URL(emu.baseUrl).port
    const local = await nothingSent(() => run(['subaccounts', 'get', 'x'], {env: {PAYOPS_BASE_URL: `http://0.0.0.0:${port}`, PAYOPS_API_KEY: emu.keys.test}}))
    expect(local.code).toBe(2)
    expect(local.stderr).toMatch(/Refusing to send an API key over plain http:\/\/ to 0\.0\.0\.0/)
  })

  it('--debug traces the attempt with the key redacted', async () => {
    const sub = await createSub('Debugged')
    const r = await runAs(emu, 'test', ['subaccounts', 'get', sub.id, '--debug'])
    expect(r.code).toBe(0)
    expect(r.stderr).toMatch(/\[debug\] → GET \/api\/subaccounts\/.* attempt 1\/3/)
    expect(r.stderr).toMatch(/\[debug\] ← 200/)
    expect(r.stderr).toMatch(/x-api-key: test_…[0-9a-f]{4}/)
    expect(r.json().id).toBe(sub.id)
  })

  it('creating on a live key without a terminal is refused (exit 3) unless --yes', async () => {
    const refused = await nothingSent(() => runAs(emu, 'live', ['subaccounts', 'create', '--name', 'LiveOps']))
    expect(refused.code).toBe(3)
    expect(refused.stderr).toMatch(/LIVE/)
    expect(refused.stdout).toBe('')
    const ok = await runAs(emu, 'live', ['subaccounts', 'create', '--name', 'LiveOps', '--yes'])
    expect(ok.code).toBe(0)
    expect(ok.json().name).toBe('LiveOps')
  })
})

describe('subaccounts activity', () => {
  let a: Record<string, any>
  let b: Record<string, any>
  beforeAll(async () => {
    a = await createSub('Activity A')
    b = await createSub('Activity B')
    for (let i = 1; i <= 7; i++) {
      const r = await runAs(emu, 'test', ['moves', 'create', '--from', a.id, '--to', b.id, '--amount-minor', String(i * 100)])
      expect(r.code, r.stderr).toBe(0)
    }
    const back = await runAs(emu, 'test', ['moves', 'create', '--from', b.id, '--to', a.id, '--amount', '50.00'])
    expect(back.code, back.stderr).toBe(0)
  })

  it('lists newest first with transfer items', async () => {
    const r = await runAs(emu, 'test', ['subaccounts', 'activity', a.id])
    expect(r.code).toBe(0)
    const items = r.json()
    expect(items).toHaveLength(8)
    expect(items[0].direction).toBe('credit')
    expect(items[0].amount_in_minor_units).toBe(5000)
    expect(items.every((i: any) => i.source === 'transfer')).toBe(true)
  })

  it('filters by direction and amount', async () => {
    const r = await runAs(emu, 'test', ['subaccounts', 'activity', a.id, '--direction', 'debit', '--amount-minor-gte', '300', '--amount-minor-lte', '500'])
    expect(r.json().map((i: any) => i.amount_in_minor_units).sort()).toEqual([300, 400, 500])
  })

  it('pages with --limit and --cursor, and --all streams everything', async () => {
    const first = await runAs(emu, 'test', ['subaccounts', 'activity', a.id, '--limit', '3', '--order', 'asc', '-o', 'table'])
    expect(first.code).toBe(0)
    const hint = /--cursor (\S+)/.exec(first.stderr)
    expect(hint).not.toBeNull()
    const second = await runAs(emu, 'test', ['subaccounts', 'activity', a.id, '--limit', '3', '--order', 'asc', '--cursor', hint![1]])
    expect(second.json().map((i: any) => i.amount_in_minor_units)).toEqual([400, 500, 600])
    const all = await runAs(emu, 'test', ['subaccounts', 'activity', a.id, '--limit', '2', '--all', '-o', 'ndjson'])
    const lines = all.stdout.trim().split('\n')
    expect(lines).toHaveLength(8)
    expect(new Set(lines.map((l) => JSON.parse(l).id)).size).toBe(8)
    const capped = await runAs(emu, 'test', ['subaccounts', 'activity', a.id, '--limit', '2', '--max-items', '5', '-o', 'ndjson'])
    expect(capped.stdout.trim().split('\n')).toHaveLength(5)
  })

  it('csv output has a header row and money columns', async () => {
    const r = await runAs(emu, 'test', ['subaccounts', 'activity', b.id, '-o', 'csv', '--limit', '1'])
    const [header, row] = r.stdout.trim().split('\r\n')
    expect(header).toBe('id,effective_at,direction,amount,source')
    expect(row).toMatch(/,debit,50\.00 USD,transfer$/)
  })

  it('rejects bad list flags before any request (exit 2)', async () => {
    for (const args of [['--limit', '0'], ['--limit', '501'], ['--order', 'sideways'], ['--effective-at-gte', 'yesterday'], ['--amount-minor-gte', '1.5']]) {
      expect((await nothingSent(() => runAs(emu, 'test', ['subaccounts', 'activity', a.id, ...args]))).code, args.join(' ')).toBe(2)
    }
  })

  it('a bad cursor is rejected by the API (exit 8)', async () => {
    const r = await runAs(emu, 'test', ['subaccounts', 'activity', a.id, '--cursor', 'not-a-cursor'])
    expect(r.code).toBe(8)
  })

  it('--query applies JMESPath to the JSON result', async () => {
    const r = await runAs(emu, 'test', ['subaccounts', 'activity', a.id, '--query', "length([?direction=='debit'])"])
    expect(r.json()).toBe(7)
  })
})
