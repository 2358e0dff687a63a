/**
 * Safety of the emulator: the state file (validated on load, written through an exclusive,
 * randomly named temporary file, writable before listening, failures reported) and the control
 * API (loopback Host, no foreign Origin, JSON writes only).
 */
import {request} from 'node:http'
import {lstat, mkdir, readFile, readdir, rm, symlink, writeFile} from 'node:fs/promises'
import {join} from 'node:path'
import {afterAll, afterEach, beforeAll, describe, expect, it, vi} from 'vitest'
import {startEmulator, type RunningEmulator} from '../src/index.js'
import {StateFile, loadState} from '../src/persist/index.js'
import {createSeededStore} from '../src/store/seed.js'
import {EmulatorError, UsageError} from '../src/lib/errors.js'
import {tempDir} from './support.js'

// Lets one test pin the "random" part of the temporary file name; everything else is untouched.
const pinned = vi.hoisted(() => ({bytes: undefined as Buffer | undefined}))
vi.mock('node:crypto', async (importOriginal) => {
  const orig = await importOriginal<typeof import('node:crypto')>()
  const randomBytes = ((size: number, ...rest: unknown[]) =>
    pinned.bytes && size === pinned.bytes.length && rest.length === 0 ? Buffer.from(pinned.bytes) : (orig.randomBytes as Function)(size, ...rest)) as typeof orig.randomBytes
  return {...orig, default: {...orig, randomBytes}, randomBytes}
})

let dir: string
const running: RunningEmulator[] = []

beforeAll(async () => {
  dir = tempDir('payops-emu-safety-').path
})
afterEach(() => {
  pinned.bytes = undefined
})
afterAll(async () => {
  await Promise.all(running.map((em) => em.close().catch(() => undefined)))
  await rm(dir, {recursive: true, force: true})
})

async function start(opts: Parameters<typeof startEmulator>[0] = {}): Promise<RunningEmulator> {
  const em = await startEmulator({port: 0, log: () => undefined, ...opts})
  running.push(em)
  return em
}

async function until(check: () => boolean | Promise<boolean>, ms = 5000): Promise<void> {
  const end = Date.now() + ms
  while (!(await check())) {
    if (Date.now() > end) throw new Error('condition not met in time')
    await new Promise((r) => setTimeout(r, 20))
  }
}

/** Expects `p` to reject with a one-line usage error (exit 2) naming `path`. */
async function expectUsage(p: Promise<unknown>, path: string, pattern?: RegExp): Promise<UsageError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  )
  expect(err).toBeInstanceOf(UsageError)
  const e = err as UsageError
  expect(e.exitCode).toBe(2)
  expect(e.message).toContain(path)
  expect(e.message).not.toContain('\n')
  if (pattern) expect(e.message).toMatch(pattern)
  return e
}

interface Raw {
  status: number
  /** The parsed JSON body (undefined when empty). */
  body: unknown
}

/** The `error_code` of a parsed error body (undefined for anything else). */
const errorCode = (body: unknown): unknown => (typeof body === 'object' && body !== null && 'error_code' in body ? body.error_code : undefined)

/** A request with exactly these headers (Host included), over a fresh connection. */
function raw(em: RunningEmulator, method: string, path: string, headers: Record<string, string>, body?: string): Promise<Raw> {
  const url = new URL(em.baseUrl)
  return new Promise((resolve, reject) => {
    const req = request({host: url.hostname, port: url.port, method, path, headers, agent: false, setHost: false}, (res) => {
      let text = ''
      res.setEncoding('utf8')
      res.on('data', (d) => (text += d))
      res.on('end', () => resolve({status: res.statusCode ?? 0, body: text ? JSON.parse(text) : undefined}))
    })
    req.on('error', reject)
    req.end(body)
  })
}

describe('state file: loading', () => {
  const wrongShapes: Array<[string, string]> = [
    ['an array', '[]'],
    ['an empty object', '{}'],
    ['no entities', JSON.stringify({version: 1, entities: [], api_keys: []})],
    ['api_keys not an array', JSON.stringify({version: 1, entities: [], api_keys: 'x', primary_keys: {}})],
  ]
  for (const [what, text] of wrongShapes) {
    it(`refuses ${what} with a one-line usage error and leaves the file alone`, async () => {
      const path = join(dir, `shape-${what.replace(/\W+/g, '-')}.json`)
      await writeFile(path, text)
      await expectUsage(loadState(path), path, /not a valid state/)
      await expectUsage(startEmulator({port: 0, statePath: path, log: () => undefined}), path)
      expect(await readFile(path, 'utf8')).toBe(text)
    })
  }

  it('refuses an entity whose tables are not lists of records', async () => {
    const good = JSON.parse(JSON.stringify(createSeededStore()))
    const path = join(dir, 'bad-table.json')
    good.entities[0].subaccounts = 'abc'
    const text = JSON.stringify(good)
    await writeFile(path, text)
    await expectUsage(loadState(path), path, /entities\.0\.subaccounts/)
    good.entities[0].subaccounts = [{nope: true}]
    await writeFile(path, JSON.stringify(good))
    await expectUsage(loadState(path), path, /entities\.0\.subaccounts/)
  })

  it('refuses a directory given as the state file', async () => {
    const path = join(dir, 'a-directory')
    await mkdir(path)
    await expectUsage(loadState(path), path, /is a directory/)
    await expectUsage(startEmulator({port: 0, statePath: path, log: () => undefined}), path, /is a directory/)
    expect((await lstat(path)).isDirectory()).toBe(true)
  })

  it('still loads a state it saved itself', async () => {
    const path = join(dir, 'round-trip.json')
    const store = createSeededStore()
    await new StateFile(path, store, () => undefined).save()
    expect((await loadState(path))?.keys()).toEqual(store.keys())
  })
})

