import {statSync, readFileSync, writeFileSync, mkdirSync, symlinkSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {expectNothingSent, run, startCli, startEmulator, tempDir, type Emulator} from '../support/index.js'

let emu: Emulator
const dir = tempDir()

beforeAll(async () => {
  emu = await startEmulator()
})
afterAll(async () => {
  await emu?.stop()
  dir.cleanup()
})

const cli = (args: string[], opts: {input?: string; env?: Record<string, string>} = {}) => run(args, {configDir: dir.path, ...opts})
/** Runs `fn` and asserts the emulator received nothing and the audit trail did not grow. */
const nothingSent = <T>(fn: () => Promise<T>) => expectNothingSent(emu, fn, dir.path)
const config = () => readFileSync(join(dir.path, 'config.json'), 'utf8')

describe('profiles', () => {
  it('adds a profile from stdin, stores it with mode 0600 and shows the key redacted', async () => {
    const r = await cli(['profiles', 'add', 'sandbox', '--base-url', emu.baseUrl, '--key-stdin'], {input: emu.keys.test + '\n'})
    expect(r.code, r.stderr).toBe(0)
    expect(r.json()).toMatchObject({name: 'sandbox', active: true, mode: 'test', base_url: emu.baseUrl})
    expect(r.json().api_key).toBe(`test_…${emu.keys.test.slice(-4)}`)
    const file = join(dir.path, 'config.json')
    expect(statSync(file).mode & 0o777).toBe(0o600)
    expect(JSON.parse(readFileSync(file, 'utf8')).profiles.sandbox.api_key).toBe(emu.keys.test)
  })

  it('uses the active profile for API commands', async () => {
    const created = await cli(['subaccounts', 'create', '--name', 'ViaProfile'])
    expect(created.code, created.stderr).toBe(0)
    expect(created.json().name).toBe('ViaProfile')
  })

  it('lists profiles without ever printing a key', async () => {
    await cli(['profiles', 'add', 'prod', '--base-url', emu.baseUrl, '--key-stdin'], {input: emu.keys.live})
    const r = await cli(['profiles', 'list'])
    expect(r.code).toBe(0)
    const rows = r.json()
    expect(rows.map((p: any) => p.name).sort()).toEqual(['prod', 'sandbox'])
    expect(rows.find((p: any) => p.name === 'prod').mode).toBe('live')
    const table = await cli(['profiles', 'list', '-o', 'table'])
    expect(table.stdout).toMatch(/prod\s+LIVE\s+live_…/)
  })

  it('show names where the key and base URL come from, flag > env > profile', async () => {
    const fromProfile = await cli(['profiles', 'show'])
    expect(fromProfile.json()).toMatchObject({name: 'sandbox', api_key_source: 'profile "sandbox"', base_url_source: 'profile "sandbox"'})
    const fromEnv = await cli(['profiles', 'show'], {env: {PAYOPS_API_KEY: emu.keys.test_other}})
    expect(fromEnv.json().api_key_source).toBe('PAYOPS_API_KEY')
    expect(fromEnv.stderr).toMatch(/using the API key from PAYOPS_API_KEY/)
    const fromFlag = await cli(['profiles', 'show', '-p', 'prod', '--base-url', 'https://api.example.com'])
    expect(fromFlag.json()).toMatchObject({name: 'prod', mode: 'live', base_url: 'https://api.example.com', base_url_source: '--base-url'})
    const named = await cli(['profiles', 'show', 'prod'])
    expect(named.json().name).toBe('prod')
  })

  it('switches with use, and -p selects per command', async () => {
    expect((await cli(['profiles', 'use', 'prod'])).code).toBe(0)
    expect((await cli(['profiles', 'show'])).json().name).toBe('prod')
    const viaFlag = await cli(['subaccounts', 'create', '--name', 'Sandboxed', '-p', 'sandbox'])
    expect(viaFlag.code).toBe(0)
    const live = await nothingSent(() => cli(['subaccounts', 'create', '--name', 'NotConfirmed']))
    expect(live.code).toBe(3)
    await cli(['profiles', 'use', 'sandbox'])
  })

  it('rejects duplicates, bad names, bad URLs and keys without a mode prefix (exit 2)', async () => {
    const saved = config()
    const rejected = (args: string[], input?: string) => nothingSent(() => cli(['profiles', 'add', ...args], input === undefined ? {} : {input}))
    const dup = await rejected(['sandbox', '--base-url', emu.baseUrl, '--key-stdin'], emu.keys.test)
    expect(dup.code).toBe(2)
    expect(dup.stderr).toMatch(/already exists/)
    expect((await rejected(['bad name', '--base-url', emu.baseUrl, '--key-stdin'], emu.keys.test)).code).toBe(2)
    const http = await rejected(['remote', '--base-url', 'http://api.example.com', '--key-stdin'], emu.keys.test)
    expect(http.code).toBe(2)
    expect(http.stderr).toMatch(/https/)
    const noPrefix = await rejected(['weird', '--base-url', emu.baseUrl, '--key-stdin'], 'sk_abcdefghijklmnopqrstuvwxyz')
    expect(noPrefix.code).toBe(2)
    expect(noPrefix.stderr).not.toContain('sk_abcdefghijklmnopqrstuvwxyz')
    expect((await rejected(['nokey', '--base-url', emu.baseUrl])).code).toBe(2)
    expect((await rejected(['empty', '--base-url', emu.baseUrl, '--key-stdin'], '')).code).toBe(2)
    // Nothing was saved either.
    expect(config()).toBe(saved)
  })

  it('--force replaces, remove deletes, unknown names are exit 2', async () => {
    const forced = await cli(['profiles', 'add', 'prod', '--base-url', emu.baseUrl, '--key-stdin', '--force'], {input: emu.keys.test_other})
    expect(forced.json().mode).toBe('test')
    expect((await cli(['profiles', 'remove', 'prod'])).code).toBe(0)
    const saved = config()
    expect((await nothingSent(() => cli(['profiles', 'remove', 'prod']))).code).toBe(2)
    expect((await nothingSent(() => cli(['profiles', 'use', 'ghost']))).code).toBe(2)
    expect((await nothingSent(() => cli(['profiles', 'show', 'ghost']))).code).toBe(2)
    expect((await nothingSent(() => cli(['subaccounts', 'get', 'x', '-p', 'ghost']))).code).toBe(2)
    expect(config()).toBe(saved)
  })

  it('a corrupt profile file is a clear error, not a crash', async () => {
    const bad = tempDir()
    mkdirSync(bad.path, {recursive: true})
    writeFileSync(join(bad.path, 'config.json'), '{nope')
    const r = await run(['profiles', 'list'], {configDir: bad.path})
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(/not valid JSON/)
    bad.cleanup()
  })
})

describe('profiles: writers side by side', () => {
  it('20 profiles added at once are all kept, and each run says so truly', async () => {
    const d = tempDir()
    const runs = Array.from({length: 20}, (_, i) =>
      startCli(['profiles', 'add', `p${i}`, '--base-url', emu.baseUrl, '--key-stdin', '-o', 'json'], {configDir: d.path, stdin: `${emu.keys.test}\n`}),
    )
    const results = await Promise.all(runs.map((r) => r.done))
    for (const r of results) expect(r.code, r.stderr).toBe(0)
    const file = JSON.parse(readFileSync(join(d.path, 'config.json'), 'utf8'))
    expect(Object.keys(file.profiles).sort()).toEqual(Array.from({length: 20}, (_, i) => `p${i}`).sort())
    // Exactly one of them became active (the first to find no active profile).
    expect(results.filter((r) => r.json().active)).toHaveLength(1)
    expect(file.active).toBe(results.find((r) => r.json().active)!.json().name)
  })

  it('two limits set at once on one profile are both kept', async () => {
    const d = tempDir()
    expect((await run(['profiles', 'add', 'ops', '--base-url', emu.baseUrl, '--key-stdin'], {configDir: d.path, input: emu.keys.test})).code).toBe(0)
    const dest = '3f1c2a9e-6b7d-4c8e-9f01-23456789abcd'
    for (let i = 0; i < 5; i++) {
      const both = [startCli(['profiles', 'set', 'ops', 'max-amount', `${100 + i}.00`, 'USD'], {configDir: d.path}), startCli(['profiles', 'set', 'ops', 'allowed-destinations', dest], {configDir: d.path})]
      for (const r of await Promise.all(both.map((b) => b.done))) expect(r.code, r.stderr).toBe(0)
      const limits = JSON.parse(readFileSync(join(d.path, 'config.json'), 'utf8')).profiles.ops.limits
      expect(limits).toEqual({max_amount: {USD: (100 + i) * 100}, allowed_destinations: [dest]})
      expect((await run(['profiles', 'unset', 'ops', 'allowed-destinations'], {configDir: d.path})).code).toBe(0)
    }
  })

  it('a profile file that is a symlink is refused (exit 2): no key is written through it', async () => {
    const d = tempDir()
    const victim = join(d.path, 'victim.json')
    writeFileSync(victim, '{"profiles": {}}\n')
    symlinkSync(victim, join(d.path, 'config.json'))
    const add = await run(['profiles', 'add', 'x', '--base-url', emu.baseUrl, '--key-stdin'], {configDir: d.path, input: emu.keys.test})
    expect(add.code).toBe(2)
    expect(add.stderr).toMatch(/config\.json is a symbolic link; payops does not read or write API keys through one/)
    expect(readFileSync(victim, 'utf8')).toBe('{"profiles": {}}\n')
    const list = await run(['profiles', 'list'], {configDir: d.path})
    expect(list.code).toBe(2)
  })
})
