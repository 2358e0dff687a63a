import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {defaultConfigDir, expectNothingSent, runAs, startEmulator, tempDir, type Emulator} from '../support/index.js'

let emu: Emulator
const dir = tempDir()
/** Runs `fn` and asserts the emulator received nothing and the (default) audit trail did not grow. */
const nothingSent = <T>(fn: () => Promise<T>) => expectNothingSent(emu, fn, defaultConfigDir())

beforeAll(async () => {
  emu = await startEmulator()
})
afterAll(async () => {
  await emu?.stop()
  dir.cleanup()
})

describe('api', () => {
  it('POSTs -f fields as a JSON body and prints the raw response', async () => {
    const r = await runAs(emu, 'test', ['api', 'POST', '/api/subaccounts', '-f', 'name=Raw'])
    expect(r.code, r.stderr).toBe(0)
    expect(r.json().data.name).toBe('Raw')
  })

  it('GETs a path; -F typed fields become query parameters; --paginate prints every item', async () => {
    const a = (await runAs(emu, 'test', ['api', 'POST', '/api/subaccounts', '-f', 'name=A'])).json().data.id
    const b = (await runAs(emu, 'test', ['api', 'post', '/api/subaccounts', '-f', 'name=B'])).json().data.id
    for (let i = 1; i <= 5; i++) {
      const m = await runAs(emu, 'test', ['api', 'POST', '/api/subaccounts/move', '-f', `from_subaccount_id=${a}`, '-f', `to_subaccount_id=${b}`, '-F', `amount_in_minor_units=${i}`, '-H', `Idempotency-Key: raw-${a}-${i}`])
      expect(m.code, m.stderr).toBe(0)
      expect(m.json().data.amount_in_minor_units).toBe(i)
    }
    const page = await runAs(emu, 'test', ['api', 'GET', `/api/subaccounts/${a}/activity`, '-F', 'limit=2'])
    expect(page.json().data).toHaveLength(2)
    expect(page.json().has_more).toBe(true)
    const all = await runAs(emu, 'test', ['api', 'GET', `/api/subaccounts/${a}/activity?limit=2`, '--paginate', '-o', 'ndjson'])
    expect(all.stdout.trim().split('\n')).toHaveLength(5)
    const got = await runAs(emu, 'test', ['api', 'GET', `/api/subaccounts/${b}`])
    expect(got.json().data.total_incoming_in_minor_units).toBe(15)
  })

  it('sends --input from a file or stdin as it is', async () => {
    const file = join(dir.path, 'body.json')
    writeFileSync(file, '{"name":"FromFile"}')
    expect((await runAs(emu, 'test', ['api', 'POST', '/api/subaccounts', '--input', file])).json().data.name).toBe('FromFile')
    const stdin = await runAs(emu, 'test', ['api', 'POST', '/api/subaccounts', '--input', '-'], {input: '{"name":"FromStdin"}'})
    expect(stdin.json().data.name).toBe('FromStdin')
  })

  it('maps API errors to exit codes', async () => {
    expect((await runAs(emu, 'test', ['api', 'GET', '/api/subaccounts/00000000-0000-4000-8000-000000000000'])).code).toBe(4)
    expect((await runAs(emu, 'test', ['api', 'POST', '/api/subaccounts', '-f', 'name='])).code).toBe(8)
    expect((await runAs(emu, 'test_0000000000000000000000000000beef', ['api', 'GET', '/api/subaccounts/x'])).code).toBe(3)
  })

  it('refuses bad usage before sending (exit 2)', async () => {
    expect((await nothingSent(() => runAs(emu, 'test', ['api', 'GET', 'https://evil.example.com/api/x']))).code).toBe(2)
    expect((await nothingSent(() => runAs(emu, 'test', ['api', 'POST', '/api/subaccounts', '--input', '-'], {input: '{bad'}))).code).toBe(2)
    expect((await nothingSent(() => runAs(emu, 'test', ['api', 'FETCH', '/api/subaccounts']))).code).toBe(2)
    expect((await nothingSent(() => runAs(emu, 'test', ['api', 'GET', '/api/x', '-H', 'x-api-key: test_abc']))).code).toBe(2)
    expect((await nothingSent(() => runAs(emu, 'test', ['api', 'POST', '/api/subaccounts', '-f', 'novalue']))).code).toBe(2)
    expect((await nothingSent(() => runAs(emu, 'test', ['api', 'POST', '/api/subaccounts', '--input', join(dir.path, 'missing.json')]))).code).toBe(2)
  })

  it('asks before a mutating call on a live key', async () => {
    // Without a terminal there is no one to ask: refused, nothing sent.
    const r = await nothingSent(() => runAs(emu, 'live', ['api', 'POST', '/api/subaccounts', '-f', 'name=NoTTY']))
    expect(r.code).toBe(3)
    expect(r.stderr).toMatch(/LIVE/)
    // On a terminal it asks; no is refused before sending, yes sends.
    const declined = await nothingSent(() => runAs(emu, 'live', ['api', 'POST', '/api/subaccounts', '-f', 'name=Declined'], {tty: true, answers: ['n']}))
    expect(declined.code).toBe(3)
    expect(declined.asked).toEqual(['Proceed with a LIVE action?'])
    const confirmed = await runAs(emu, 'live', ['api', 'POST', '/api/subaccounts', '-f', 'name=Confirmed', '-o', 'json'], {tty: true, answers: ['y']})
    expect(confirmed.code, confirmed.stderr).toBe(0)
    expect(confirmed.asked).toEqual(['Proceed with a LIVE action?'])
    expect(confirmed.json().data.name).toBe('Confirmed')
    // A read is not asked about, with or without a terminal.
    const get = await runAs(emu, 'live', ['api', 'GET', '/api/subaccounts/00000000-0000-4000-8000-000000000000'])
    expect(get.code).toBe(4)
    const onTerminal = await runAs(emu, 'live', ['api', 'GET', '/api/subaccounts/00000000-0000-4000-8000-000000000000'], {tty: true})
    expect(onTerminal.code).toBe(4)
    expect(onTerminal.asked).toEqual([])
  })
})
