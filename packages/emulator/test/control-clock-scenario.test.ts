/**
 * The control API a starter drives over HTTP alone: POST /_emulator/scenario with a file's name
 * and text (the emulator reads and checks it, every problem a `FILE:LINE:COL` line), and
 * POST /_emulator/clock, whose refusals are one sentence for the operator.
 */
import {describe, expect, it} from 'vitest'
import {call, emulatorFixture} from './helpers.js'

const emu = emulatorFixture('payops-test-emulator-control-')

const SCENARIO = `name: Small world
clock: 2026-01-05T09:00:00-05:00
accounts:
  - name: operating
    balance: 1000.00
subaccounts:
  - name: Payroll
    balance: 250.00
webhooks:
  - url: http://127.0.0.1:9/hooks
    event_types: [payin.settled]
    secret_env: SMALL_WORLD_SECRET
`

const BROKEN = `accounts:
  - name: operating
    currency: usd
subaccounts:
  - name: Payroll
    balanse: 100.00
`

describe('POST /_emulator/scenario with a file', () => {
  it('reads the text as the file it names, with the secrets its secret_env fields name taken from env', async () => {
    const e = await emu.start()
    const res = await call(e, 'POST', '/_emulator/scenario', {key: null, body: {file: 'small.yaml', text: SCENARIO, env: {SMALL_WORLD_SECRET: 'whsec_small_world_0001'}}})
    expect(res.status, JSON.stringify(res.body)).toBe(201)
    expect(res.body.data).toMatchObject({name: 'Small world', accounts: 1, subaccounts: 1, webhooks: 1})
    expect(res.body.data.clock.day).toBe('2026-01-05')
    const test = e.store.entityByRole('test')!
    expect(test.subaccounts.items.map((s) => s.name)).toEqual(['Payroll'])
    expect(test.webhooks.items.map((h) => h.secret)).toEqual(['whsec_small_world_0001'])
  })

  it('refuses a file with problems: 400, the count as its message, one FILE:LINE:COL line each in errors, nothing loaded', async () => {
    const e = await emu.start()
    const before = e.store.entityByRole('test')!.subaccounts.items.map((s) => s.name)
    const res = await call(e, 'POST', '/_emulator/scenario', {key: null, body: {file: 'dir/broken.yaml', text: BROKEN}})
    expect(res.status).toBe(400)
    expect(res.body).toMatchObject({error_code: 'VALIDATION_ERROR', message: '2 problems in scenario file dir/broken.yaml; nothing was loaded.'})
    expect(res.body.errors).toEqual([
      {message: 'dir/broken.yaml:3:5: accounts[0].currency: currency must be an ISO 4217 code such as USD'},
      {message: 'dir/broken.yaml:6:5: subaccounts[0].balanse: unknown field'},
    ])
    // A secret_env whose variable was not sent is a problem of the file too.
    const unset = await call(e, 'POST', '/_emulator/scenario', {key: null, body: {file: 'small.yaml', text: SCENARIO}})
    expect(unset.status).toBe(400)
    expect(unset.body.errors).toEqual([{message: 'small.yaml:12:5: webhooks[0].secret_env: environment variable SMALL_WORLD_SECRET is not set'}])
    const badEnv = await call(e, 'POST', '/_emulator/scenario', {key: null, body: {file: 'small.yaml', text: SCENARIO, env: {SMALL_WORLD_SECRET: 1}}})
    expect(badEnv.status).toBe(400)
    expect(e.store.entityByRole('test')!.subaccounts.items.map((s) => s.name)).toEqual(before)
  })
})

describe('POST /_emulator/clock refusals', () => {
  it('says what is wrong with a duration or an instant in one sentence, and leaves the clock where it was', async () => {
    const e = await emu.start()
    const now = e.store.nowMs()
    const moves: Array<[unknown, string]> = [
      [{advance: '2 days'}, '"2 days" is not a duration: use a number and a unit, such as 30m, 36h, 2d, 1d12h or 1w (at most 10 years).'],
      [{to: 'yesterday'}, '"yesterday" is not an instant: use ISO 8601 with its offset, such as 2026-01-07T09:00:00-05:00, or a day (2026-01-07, its start in America/New_York).'],
    ]
    for (const [body, message] of moves) {
      const res = await call(e, 'POST', '/_emulator/clock', {key: null, body})
      expect(res.status).toBe(400)
      expect(res.body.message).toBe(message)
    }
    const past = await call(e, 'POST', '/_emulator/clock', {key: null, body: {to: '2020-01-01T00:00:00Z'}})
    expect(past.status).toBe(400)
    expect(past.body.message).toMatch(/^2020-01-01T00:00:00Z is before the emulator's clock \(.*\); the clock only moves forward\. Start an emulator with --clock to begin earlier\.$/)
    expect(e.store.nowMs() - now).toBeLessThan(60_000)
  })
})
