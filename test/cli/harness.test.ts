import {describe, expect, it} from 'vitest'
import {expectNothingSent, run, runAs, startEmulator, tempDir} from '../support/index.js'

describe('runCli', () => {
  it('runs a command in-process against the emulator', async () => {
    const emu = await startEmulator()
    const r = await runAs(emu, 'test', ['subaccounts', 'create', '--name', 'Ops'])
    expect(r.code, r.stderr).toBe(0)
    expect(r.json().name).toBe('Ops')
  })
  it('maps a usage error to exit 2 and sends nothing', async () => {
    const emu = await startEmulator()
    const r = await expectNothingSent(emu, () => runAs(emu, 'test', ['moves', 'create', '--from', 'x']))
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(/./)
  })
  it('typo', async () => {
    const r = await run(['moves', 'craete'])
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(/Did you mean/)
  })
  it('help', async () => {
    const r = await run(['moves', '--help'])
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(/USAGE/)
  })
  it('global flag first', async () => {
    const emu = await startEmulator()
    const dir = tempDir()
    const r = await run(['-o', 'json', 'subaccounts', 'create', '--name', 'X'], {env: {PAYOPS_BASE_URL: emu.baseUrl, PAYOPS_API_KEY: emu.keys.test}, configDir: dir.path})
    expect(r.code, r.stderr).toBe(0)
  })
})
