import {existsSync, readFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {run, runAs, startEmulator, startEmulatorCommand, tempDir} from '../support/index.js'

describe('emulator start', () => {
  it('prints exactly one JSON line with base_url and the three keys, and stops cleanly when interrupted', async () => {
    const emu = await startEmulatorCommand()
    expect(emu.cli!.stdout().trim().split('\n')).toHaveLength(1)
    expect(emu.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    expect(emu.keys.test).toMatch(/^test_/)
    expect(emu.keys.test_other).toMatch(/^test_/)
    expect(emu.keys.live).toMatch(/^live_/)
    expect(new Set(Object.values(emu.keys)).size).toBe(3)
    expect(await emu.stop()).toBe(0)
  })

  it('stops cleanly on Ctrl-C, and stops serving', async () => {
    const emu = await startEmulatorCommand()
    emu.cli!.interrupt()
    const r = await emu.cli!.done
    expect(r.code, r.stderr).toBe(0)
    await expect(fetch(`${emu.baseUrl}/_emulator/entities`)).rejects.toThrow()
  })

  it('persists state to --state FILE across restarts (same keys, same data)', async () => {
    const dir = tempDir()
    const state = join(dir.path, 'state.json')
    const first = await startEmulator(['--state', state])
    const sub = (await runAs(first, 'test', ['subaccounts', 'create', '--name', 'Persisted'])).json()
    expect(await first.stop()).toBe(0)
    expect(existsSync(state)).toBe(true)
    const second = await startEmulator(['--state', state])
    expect(second.keys).toEqual(first.keys)
    const again = await runAs(second, 'test', ['subaccounts', 'get', sub.id])
    expect(again.code).toBe(0)
    expect(again.json().name).toBe('Persisted')
    await second.stop()
    dir.cleanup()
  })

  it('--write-profile saves a working profile (key stored, never printed)', async () => {
    const dir = tempDir()
    const emu = await startEmulator(['--write-profile', 'emu'], dir.path)
    const profiles = JSON.parse(readFileSync(join(dir.path, 'config.json'), 'utf8'))
    expect(profiles.active).toBe('emu')
    expect(profiles.profiles.emu.base_url).toBe(emu.baseUrl)
    const r = await run(['subaccounts', 'create', '--name', 'ViaWrittenProfile'], {configDir: dir.path})
    expect(r.code, r.stderr).toBe(0)
    await emu.stop()
    dir.cleanup()
  })

  it('refuses a non-loopback --host and a busy port (exit 2)', async () => {
    // Refused before listening: no start-up line (no base URL, no keys) is printed.
    const r = await run(['emulator', 'start', '--host', '0.0.0.0', '--json'])
    expect(r.code).toBe(2)
    expect(r.stdout).toBe('')
    expect(r.stderr).toMatch(/--host 0\.0\.0\.0 is not a loopback address/)
    const emu = await startEmulator()
    const port = new URL(emu.baseUrl).port
    const busy = await run(['emulator', 'start', '--port', port, '--json'])
    expect(busy.code).toBe(2)
    expect(busy.stdout).toBe('')
    expect(busy.stderr).toMatch(/in use/)
    // The emulator on that port is untouched and still serves.
    expect((await runAs(emu, 'test', ['subaccounts', 'create', '--name', 'StillServing'])).code).toBe(0)
    await emu.stop()
  })

  it('answers unknown paths with 404 and keeps serving', async () => {
    const emu = await startEmulator()
    const res = await fetch(`${emu.baseUrl}/nope`, {headers: {'x-api-key': emu.keys.test}})
    expect(res.status).toBe(404)
    const body = await res.json()
    expect(body.error_code).toBe('NOT_FOUND')
    const after = await runAs(emu, 'test', ['subaccounts', 'create', '--name', 'StillUp'])
    expect(after.code).toBe(0)
    await emu.stop()
  })
})
