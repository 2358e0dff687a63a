import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {run, runAs, startCli, startEmulator, type Emulator} from '../support/index.js'

let emu: Emulator
/** Every seeded payer and payee of the test entity, newest first (read once with --all). */
let payers: any[]
let payees: any[]

const ndjson = (s: string) =>
  s
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l))
const ids = (xs: any[]) => xs.map((x) => x.id)
const errorJson = (stderr: string) => JSON.parse(stderr.trim().split('\n').find((l) => l.startsWith('{'))!).error

beforeAll(async () => {
  emu = await startEmulator()
  const a = await runAs(emu, 'test', ['payers', 'list', '--all', '--limit', '100', '-o', 'ndjson'])
  const b = await runAs(emu, 'test', ['payees', 'list', '--all', '--limit', '100', '-o', 'ndjson'])
  expect(a.code, a.stderr).toBe(0)
  expect(b.code, b.stderr).toBe(0)
  payers = ndjson(a.stdout)
  payees = ndjson(b.stdout)
})
afterAll(async () => {
  await emu?.stop()
})

describe('payers list / payees list', () => {
  it('--all follows every page of the seeded lists (several pages at limit 100)', () => {
    expect(payers).toHaveLength(250)
    expect(payees).toHaveLength(300)
    expect(new Set(ids(payers)).size).toBe(250)
    const times = payees.map((p) => Date.parse(p.created_at))
    expect([...times].sort((x, y) => y - x)).toEqual(times)
  })

  it('default output without a terminal is a JSON array of the first 50, on stdout alone', async () => {
    const r = await runAs(emu, 'test', ['payers', 'list'])
    expect(r.code).toBe(0)
    // stderr carries only where the list stopped, for scripts that page with --cursor.
    const page = JSON.parse(r.stderr).page
    expect(page).toMatchObject({has_more: true, next_cursor: expect.any(String)})
    expect(r.stderr.trim().split('\n')).toHaveLength(1)
    const next = await runAs(emu, 'test', ['payers', 'list', '--cursor', page.next_cursor])
    expect(ids(next.json())).toEqual(ids(payers.slice(50, 100)))
    const all = await runAs(emu, 'test', ['payers', 'list', '--all', '-o', 'ndjson'])
    expect(all.stderr).not.toMatch(/"page"/)
    expect(ids(r.json())).toEqual(ids(payers.slice(0, 50)))
    expect(Object.keys(r.json()[0])).toEqual(expect.arrayContaining(['id', 'name', 'email', 'created_at', 'updated_at']))
  })

  it('--limit with the table hint, then --cursor continues where the page ended', async () => {
    const first = await runAs(emu, 'test', ['payees', 'list', '--limit', '100', '-o', 'table'])
    expect(first.code).toBe(0)
    expect(first.stdout).toMatch(/^ID\s+NAME\s+EMAIL\s+COUNTRY\s+CITY\s+CREATED/)
    expect(first.stdout.trim().split('\n')).toHaveLength(101)
    const cursor = /--cursor (\S+)/.exec(first.stderr)![1]
    const second = await runAs(emu, 'test', ['payees', 'list', '--limit', '100', '--cursor', cursor])
    expect(ids(second.json())).toEqual(ids(payees.slice(100, 200)))
  })

  it('--order asc starts with the oldest; --max-items caps --all', async () => {
    const r = await runAs(emu, 'test', ['payers', 'list', '--order', 'asc', '--limit', '100', '--max-items', '130', '-o', 'ndjson'])
    expect(ids(ndjson(r.stdout))).toEqual(ids([...payers].reverse().slice(0, 130)))
  })

  it('--all streams: the first items are out while later pages are still being fetched', async () => {
    const before = (await emu.requestLog()).count
    const cli = startCli(['payees', 'list', '--all', '--limit', '1', '-o', 'ndjson'], {
      env: {PAYOPS_BASE_URL: emu.baseUrl, PAYOPS_API_KEY: emu.keys.test},
      configDir: '/nonexistent-payops',
    })
    let ended = false
    cli.done.then(
      () => (ended = true),
      () => (ended = true),
    )
    const first = await cli.line(undefined, 30_000)
    // Looked at as the first line arrives: the run goes on, and the later pages are not out yet.
    const runningAtFirstLine = !ended
    const linesAtFirstLine = cli.stdout().split('\n').length - 1
    const r = await cli.done
    expect(r.code, r.stderr).toBe(0)
    expect(runningAtFirstLine).toBe(true)
    expect(linesAtFirstLine).toBeLessThan(300)
    const lines = r.stdout.split('\n').filter(Boolean)
    expect(lines).toHaveLength(300)
    expect(lines[0]).toBe(first)
    expect(JSON.parse(first).id).toBe(payees[0].id)
    // One request per page of one.
    expect((await emu.requestLog()).count - before).toBeGreaterThanOrEqual(300)
  })

  it('-o csv has a header and the table columns', async () => {
    const r = await runAs(emu, 'test', ['payers', 'list', '--limit', '3', '-o', 'csv'])
    const rows = r.stdout.trim().split('\r\n')
    expect(rows[0]).toBe('id,name,email,country_code,city,created_at')
    expect(rows).toHaveLength(4)
    expect(rows[1].startsWith(`${payers[0].id},`)).toBe(true)
  })

  it('--name and --email match part of the value, ignoring case', async () => {
    const r = await runAs(emu, 'test', ['payees', 'list', '--name', 'SMITH', '--all'])
    const expected = payees.filter((p) => p.name.toLowerCase().includes('smith'))
    expect(expected.length).toBeGreaterThan(0)
    expect(ids(r.json())).toEqual(ids(expected))
    const e = await runAs(emu, 'test', ['payers', 'list', '--email', 'Example.NET', '--all', '-o', 'ndjson'])
    expect(ids(ndjson(e.stdout))).toEqual(ids(payers.filter((p) => p.email.toLowerCase().includes('example.net'))))
  })

  it('--has-default and --no-has-default split the list', async () => {
    const added = await emu.control<{ids: string[]}>('POST', '/_emulator/payers', {
      entity: 'test_other',
      records: [
        {name: 'Quokka Alpha', email: 'alpha@quokka.example', has_default: true},
        {name: 'Quokka Beta', email: 'beta@quokka.example', has_default: false},
      ],
    })
    const yes = await runAs(emu, 'test_other', ['payers', 'list', '--name', 'quokka', '--has-default'])
    const no = await runAs(emu, 'test_other', ['payers', 'list', '--name', 'quokka', '--no-has-default'])
    expect(ids(yes.json())).toEqual([added.ids[0]])
    expect(ids(no.json())).toEqual([added.ids[1]])
    const allYes = ndjson((await runAs(emu, 'test', ['payers', 'list', '--has-default', '--all', '-o', 'ndjson'])).stdout)
    const allNo = ndjson((await runAs(emu, 'test', ['payers', 'list', '--no-has-default', '--all', '-o', 'ndjson'])).stdout)
    expect(allYes.length).toBeGreaterThan(0)
    expect(allNo.length).toBeGreaterThan(0)
    expect([...ids(allYes), ...ids(allNo)].sort()).toEqual(ids(payers).sort())
  })

  it('--created-at-gte/--created-at-lte are inclusive dates', async () => {
    const day = payees[150].created_at.slice(0, 10)
    const sameDay = await runAs(emu, 'test', ['payees', 'list', '--created-at-gte', day, '--created-at-lte', day, '--all'])
    expect(ids(sameDay.json())).toEqual(ids(payees.filter((p) => p.created_at.startsWith(day))))
    expect(ids(sameDay.json())).toContain(payees[150].id)
    const from = payees[200].created_at.slice(0, 10)
    const to = payees[100].created_at.slice(0, 10)
    const range = await runAs(emu, 'test', ['payees', 'list', '--created_at_gte', from, '--created_at_lte', to, '--all', '--order', 'asc', '-o', 'ndjson'])
    const expected = payees.filter((p) => p.created_at.slice(0, 10) >= from && p.created_at.slice(0, 10) <= to).reverse()
    expect(ids(ndjson(range.stdout))).toEqual(ids(expected))
    expect(ids(expected)).toEqual(expect.arrayContaining([payees[200].id, payees[100].id]))
  })

  it('filters combine with --limit and --cursor', async () => {
    const expected = payers.filter((p) => p.name.toLowerCase().includes('a'))
    const first = await runAs(emu, 'test', ['payers', 'list', '--name', 'a', '--limit', '20', '-o', 'table'])
    const cursor = /--cursor (\S+)/.exec(first.stderr)![1]
    const second = await runAs(emu, 'test', ['payers', 'list', '--name', 'a', '--limit', '20', '--cursor', cursor])
    expect(ids(second.json())).toEqual(ids(expected.slice(20, 40)))
    const mismatch = await runAs(emu, 'test', ['payers', 'list', '--name', 'b', '--limit', '20', '--cursor', cursor])
    expect(mismatch.code).toBe(8)
    expect(mismatch.stderr).toMatch(/400 VALIDATION_ERROR/)
  })

  it('client-side validation: bad dates, inverted range and bad list flags exit 2 before any request', async () => {
    for (const args of [
      ['--created-at-gte', '2025-02-30'],
      ['--created-at-lte', '2025-01-01T00:00:00Z'],
      ['--created-at-gte', '2025-03-01', '--created-at-lte', '2025-02-01'],
      ['--limit', '0'],
      ['--limit', '501'],
      ['--order', 'sideways'],
      ['--has-default=yes'],
    ]) {
      const r = await run(['payers', 'list', ...args], {env: {PAYOPS_BASE_URL: 'http://127.0.0.1:1', PAYOPS_API_KEY: emu.keys.test}})
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(2)
      expect(r.stdout).toBe('')
    }
  })

  it('the API\'s own 400 VALIDATION_ERROR (limit over 500, impossible date) is exit 8', async () => {
    const r = await runAs(emu, 'test', ['api', 'GET', '/api/payees', '-f', 'limit=501', '-o', 'json'])
    expect(r.code).toBe(8)
    expect(errorJson(r.stderr)).toMatchObject({status: 400, error_code: 'VALIDATION_ERROR'})
    const d = await runAs(emu, 'test', ['api', 'GET', '/api/payers', '-f', 'created_at_lte=2025-02-30'])
    expect(d.code).toBe(8)
    const c = await runAs(emu, 'test', ['payees', 'list', '--cursor', 'garbage'])
    expect(c.code).toBe(8)
    expect(c.stderr).toMatch(/400 VALIDATION_ERROR/)
  })

  it('an invalid key is 401 AUTHENTICATION_ERROR, exit 3', async () => {
    for (const cmd of [['payers', 'list'], ['payees', 'list']]) {
      const r = await runAs(emu, 'test_00000000000000000000000000000bad', cmd)
      expect(r.code).toBe(3)
      expect(r.stderr).toMatch(/401 AUTHENTICATION_ERROR/)
    }
  })

  it('lists are scoped to the caller\'s entity', async () => {
    const r = await runAs(emu, 'live', ['payees', 'list', '--all'])
    expect(r.code).toBe(0)
    expect(r.json().length).toBeGreaterThan(0)
    expect(ids(r.json()).some((id: string) => ids(payees).includes(id))).toBe(false)
  })

  it('--query applies to the list', async () => {
    const r = await runAs(emu, 'test', ['payees', 'list', '--limit', '500', '--query', "length([?country_code=='IN'])"])
    expect(r.json()).toBe(payees.filter((p) => p.country_code === 'IN').length)
  })
})