describe('state file: writing', () => {
  it('refuses a state file in a missing directory before listening', async () => {
    const path = join(dir, 'missing', 'deeper', 'state.json')
    await expectUsage(startEmulator({port: 0, statePath: path, log: () => undefined}), path, /directory does not exist/)
    await expect(lstat(join(dir, 'missing'))).rejects.toThrow(/ENOENT/)
  })

  it('never follows a symlink planted under a temporary file name', async () => {
    const sub = join(dir, 'planted')
    await mkdir(sub)
    const path = join(sub, 'state.json')
    const victim = join(sub, 'victim.txt')
    await writeFile(victim, 'do not overwrite')
    // The names the writer used to pick: `${path}.${pid}.${n}.tmp`.
    for (let n = 1; n <= 300; n++) await symlink(victim, `${path}.${process.pid}.${n}.tmp`)
    const em = await start({statePath: path})
    const reset = await raw(em, 'POST', '/_emulator/reset', {host: new URL(em.baseUrl).host, 'content-type': 'application/json'}, '{}')
    expect(reset.status).toBe(200)
    await em.close()
    expect(await readFile(victim, 'utf8')).toBe('do not overwrite')
    expect((await lstat(path)).mode & 0o777).toBe(0o600)
    // No temporary file is left behind.
    expect((await readdir(sub)).filter((f) => f.startsWith('.'))).toEqual([])
  })

  it('opens the temporary file exclusively: an existing name fails the save instead of being followed', async () => {
    const sub = join(dir, 'exclusive')
    await mkdir(sub)
    const path = join(sub, 'state.json')
    const victim = join(sub, 'victim.txt')
    await writeFile(victim, 'untouched')
    pinned.bytes = Buffer.alloc(12, 0xab)
    await symlink(victim, join(sub, `.state.json.${'ab'.repeat(12)}.tmp`))
    const file = new StateFile(path, createSeededStore(), () => undefined)
    await expect(file.save()).rejects.toThrow(/EEXIST/)
    expect(await readFile(victim, 'utf8')).toBe('untouched')
    await expect(lstat(path)).rejects.toThrow(/ENOENT/)
  })

  it('reports a failing save once and makes close() fail', async () => {
    const sub = join(dir, 'vanishing')
    await mkdir(sub)
    const path = join(sub, 'state.json')
    const logged: string[] = []
    const em = await start({statePath: path, log: (l) => logged.push(l)})
    await rm(sub, {recursive: true})
    const host = new URL(em.baseUrl).host
    const post = () => raw(em, 'POST', '/api/subaccounts', {host, 'content-type': 'application/json', 'x-api-key': em.keys.test}, '{"name":"Lost"}')
    expect((await post()).status).toBe(201)
    await until(() => logged.length > 0)
    expect((await post()).status).toBe(201)
    await new Promise((r) => setTimeout(r, 400))
    expect(logged).toHaveLength(1)
    expect(logged[0]).toContain(path)
    expect(logged[0]).toMatch(/could not save state/)
    expect(logged[0]).not.toContain('\n')
    const err = await em.close().then(
      () => undefined,
      (e: unknown) => e,
    )
    expect(err).toBeInstanceOf(EmulatorError)
    expect((err as EmulatorError).exitCode).toBe(1)
    expect((err as Error).message).toContain(path)
  })
})

