/**
 * `payops api` judges a request on the URL that is sent: the base URL's path joined with PATH. A
 * base URL that ends in `/api/subaccounts` plus PATH `/move` is a move, held to the limit, the
 * typed LIVE confirmation and the audit amount as `moves create` is; spellings a lenient server
 * reads as a money endpoint, and base URLs that would swallow PATH (a query, a fragment), are
 * refused before anything is sent.
 */
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {readAudit} from '../../src/audit/index.js'
import {expectNothingSent, expectOnlyRequests, run, startEmulator, tempDir, type Emulator, type RunOptions} from '../support/index.js'

let emu: Emulator
const dir = tempDir()
let a: string
let b: string

/** Profile `prod` (the LIVE key, max-amount 100.00 USD), with PAYOPS_BASE_URL set to `base`. */
const prod = (base: string, args: string[], opts: RunOptions = {}) => run([...args, '-p', 'prod'], {configDir: dir.path, ...opts, env: {PAYOPS_BASE_URL: base, ...opts.env}})
const moveFields = (minor: number) => ['-f', `from_subaccount_id=${a}`, '-f', `to_subaccount_id=${b}`, '-F', `amount_in_minor_units=${minor}`]
const incoming = async () => (await run(['subaccounts', 'get', b, '-p', 'prod'], {configDir: dir.path})).json().total_incoming_in_minor_units as number
const lookups = (root = '') => [`GET ${root}/api/subaccounts/${a}`, `GET ${root}/api/subaccounts/${b}`]

beforeAll(async () => {
  emu = await startEmulator()
  await run(['profiles', 'add', 'prod', '--base-url', emu.baseUrl, '--key-stdin'], {configDir: dir.path, input: emu.keys.live})
  a = (await run(['subaccounts', 'create', '--name', 'Base A', '-p', 'prod', '--yes'], {configDir: dir.path})).json().id
  b = (await run(['subaccounts', 'create', '--name', 'Base B', '-p', 'prod', '--yes'], {configDir: dir.path})).json().id
  expect((await run(['profiles', 'set', 'prod', 'max-amount', '100.00', 'USD'], {configDir: dir.path})).code).toBe(0)
})
afterAll(async () => {
  await emu?.stop()
  dir.cleanup()
})