describe('payees get', () => {
  it('shows a payee as JSON and as a table', async () => {
    const p = payees[7]
    const j = await runAs(emu, 'test', ['payees', 'get', p.id, '-o', 'json'])
    expect(j.code).toBe(0)
    expect(j.json()).toEqual(p)
    const t = await runAs(emu, 'test', ['payees', 'get', p.id, '-o', 'table'])
    expect(t.stdout).toMatch(new RegExp(`NAME\\s+${p.name}`))
    expect(t.stdout).toMatch(new RegExp(`EMAIL\\s+${p.email.replace(/[.+]/g, '\\$&')}`))
  })

  it('unknown id is 404 PAYEE_NOT_FOUND, exit 4', async () => {
    const r = await runAs(emu, 'test', ['payees', 'get', '00000000-0000-4000-8000-000000000000', '-o', 'json'])
    expect(r.code).toBe(4)
    expect(r.stdout).toBe('')
    expect(errorJson(r.stderr)).toMatchObject({status: 404, error_code: 'PAYEE_NOT_FOUND'})
  })

  it('another entity\'s payee is 404 PAYEE_NOT_FOUND, exit 4', async () => {
    const r = await runAs(emu, 'test_other', ['payees', 'get', payees[0].id])
    expect(r.code).toBe(4)
    expect(r.stderr).toMatch(/404 PAYEE_NOT_FOUND/)
  })

  it('an invalid key is exit 3', async () => {
    const r = await runAs(emu, 'test_00000000000000000000000000000bad', ['payees', 'get', payees[0].id])
    expect(r.code).toBe(3)
  })
})
