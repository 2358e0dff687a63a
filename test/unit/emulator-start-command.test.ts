/** `emulator start` in-process: fake IO and stop signal, a real emulator on 127.0.0.1:0. */
import {rmSync} from 'node:fs'
import {join} from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'
import {ProfileStore} from '../../src/config/index.js'
import {runEmulatorStart, type StartOptions} from '../../src/emulator/start-command.js'
import {testContext} from './context.js'
import {tempDir} from '../support/env.js'

let dir: string
afterEach(() => rmSync(dir, {recursive: true, force: true}))
const base = (over: Partial<StartOptions> = {}): StartOptions => ({port: 0, host: '127.0.0.1', force: false, faultKinds: '500', ...over})
const waitFor = async (check: () => boolean) => {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 10))
}

describe('runEmulatorStart', () => {
  it('prints one JSON line, serves until the stop signal, and saves the profile it was asked to', async () => {
    dir = tempDir('payops-emu-start-').path
    const t = testContext({format: 'json', configDir: dir})
    const running = runEmulatorStart(base({writeProfile: 'emu'}), t.ctx)
    await waitFor(() => t.stdout().includes('\n'))
    const info = JSON.parse(t.stdout().trim()) as {base_url: string; keys: {test: string}}
    expect(t.stdout().trim().split('\n')).toHaveLength(1)
    const res = await fetch(`${info.base_url}/api/treasury/accounts`, {headers: {'x-api-key': info.keys.test}})
    expect(res.status).toBe(200)
    expect(new ProfileStore(dir).get('emu')).toMatchObject({base_url: info.base_url})
    t.stop()
    await running
    await expect(fetch(`${info.base_url}/api/treasury/accounts`)).rejects.toThrow()
  })

  it('refuses before listening: an existing profile without --force, a non-loopback host, bad faults, --query (exit 2)', async () => {
    dir = tempDir('payops-emu-start-').path
    await new ProfileStore(dir).save('prod', {api_key: 'live_x', base_url: 'https://api.example.com', created_at: '2026-01-01T00:00:00Z'})
    const cases: Array<[Partial<StartOptions>, RegExp, Parameters<typeof testContext>[0]?]> = [
      [{writeProfile: 'prod'}, /Profile "prod" already exists; use --force/],
      [{host: '0.0.0.0'}, /not a loopback address/],
      [{faultRate: '2'}, /--fault-rate "2" must be a number from 0 to 1/],
      [{}, /--query does not apply to emulator start/, {query: 'keys'}],
    ]
    for (const [over, message, extra] of cases) {
      const t = testContext({format: 'json', configDir: dir, ...(extra ?? {})})
      const err = await runEmulatorStart(base(over), t.ctx).catch((e) => e)
      expect(err?.exitCode, String(message)).toBe(2)
      expect(err.message).toMatch(message)
      expect(t.stdout()).toBe('')
    }
    expect(new ProfileStore(dir).get('prod')).toMatchObject({base_url: 'https://api.example.com'})
  })
})
