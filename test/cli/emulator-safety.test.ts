/**
 * `payops emulator start` refuses what it cannot honour before it listens: a --state it cannot
 * write or load, a --write-profile that would replace an existing profile. A state file that stops
 * being writable later is reported, and the process exits 1 when stopped.
 */
import {randomBytes} from 'node:crypto'
import {mkdirSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {request} from 'node:http'
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {knownSecrets, run, runAs, startEmulator, tempDir, type Emulator} from '../support/index.js'

const tmp = tempDir('payops-emu-safety-')
const emulators: Emulator[] = []
afterAll(async () => {
  await Promise.all(emulators.map((e) => e.stop()))
  tmp.cleanup()
})

const start = (args: string[], configDir?: string) => run(['emulator', 'start', '--port', '0', '--json', ...args], {configDir})

/** The one human line of an error (machine output adds the `{"error": ...}` object after it). */
function oneLineError(stderr: string, exitCode = 2): string {
  const lines = stderr.trim().split('\n')
  const human = lines.filter((l) => !l.startsWith('{"error":'))
  expect(human).toHaveLength(1)
  const json = lines.find((l) => l.startsWith('{"error":'))
  if (json) expect(JSON.parse(json).error.exit_code).toBe(exitCode)
  return human[0]
}

describe('emulator start --state', () => {
  it('exits 2 before listening when the directory does not exist', async () => {
    const path = join(tmp.path, 'missing', 'dir', 'x.json')
    const r = await start(['--state', path])
    expect(r.code).toBe(2)
    expect(r.stdout).toBe('')
    expect(oneLineError(r.stderr)).toMatch(/Cannot write the emulator state file .*x\.json: its directory does not exist/)
  })

  it('exits 2 when the state file is a directory', async () => {
    const path = join(tmp.path, 'is-a-dir')
    mkdirSync(path)
    const r = await start(['--state', path])
    expect(r.code).toBe(2)
    expect(r.stdout).toBe('')
    expect(oneLineError(r.stderr)).toContain(`${path} is not a valid state: it is a directory`)
  })

  it('exits 2 on a JSON file of the wrong shape and leaves it untouched', async () => {
    const path = join(tmp.path, 'wrong-shape.json')
    const text = JSON.stringify({version: 1, entities: [], api_keys: []})
    writeFileSync(path, text)
    const r = await start(['--state', path])
    expect(r.code).toBe(2)
    expect(r.stdout).toBe('')
    expect(oneLineError(r.stderr)).toContain(`${path} is not a valid state`)
    expect(readFileSync(path, 'utf8')).toBe(text)
  })

  it('warns once when saving starts failing, and exits 1 when stopped', async () => {
    const sub = join(tmp.path, 'vanishing')
    mkdirSync(sub)
    const path = join(sub, 'state.json')
    const emu = await startEmulator(['--state', path])
    emulators.push(emu)
    const stderr = () => emu.cli!.stderr()
    rmSync(sub, {recursive: true})
    await emu.control('POST', '/_emulator/fail-next-settlement', {count: 1})
    await emu.control('POST', '/_emulator/reset', {})
    const end = Date.now() + 5000
    while (!stderr().includes('could not save state') && Date.now() < end) await new Promise((r) => setTimeout(r, 25))
    expect(stderr().trim().split('\n')).toHaveLength(1)
    expect(stderr()).toContain(`could not save state to ${path}`)
    const warning = stderr()
    expect(await emu.stop()).toBe(1)
    expect(oneLineError(stderr().slice(warning.length), 1)).toContain(`Could not save the emulator state to ${path}`)
  })
})

describe('emulator start --write-profile', () => {
  it('refuses to replace an existing (LIVE) profile without --force, before listening', async () => {
    const config = join(tmp.path, 'config')
    mkdirSync(config)
    const liveKey = `live_${randomBytes(16).toString('hex')}`
    knownSecrets.add(liveKey)
    const file = join(config, 'config.json')
    const before = JSON.stringify({active: 'prod', profiles: {prod: {api_key: liveKey, base_url: 'https://api.example.com', created_at: '2024-01-01T00:00:00.000Z'}}})
    writeFileSync(file, before, {mode: 0o600})

    const r = await start(['--write-profile', 'prod'], config)
    expect(r.code).toBe(2)
    expect(r.stdout).toBe('')
    expect(oneLineError(r.stderr)).toMatch(/Profile "prod" already exists; use --force to replace it\./)
    expect(readFileSync(file, 'utf8')).toBe(before)

    const emu = await startEmulator(['--write-profile', 'prod', '--force'], config)
    emulators.push(emu)
    const saved = JSON.parse(readFileSync(file, 'utf8')).profiles.prod
    expect(saved.base_url).toBe(emu.baseUrl)
    expect(saved.api_key === emu.keys.test).toBe(true)
  })

  it('writes a new profile without --force', async () => {
    const config = join(tmp.path, 'config-new')
    const emu = await startEmulator(['--write-profile', 'fresh'], config)
    emulators.push(emu)
    const saved = JSON.parse(readFileSync(join(config, 'config.json'), 'utf8'))
    expect(saved.active).toBe('fresh')
    expect(saved.profiles.fresh.base_url).toBe(emu.baseUrl)
  })
})

describe('control API from a web page', () => {
  it('refuses a cross-site text/plain POST and a foreign Host', async () => {
    const emu = await startEmulator([])
    emulators.push(emu)
    const created = await runAs(emu, 'test', ['subaccounts', 'create', '--name', 'Survives'])
    expect(created.code, created.stderr).toBe(0)
    const entities = await emu.control('GET', '/_emulator/entities')
    const evil = await fetch(`${emu.baseUrl}/_emulator/keys`, {method: 'POST', headers: {'content-type': 'text/plain', origin: 'http://evil.example'}, body: '{"entity":"live"}'})
    expect(evil.status).toBe(403)
    expect(await evil.text()).not.toMatch(/live_/)
    const form = await fetch(`${emu.baseUrl}/_emulator/reset`, {method: 'POST', headers: {'content-type': 'text/plain'}, body: '{}'})
    expect(form.status).toBe(415)
    // A page that rebinds its own name to 127.0.0.1 sends its own Host (fetch cannot set one: node:http does).
    const rebound = await new Promise<{status: number; body: string}>((resolve, reject) => {
      const u = new URL(emu.baseUrl)
      const req = request({host: u.hostname, port: u.port, path: '/_emulator/reset', method: 'POST', headers: {host: 'evil.example', 'content-type': 'application/json'}}, (res) => {
        let body = ''
        res.on('data', (d) => (body += d))
        res.on('end', () => resolve({status: res.statusCode ?? 0, body}))
      })
      req.on('error', reject)
      req.end('{}')
    })
    expect(rebound.status).toBe(403)
    expect(rebound.body).toMatch(/loopback host/)
    // None of them reset anything: the data is as it was.
    expect(await emu.control('GET', '/_emulator/entities')).toEqual(entities)
    expect((await runAs(emu, 'test', ['subaccounts', 'get', created.json().id])).code).toBe(0)
    // The repo's own helper sends JSON from loopback and is served.
    expect(await emu.control('GET', '/_emulator/entities')).toHaveProperty('data')
  })
})
