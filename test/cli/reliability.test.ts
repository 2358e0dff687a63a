import {afterAll, afterEach, beforeAll, describe, expect, it} from 'vitest'
import {fakeClock, runAs, startEmulator, type Emulator} from '../support/index.js'

let emu: Emulator
let a: string
let b: string

const faults = (cfg: Record<string, unknown>) => emu.control('POST', '/_emulator/faults', cfg)
const injected = async () => (await emu.control<{data: {injected: Record<string, number>}}>('GET', '/_emulator/faults')).data.injected
const incoming = async (id: string) => (await runAs(emu, 'test', ['subaccounts', 'get', id])).json().total_incoming_in_minor_units as number

beforeAll(async () => {
  emu = await startEmulator()
  a = (await runAs(emu, 'test', ['subaccounts', 'create', '--name', 'R-A'])).json().id
  b = (await runAs(emu, 'test', ['subaccounts', 'create', '--name', 'R-B'])).json().id
})
afterEach(async () => {
  await emu.control('DELETE', '/_emulator/faults')
})
afterAll(async () => {
  await emu?.stop()
})

describe('transport retries against emulator faults', () => {
  it('retries a GET after a 503 and shows each attempt in --debug', async () => {
    await faults({queue: [{kind: '503'}]})
    const r = await runAs(emu, 'test', ['subaccounts', 'get', a, '--debug'], {clock: fakeClock()})
    expect(r.code, r.stderr).toBe(0)
    expect(r.stderr).toMatch(/← 503 GET .*attempt 1\/3/)
    expect(r.stderr).toMatch(/← 200 GET .*attempt 2\/3/)
    expect(await injected()).toEqual({'503:before': 1})
  })

  it('honours Retry-After', async () => {
    await faults({queue: [{kind: '503'}], retry_after: 1})
    const clock = fakeClock()
    const r = await runAs(emu, 'test', ['subaccounts', 'get', a, '--debug'], {clock})
    expect(r.code).toBe(0)
    expect(r.stderr).toMatch(/retrying in 1000ms \(Retry-After\)/)
    // It waited the second the server asked for (on the command's clock), before the one retry.
    expect(clock.slept()).toBe(1000)
  })

  it('does not retry a POST without an Idempotency-Key', async () => {
    await faults({queue: [{kind: '503'}]})
    const clock = fakeClock()
    const r = await runAs(emu, 'test', ['subaccounts', 'create', '--name', 'Once', '--debug'], {clock})
    expect(clock.slept()).toBe(0)
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(/attempt 1\/1/)
    expect(r.stderr).not.toMatch(/attempt 2/)
    expect(r.stderr).toMatch(/503 INJECTED_FAULT/)
  })

  it('a move whose response was lost after commit is retried with its key and moves money once', async () => {
    const before = await incoming(b)
    await faults({queue: [{kind: '500', phase: 'after'}], methods: ['POST']})
    const r = await runAs(emu, 'test', ['moves', 'create', '--from', a, '--to', b, '--amount-minor', '4321', '--debug', '-o', 'table'], {clock: fakeClock()})
    expect(r.code, r.stderr).toBe(0)
    expect(r.stderr).toMatch(/← 500 POST \/api\/subaccounts\/move .*attempt 1\/3/)
    expect(r.stderr).toMatch(/← 200 POST \/api\/subaccounts\/move .*attempt 2\/3/)
    // This run's request made the move: the retry only confirmed it, so it is never "replayed".
    expect(r.stderr).not.toMatch(/Replayed|nothing (new )?was moved/)
    expect(r.stderr).toMatch(/Created move .*a retry with the same Idempotency-Key .* confirmed it/)
    expect(await incoming(b)).toBe(before + 4321)
  })

  it('a connection reset after commit is retried safely too', async () => {
    const before = await incoming(b)
    await faults({queue: [{kind: 'reset', phase: 'after'}], methods: ['POST']})
    const r = await runAs(emu, 'test', ['moves', 'create', '--from', a, '--to', b, '--amount-minor', '1000'], {clock: fakeClock()})
    expect(r.code, r.stderr).toBe(0)
    expect(await incoming(b)).toBe(before + 1000)
  })

  it('gives up after --max-retries with the last server error (exit 1)', async () => {
    await faults({queue: [{kind: '502'}, {kind: '502'}]})
    const r = await runAs(emu, 'test', ['subaccounts', 'get', a, '--max-retries', '1'], {clock: fakeClock()})
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(/502 INJECTED_FAULT/)
  })

  it('a reset on every attempt is a network error (exit 7)', async () => {
    await faults({queue: [{kind: 'reset'}, {kind: 'reset'}, {kind: 'reset'}]})
    const r = await runAs(emu, 'test', ['subaccounts', 'get', a], {clock: fakeClock()})
    expect(r.code).toBe(7)
    expect(r.stderr).toMatch(/after 3 attempts/)
  })

  it('--timeout bounds a slow call (exit 7)', async () => {
    await faults({rate: 1, kinds: ['latency'], latency_ms: 3000})
    // The timeout itself is the wall clock's (a request in flight); the fake clock only spares the backoff.
    const r = await runAs(emu, 'test', ['subaccounts', 'get', a, '--timeout', '1'], {clock: fakeClock()})
    expect(r.code).toBe(7)
    expect(r.stderr).toMatch(/timed out/)
  })

  it('the control API rejects a bad fault configuration and the emulator keeps serving', async () => {
    await expect(faults({rate: 2})).rejects.toThrow(/400/)
    await expect(faults({kinds: ['boom']})).rejects.toThrow(/400/)
    expect((await runAs(emu, 'test', ['subaccounts', 'get', a])).code).toBe(0)
  })
})