describe('api: a money request is judged on the base URL path joined with PATH', () => {
  it('base URL …/api/subaccounts + POST /move over the limit: refused (exit 3) after the lookups, nothing moved', async () => {
    const before = await incoming()
    const r = await expectOnlyRequests(emu, lookups(), () => prod(`${emu.baseUrl}/api/subaccounts`, ['api', 'POST', '/move', ...moveFields(1_000_000), '--yes']), dir.path)
    expect(r.code, r.stderr).toBe(3)
    expect(r.stderr).toMatch(/10,000\.00 USD is over the max-amount 100\.00 USD of profile "prod"/)
    expect(await incoming()).toBe(before)
  })

  it('within the limit on a terminal: the typed confirmation, then the move at /api/subaccounts/move, its amount in the audit trail', async () => {
    const before = await incoming()
    const declined = await expectOnlyRequests(emu, lookups(), () => prod(`${emu.baseUrl}/api/subaccounts`, ['api', 'POST', '/move', ...moveFields(5000)], {tty: true, answers: ['y']}), dir.path)
    expect(declined.code, declined.stderr).toBe(3)
    expect(declined.asked).toEqual(['Type 50.00 to confirm this LIVE movement:'])

    const r = await prod(`${emu.baseUrl}/api/subaccounts/`, ['api', 'POST', '/move', ...moveFields(5000), '-o', 'json'], {tty: true, answers: ['50.00']})
    expect(r.code, r.stderr).toBe(0)
    expect(r.asked).toEqual(['Type 50.00 to confirm this LIVE movement:'])
    expect(await incoming()).toBe(before + 5000)
    const log = await emu.requestLog()
    expect(log.recent.filter((q) => q.method === 'POST').at(-1)?.path).toBe('/api/subaccounts/move')
    const records = readAudit(dir.path).filter((x) => x.method === 'POST' && x.path === '/api/subaccounts/move')
    expect(records.at(-1)).toMatchObject({amount_in_minor_units: 5000, currency_code: 'USD', from: a, to: b})
  })

  it('behind a gateway prefix (…/gw/api/subaccounts + /move) it is still a move: the pipeline reads its subaccounts there, no raw POST is sent', async () => {
    const r = await prod(`${emu.baseUrl}/gw/api/subaccounts`, ['api', 'POST', '/move', ...moveFields(1_000_000), '--yes'])
    // The emulator serves no /gw prefix: the pipeline's first lookup is refused there, and nothing else is tried.
    expect(r.code, r.stderr).toBe(4)
    expect(r.stderr).toContain(`no route for GET /gw/api/subaccounts/${a}`)
    expect(r.stderr).not.toMatch(/POST/)
  })

  it('the base URL is read as the server reads it: case and dot segments are the same move; a double slash is refused', async () => {
    for (const base of [`${emu.baseUrl}/API/Subaccounts`, `${emu.baseUrl}/api/x/../subaccounts`, `${emu.baseUrl}/api/%2e/subaccounts`]) {
      const r = await expectOnlyRequests(emu, lookups(), () => prod(base, ['api', 'POST', '/move', ...moveFields(1_000_000), '--yes']), dir.path)
      expect(r.code, `${base}: ${r.stderr}`).toBe(3)
    }
    const doubled = await expectNothingSent(emu, () => prod(`${emu.baseUrl}//api/subaccounts`, ['api', 'POST', '/move', ...moveFields(5000), '--yes']), dir.path)
    expect(doubled.code, doubled.stderr).toBe(2)
    // A method override would have a server act on a method payops did not judge.
    const override = await expectNothingSent(emu, () => prod(emu.baseUrl, ['api', 'GET', '/api/subaccounts/move', '-H', 'X-HTTP-Method-Override: POST']), dir.path)
    expect(override.code, override.stderr).toBe(2)
  })

  it('a trailing dot, in PATH or at the end of the base URL, is refused (exit 2) before anything is sent', async () => {
    for (const [base, path] of [
      [emu.baseUrl, '/api/subaccounts/move.'],
      [emu.baseUrl, '/api/subaccounts./move'],
      [`${emu.baseUrl}/api/subaccounts/move.`, '/'],
      [`${emu.baseUrl}/api/subaccounts.`, '/move'],
    ]) {
      const r = await expectNothingSent(emu, () => prod(base, ['api', 'POST', path, ...moveFields(5000), '--yes']), dir.path)
      expect(r.code, `${base} ${path}: ${r.stderr}`).toBe(2)
    }
  })

  it('a base URL with a query or fragment, which would swallow PATH, is refused (exit 2) for every command', async () => {
    for (const base of [`${emu.baseUrl}/api/subaccounts/move?`, `${emu.baseUrl}/api/subaccounts/move?x=1`, `${emu.baseUrl}/api/subaccounts/move#`]) {
      const raw = await expectNothingSent(emu, () => prod(base, ['api', 'POST', '/x', ...moveFields(5000), '--yes']), dir.path)
      expect(raw.code, `${base}: ${raw.stderr}`).toBe(2)
      expect(raw.stderr).toMatch(/has a query or fragment/)
      const listed = await expectNothingSent(emu, () => prod(base, ['subaccounts', 'get', a]))
      expect(listed.code).toBe(2)
    }
    const set = await run(['profiles', 'set', 'prod', 'base-url', `${emu.baseUrl}/api/subaccounts/move?`], {configDir: dir.path})
    expect(set.code).toBe(2)
  })

  it('a base URL path with a non-canonical segment is refused on a money request; GETs and other calls are unchanged', async () => {
    const odd = await expectNothingSent(emu, () => prod(`${emu.baseUrl}/api/sub%61ccounts`, ['api', 'POST', '/move', ...moveFields(5000), '--yes']), dir.path)
    expect(odd.code, odd.stderr).toBe(2)
    const get = await prod(`${emu.baseUrl}/api/subaccounts`, ['api', 'GET', `/${a}`])
    expect(get.code, get.stderr).toBe(0)
    expect(get.json().data.id).toBe(a)
    // A call that moves no money is sent as it was, and recorded with the path that was sent.
    const made = await prod(`${emu.baseUrl}/api`, ['api', 'POST', '/subaccounts', '-f', 'name=Via base path', '--yes'])
    expect(made.code, made.stderr).toBe(0)
    expect(readAudit(dir.path).at(-1)).toMatchObject({method: 'POST', path: '/api/subaccounts', resource_id: made.json().data.id})
  })
})