describe('control API: loopback and JSON only', () => {
  let em: RunningEmulator
  let host: string
  const json = {'content-type': 'application/json'}

  beforeAll(async () => {
    em = await start()
    host = new URL(em.baseUrl).host
  })

  it('refuses a cross-site text/plain POST (no key is minted, no fault armed)', async () => {
    const keysBefore = em.store.apiKeys.size
    const evil = {host, origin: 'http://evil.example', 'content-type': 'text/plain'}
    expect((await raw(em, 'POST', '/_emulator/fail-next-settlement', evil, '{"count": 5}')).status).toBe(403)
    expect((await raw(em, 'POST', '/_emulator/keys', evil, '{"entity": "live"}')).status).toBe(403)
    expect(em.store.apiKeys.size).toBe(keysBefore)
  })

  it('answers 415 to a control write that is not application/json', async () => {
    const keysBefore = em.store.apiKeys.size
    for (const ct of [undefined, 'text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/jsonp']) {
      const headers: Record<string, string> = {host}
      if (ct) headers['content-type'] = ct
      const res = await raw(em, 'POST', '/_emulator/keys', headers, '{"entity": "live"}')
      expect(res.status, ct).toBe(415)
      expect(errorCode(res.body)).toBe('UNSUPPORTED_MEDIA_TYPE')
    }
    expect((await raw(em, 'POST', '/_emulator/reset', {host})).status).toBe(415)
    expect((await raw(em, 'DELETE', '/_emulator/faults', {host})).status).toBe(415)
    expect(em.store.apiKeys.size).toBe(keysBefore)
    expect((await raw(em, 'POST', '/_emulator/fail-next-settlement', {host, 'content-type': 'Application/JSON; charset=utf-8'}, '{"count": 0}')).status).toBe(200)
    expect((await raw(em, 'DELETE', '/_emulator/faults', {host, ...json})).status).toBe(200)
  })

  it('answers 403 unless the Host header is loopback (DNS rebinding)', async () => {
    const port = new URL(em.baseUrl).port
    for (const bad of ['evil.example', `evil.example:${port}`, `127.0.0.1.evil.example:${port}`, `localhost.evil.example`, '10.0.0.1', `[::2]:${port}`, `127.0.0.1:${port}@evil`, '']) {
      expect((await raw(em, 'GET', '/_emulator/entities', {host: bad})).status, bad).toBe(403)
      expect((await raw(em, 'POST', '/_emulator/reset', {host: bad, ...json}, '{}')).status, bad).toBe(403)
    }
    for (const good of ['127.0.0.1', `127.0.0.1:${port}`, 'localhost', `LOCALHOST:${port}`, '[::1]', `[::1]:${port}`]) {
      expect((await raw(em, 'GET', '/_emulator/entities', {host: good})).status, good).toBe(200)
    }
  })

  it('answers 403 to a non-loopback Origin, and serves loopback origins', async () => {
    for (const bad of ['http://evil.example', 'null', 'https://127.0.0.1.evil.example', 'file://', 'chrome-extension://abc']) {
      expect((await raw(em, 'GET', '/_emulator/entities', {host, origin: bad})).status, bad).toBe(403)
      expect((await raw(em, 'POST', '/_emulator/fail-next-settlement', {host, origin: bad, ...json}, '{"count": 0}')).status, bad).toBe(403)
    }
    for (const good of ['http://127.0.0.1:3000', 'http://localhost', 'https://[::1]:8443']) {
      expect((await raw(em, 'POST', '/_emulator/fail-next-settlement', {host, origin: good, ...json}, '{"count": 0}')).status, good).toBe(200)
    }
  })

  it('the guard decides on the route the router takes: other request-target spellings are refused, nothing changes', async () => {
    const keysBefore = em.store.apiKeys.size
    const evil = {host: 'evil.example', origin: 'http://evil.example', 'content-type': 'text/plain'}
    for (const target of ['*/_emulator/keys', 'x/_emulator/keys', '_emulator/keys', 'http://evil.example/_emulator/keys', '//_emulator/keys']) {
      const res = await raw(em, 'POST', target, evil, '{"entity": "live"}')
      expect([400, 403, 404], target).toContain(res.status)
    }
    expect(em.store.apiKeys.size).toBe(keysBefore)
    // A route with a parameter: a created move must not become failed.
    const api = (path: string, body: unknown) =>
      fetch(em.baseUrl + path, {method: 'POST', headers: {'x-api-key': em.keys.test, 'content-type': 'application/json'}, body: JSON.stringify(body)}).then((r) => r.json() as Promise<{data: {id: string; status: string}}>)
    const a = (await api('/api/subaccounts', {name: 'Guard A'})).data.id
    const b = (await api('/api/subaccounts', {name: 'Guard B'})).data.id
    const move = (await api('/api/subaccounts/move', {from_subaccount_id: a, to_subaccount_id: b, amount_in_minor_units: 100, auto_approve: false})).data
    expect(move.status).toBe('created')
    for (const target of [`*/_emulator/moves/${move.id}/fail`, `x/_emulator/moves/${move.id}/fail`, `http://evil.example/_emulator/moves/${move.id}/fail`]) {
      const res = await raw(em, 'POST', target, evil, '{}')
      expect([400, 403, 404], target).toContain(res.status)
    }
    const after = await fetch(`${em.baseUrl}/api/subaccounts/${b}`, {headers: {'x-api-key': em.keys.test}}).then((r) => r.json() as Promise<{data: {total_incoming_in_minor_units: number}}>)
    expect(after.data.total_incoming_in_minor_units).toBe(0)
    const approved = await api(`/api/subaccounts/move/${move.id}/approve`, {})
    expect(approved.data.status.toLowerCase()).toBe('settled')
    // The same target, spelled as the router routes it, still needs the loopback Host and JSON.
    expect((await raw(em, 'POST', '/_emulator/keys/', evil, '{"entity": "live"}')).status).toBe(403)
    expect(em.store.apiKeys.size).toBe(keysBefore)
  })

  it('leaves /api/ alone', async () => {
    const res = await raw(em, 'GET', '/api/treasury/accounts', {host: 'api.example.com', 'x-api-key': em.keys.test})
    expect(res.status).toBe(200)
  })
})
