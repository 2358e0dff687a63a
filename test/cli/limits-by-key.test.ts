/**
 * Limits bind to the key that moves the money, not to a profile's name: a key handed in by the
 * environment or a flag is held to the limits of every profile that stores it, and a LIVE key
 * that no profile stores to those of every LIVE profile on this machine.
 */
import {writeFileSync, readFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {limitSetsFor} from '../../src/config/resolve.js'
import {expectOnlyRequests, run, startEmulator, subaccountLookup, tempDir, type Emulator, type RunOptions} from '../support/index.js'

let emu: Emulator
const dir = tempDir()
let x: string
let y: string

const cli = (args: string[], opts: RunOptions = {}) => run(args, {configDir: dir.path, ...opts})
const incoming = async (id: string) => (await cli(['subaccounts', 'get', id, '-p', 'prod'])).json().total_incoming_in_minor_units as number
const lookups = () => [subaccountLookup(x), subaccountLookup(y)]

beforeAll(async () => {
  emu = await startEmulator()
  await cli(['profiles', 'add', 'emu', '--base-url', emu.baseUrl, '--key-stdin', '--use'], {input: emu.keys.test})
  await cli(['profiles', 'add', 'prod', '--base-url', emu.baseUrl, '--key-stdin'], {input: emu.keys.live})
  expect((await cli(['profiles', 'set', 'prod', 'max-amount', '500.00', 'USD'])).code).toBe(0)
  x = (await cli(['subaccounts', 'create', '--name', 'K-X', '-p', 'prod', '--yes'])).json().id
  y = (await cli(['subaccounts', 'create', '--name', 'K-Y', '-p', 'prod', '--yes'])).json().id
})
afterAll(async () => {
  await emu?.stop()
  dir.cleanup()
})

describe('limits follow the key', () => {
  it('the LIVE key from the environment under another profile is held to the limits of the profile that stores it; nothing is sent', async () => {
    const before = await incoming(y)
    const r = await expectOnlyRequests(emu, lookups(), () =>
      cli(['-p', 'emu', 'moves', 'create', '--from', x, '--to', y, '--amount', '600.00', '--yes'], {env: {PAYOPS_API_KEY: emu.keys.live}}),
      dir.path,
    )
    expect(r.code, r.stderr).toBe(3)
    expect(r.stderr).toMatch(/600\.00 USD is over the max-amount 500\.00 USD of profile "prod"/)
    expect(await incoming(y)).toBe(before)
  })

  it('the same through --api-key, and through `payops api` on the move path', async () => {
    const flag = await expectOnlyRequests(emu, lookups(), () =>
      cli(['-p', 'emu', '--api-key', emu.keys.live, 'moves', 'create', '--from', x, '--to', y, '--amount', '600.00', '--yes']),
      dir.path,
    )
    expect(flag.code, flag.stderr).toBe(3)
    expect(flag.stderr).toMatch(/of profile "prod"/)
    const body = JSON.stringify({from_subaccount_id: x, to_subaccount_id: y, amount_in_minor_units: 60_000})
    const raw = await expectOnlyRequests(emu, lookups(), () =>
      cli(['-p', 'emu', 'api', 'POST', '/api/subaccounts/move', '--input', '-', '--yes'], {input: body, env: {PAYOPS_API_KEY: emu.keys.live}}),
      dir.path,
    )
    expect(raw.code, raw.stderr).toBe(3)
    expect(raw.stderr).toMatch(/of profile "prod"/)
  })

  it('within the limit it moves the money', async () => {
    const before = await incoming(y)
    const r = await cli(['-p', 'emu', 'moves', 'create', '--from', x, '--to', y, '--amount', '400.00', '--yes'], {env: {PAYOPS_API_KEY: emu.keys.live}})
    expect(r.code, r.stderr).toBe(0)
    expect(await incoming(y)).toBe(before + 40_000)
  })

  it('a LIVE key that no profile stores is held to the limits of every LIVE profile; a test key is not', async () => {
    const file = join(dir.path, 'config.json')
    const saved = readFileSync(file, 'utf8')
    try {
      const cfg = JSON.parse(saved)
      cfg.profiles.prod.api_key = 'live_someotherkey00000000000000'
      writeFileSync(file, JSON.stringify(cfg), {mode: 0o600})
      const before = await incoming2(emu.keys.live)
      const r = await expectOnlyRequests(emu, lookups(), () =>
        cli(['-p', 'emu', 'moves', 'create', '--from', x, '--to', y, '--amount', '600.00', '--yes'], {env: {PAYOPS_API_KEY: emu.keys.live}}),
        dir.path,
      )
      expect(r.code, r.stderr).toBe(3)
      expect(r.stderr).toMatch(/of profile "prod"/)
      expect(await incoming2(emu.keys.live)).toBe(before)
    } finally {
      writeFileSync(file, saved, {mode: 0o600})
    }
  })
})

/** The destination's incoming total read with the key given (the profile may not hold it). */
async function incoming2(key: string): Promise<number> {
  return (await cli(['subaccounts', 'get', y], {env: {PAYOPS_API_KEY: key}})).json().total_incoming_in_minor_units as number
}

describe('limitSetsFor', () => {
  const max = {max_amount: {USD: 100}}
  const file = {
    profiles: {
      a: {api_key: 'live_a', limits: max},
      b: {api_key: 'live_a', limits: {allowed_destinations: ['d']}},
      c: {api_key: 'live_c', limits: {max_amount: {USD: 5}}},
      t: {api_key: 'test_t'},
      u: {api_key: 'test_u', limits: max},
    },
  }
  it('the selected profile and every profile storing the key', () => {
    expect(limitSetsFor(file, 't', 'live_a').map((s) => s.profile)).toEqual(['a', 'b'])
    expect(limitSetsFor(file, 'u', 'live_a').map((s) => s.profile)).toEqual(['u', 'a', 'b'])
    expect(limitSetsFor(file, 'c', 'live_c').map((s) => s.profile)).toEqual(['c'])
  })
  it('a LIVE key no profile stores: every LIVE profile with limits; a test key no profile stores: only the selected one', () => {
    expect(limitSetsFor(file, 't', 'live_zzz').map((s) => s.profile)).toEqual(['a', 'b', 'c'])
    expect(limitSetsFor(file, undefined, 'test_zzz')).toEqual([])
    expect(limitSetsFor(file, 'u', 'test_zzz').map((s) => s.profile)).toEqual(['u'])
  })
})
