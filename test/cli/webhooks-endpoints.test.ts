import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {defaultConfigDir, expectNothingSent, knownSecrets, run, runAs, startEmulator, tempDir, type Emulator, expectOnlyRequests} from '../support/index.js'

let emu: Emulator
/** Refuses connections at once: endpoints that must never reach the network. */
const NOWHERE = 'https://127.0.0.1:1'
/** Runs `fn` and asserts the emulator received nothing and the audit trail (the default one, or `configDir`'s) did not grow. */
const nothingSent = <T>(fn: () => Promise<T>, configDir = defaultConfigDir()) => expectNothingSent(emu, fn, configDir)
/** A refusal after the lookups it makes first: nothing that changes anything was sent. */
const onlyReads = <T>(reads: string[], fn: () => Promise<T>, configDir = defaultConfigDir()) => expectOnlyRequests(emu, reads, fn, configDir)

beforeAll(async () => {
  emu = await startEmulator()
})
afterAll(async () => {
  await emu?.stop()
})

/** Creates an endpoint; `args` may override --url and --event-types. */
async function createHook(args: string[] = [], key = 'test'): Promise<Record<string, any>> {
  const defaults = [...(args.includes('--url') ? [] : ['--url', `${NOWHERE}/hooks`]), ...(args.includes('--event-types') ? [] : ['--event-types', 'payin.settled'])]
  const r = await runAs(emu, key, ['webhooks', 'create', ...defaults, '-o', 'json', ...args], {allowSecrets: true})
  expect(r.code, r.stderr).toBe(0)
  const hook = r.json()
  knownSecrets.add(hook.secret)
  return hook
}

describe('webhooks create', () => {
  it('prints the secret once on stdout with a note on stderr; later outputs never show it', async () => {
    const r = await runAs(emu, 'test', ['webhooks', 'create', '--url', `${NOWHERE}/a`, '--event-types', 'payin.settled,payin.failed,payin.settled', '--description', 'Ops hooks', '-o', 'json'], {allowSecrets: true})
    expect(r.code, r.stderr).toBe(0)
    const hook = r.json()
    knownSecrets.add(hook.secret)
    expect(hook.secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/)
    expect(hook).toMatchObject({url: `${NOWHERE}/a`, description: 'Ops hooks', is_active: true, event_types: ['payin.failed', 'payin.settled']})
    expect(r.stderr).toMatch(/store it now; it is not shown again/)
    expect(r.stderr).not.toContain(hook.secret)
    expect(r.stdout.split(hook.secret)).toHaveLength(2)
    // run() fails any of these if the secret shows up anywhere.
    const get = await runAs(emu, 'test', ['webhooks', 'get', hook.id])
    expect(get.code).toBe(0)
    expect(get.json().secret).toBeUndefined()
    expect((await runAs(emu, 'test', ['webhooks', 'list', '--all', '-o', 'ndjson'])).code).toBe(0)
    expect((await runAs(emu, 'test', ['webhooks', 'update', hook.id, '--description', 'changed'])).code).toBe(0)
    expect((await runAs(emu, 'test', ['webhooks', 'get', hook.id, '-o', 'table', '--debug'])).code).toBe(0)
  })

  it('renders the secret in the table of the create output', async () => {
    const r = await runAs(emu, 'test', ['webhooks', 'create', '--url', 'http://127.0.0.1:9/local', '--event-types', 'subaccount.credit_received', '-o', 'table'], {allowSecrets: true})
    expect(r.code).toBe(0)
    const secret = /SECRET\s+(whsec_\S+)/.exec(r.stdout)![1]
    knownSecrets.add(secret)
    expect(r.stdout).toMatch(/URL\s+http:\/\/127\.0\.0\.1:9\/local/)
  })

  it('usage errors before sending (exit 2): plain http to a public host, unknown type, empty list, missing flags', async () => {
    const cases = [
      ['--url', 'http://example.com/hooks', '--event-types', 'payin.settled'],
      ['--url', `${NOWHERE}/x`, '--event-types', 'payin.refunded'],
      ['--url', `${NOWHERE}/x`, '--event-types', 'payin.settled,'],
      ['--url', 'not a url', '--event-types', 'payin.settled'],
      ['--event-types', 'payin.settled'],
      ['--url', `${NOWHERE}/x`],
    ]
    for (const args of cases) {
      const r = await nothingSent(() => runAs(emu, 'test', ['webhooks', 'create', ...args]))
      expect(r.code, args.join(' ')).toBe(2)
      expect(r.stdout).toBe('')
    }
    const r = await nothingSent(() => runAs(emu, 'test', ['webhooks', 'create', '--url', 'http://example.com/', '--event-types', 'payin.settled']))
    expect(r.stderr).toMatch(/https/)
  })

  it('the API itself rejects an invalid body with 400 (exit 8)', async () => {
    const r = await runAs(emu, 'test', ['api', 'POST', '/api/webhooks', '-f', 'url=http://example.com/', '-F', 'event_types=["payin.settled"]'])
    expect(r.code).toBe(8)
    expect(r.stderr).toMatch(/400 VALIDATION_ERROR/)
  })

  it('no key is exit 3; a LIVE key without a terminal is refused unless --yes', async () => {
    expect((await nothingSent(() => run(['webhooks', 'create', '--url', `${NOWHERE}/x`, '--event-types', 'payin.settled'], {env: {PAYOPS_BASE_URL: emu.baseUrl}}))).code).toBe(3)
    const refused = await nothingSent(() => runAs(emu, 'live', ['webhooks', 'create', '--url', `${NOWHERE}/live`, '--event-types', 'payout.failed']))
    expect(refused.code).toBe(3)
    expect(refused.stderr).toMatch(/LIVE/)
    const ok = await createHook(['--yes', '--url', `${NOWHERE}/live`], 'live')
    expect(ok.url).toBe(`${NOWHERE}/live`)
  })
})

describe('webhooks list/get', () => {
  let ids: string[] = []
  beforeAll(async () => {
    const r = await runAs(emu, 'test_other', ['webhooks', 'list', '--all', '-o', 'ndjson'])
    expect(r.stdout).toBe('')
    ids = []
    for (let i = 0; i < 5; i++) ids.push((await createHook(['--description', `page ${i}`], 'test_other')).id)
  })

  it('pages with --limit and --cursor; --all and --max-items stream', async () => {
    const first = await runAs(emu, 'test_other', ['webhooks', 'list', '--limit', '2', '--order', 'asc', '-o', 'table'])
    expect(first.code).toBe(0)
    expect(first.stdout).toMatch(/EVENT TYPES/)
    const cursor = /--cursor (\S+)/.exec(first.stderr)![1]
    const second = await runAs(emu, 'test_other', ['webhooks', 'list', '--limit', '2', '--order', 'asc', '--cursor', cursor])
    expect(second.json().map((w: any) => w.id)).toEqual(ids.slice(2, 4))
    const all = await runAs(emu, 'test_other', ['webhooks', 'list', '--limit', '2', '--all', '-o', 'ndjson'])
    const lines = all.stdout.trim().split('\n').map((l) => JSON.parse(l))
    expect(lines.map((w) => w.id)).toEqual([...ids].reverse())
    expect(lines.every((w) => w.secret === undefined)).toBe(true)
    const capped = await runAs(emu, 'test_other', ['webhooks', 'list', '--limit', '2', '--max-items', '3', '-o', 'ndjson'])
    expect(capped.stdout.trim().split('\n')).toHaveLength(3)
    expect((await runAs(emu, 'test_other', ['webhooks', 'list', '--cursor', 'garbage'])).code).toBe(8)
    expect((await runAs(emu, 'test_other', ['webhooks', 'list', '--limit', '0'])).code).toBe(2)
  })

  it('csv has a header and the endpoint columns', async () => {
    const r = await runAs(emu, 'test_other', ['webhooks', 'list', '-o', 'csv', '--limit', '1'])
    const [header, row] = r.stdout.trim().split('\r\n')
    expect(header).toBe('id,url,is_active,event_types,description,created_at')
    expect(row).toContain(`${ids[4]},${NOWHERE}/hooks,true,payin.settled,page 4,`)
  })

  it('get: another entity\'s id and an unknown id are exit 4', async () => {
    expect((await runAs(emu, 'test_other', ['webhooks', 'get', ids[0]])).json().description).toBe('page 0')
    const r = await runAs(emu, 'test', ['webhooks', 'get', ids[0], '-o', 'json'])
    expect(r.code).toBe(4)
    expect(r.stderr).toMatch(/404 NOT_FOUND/)
    expect((await runAs(emu, 'test', ['webhooks', 'get', 'nope'])).code).toBe(4)
  })
})

describe('webhooks update/enable/disable/delete/event-types', () => {
  it('update changes only the given fields; --event-types replaces the allowlist, sorted', async () => {
    const hook = await createHook(['--description', 'before', '--event-types', 'payin.settled,payin.failed'])
    const r = await runAs(emu, 'test', ['webhooks', 'update', hook.id, '--event-types', 'subaccount.credit_received,payout.debited'])
    expect(r.code, r.stderr).toBe(0)
    expect(r.json()).toMatchObject({url: hook.url, description: 'before', event_types: ['payout.debited', 'subaccount.credit_received']})
    const r2 = await runAs(emu, 'test', ['webhooks', 'update', hook.id, '--url', `${NOWHERE}/moved`, '--description', ''])
    expect(r2.json()).toMatchObject({url: `${NOWHERE}/moved`, description: null, event_types: ['payout.debited', 'subaccount.credit_received']})
  })

  it('update errors: nothing given or bad values (2), unknown id (4), LIVE without --yes (3)', async () => {
    const hook = await createHook()
    const none = await nothingSent(() => runAs(emu, 'test', ['webhooks', 'update', hook.id]))
    expect(none.code).toBe(2)
    expect(none.stderr).toMatch(/Nothing to update/)
    expect((await nothingSent(() => runAs(emu, 'test', ['webhooks', 'update', hook.id, '--url', 'http://example.com/']))).code).toBe(2)
    expect((await nothingSent(() => runAs(emu, 'test', ['webhooks', 'update', hook.id, '--event-types', 'nope']))).code).toBe(2)
    expect((await runAs(emu, 'test', ['webhooks', 'update', '00000000-0000-4000-8000-000000000000', '--description', 'x'])).code).toBe(4)
    expect((await runAs(emu, 'test_other', ['webhooks', 'update', hook.id, '--description', 'x'])).code).toBe(4)
    const live = await createHook(['--yes'], 'live')
    expect((await nothingSent(() => runAs(emu, 'live', ['webhooks', 'update', live.id, '--description', 'x']))).code).toBe(3)
    expect((await runAs(emu, 'live', ['webhooks', 'get', live.id])).json().description).not.toBe('x')
  })

  it('disable and enable toggle is_active; unknown ids are exit 4', async () => {
    const hook = await createHook()
    const off = await runAs(emu, 'test', ['webhooks', 'disable', hook.id])
    expect(off.code).toBe(0)
    expect(off.json().is_active).toBe(false)
    expect((await runAs(emu, 'test', ['webhooks', 'get', hook.id])).json().is_active).toBe(false)
    const on = await runAs(emu, 'test', ['webhooks', 'enable', hook.id, '-o', 'table'])
    expect(on.stdout).toMatch(/ACTIVE\s+true/)
    expect((await runAs(emu, 'test', ['webhooks', 'enable', 'nope'])).code).toBe(4)
    expect((await runAs(emu, 'test_other', ['webhooks', 'disable', hook.id])).code).toBe(4)
  })

  it('delete removes it (then 4); another entity cannot delete it', async () => {
    const hook = await createHook()
    expect((await runAs(emu, 'test_other', ['webhooks', 'delete', hook.id])).code).toBe(4)
    const r = await runAs(emu, 'test', ['webhooks', 'delete', hook.id])
    expect(r.code).toBe(0)
    expect(r.json().id).toBe(hook.id)
    expect(r.stderr).toMatch(/Deleted/)
    expect((await runAs(emu, 'test', ['webhooks', 'get', hook.id])).code).toBe(4)
    expect((await runAs(emu, 'test', ['webhooks', 'delete', hook.id])).code).toBe(4)
    const live = await createHook(['--yes'], 'live')
    expect((await nothingSent(() => runAs(emu, 'live', ['webhooks', 'delete', live.id]))).code).toBe(3)
    expect((await runAs(emu, 'live', ['webhooks', 'get', live.id])).code).toBe(0)
  })

  it('event-types lists the catalog', async () => {
    const r = await runAs(emu, 'test', ['webhooks', 'event-types'])
    expect(r.code).toBe(0)
    expect(r.json().map((e: any) => e.type)).toEqual(['payout.debited', 'payout.settled', 'payout.failed', 'payin.settled', 'payin.failed', 'subaccount.credit_received'])
    const csv = await runAs(emu, 'test', ['webhooks', 'event-types', '-o', 'csv'])
    expect(csv.stdout.split('\r\n')[0]).toBe('type,description')
    expect((await runAs(emu, 'test_0000000000000000000000000000dead', ['webhooks', 'event-types'])).code).toBe(3)
  })
})

describe('webhooks rotate-secret (management side)', () => {
  it('unknown id is exit 4; LIVE without a terminal is refused before anything is created', async () => {
    const cfg = tempDir()
    expect((await runAs(emu, 'test', ['webhooks', 'rotate-secret', '00000000-0000-4000-8000-000000000000'], {configDir: cfg.path})).code).toBe(4)
    const live = await createHook(['--yes'], 'live')
    const before = (await runAs(emu, 'live', ['webhooks', 'list', '--all', '-o', 'ndjson'])).stdout.trim().split('\n').length
    // It reads the endpoint it would copy, then refuses: nothing is created or deleted.
    const r = await onlyReads([`GET /api/webhooks/${live.id}`], () => runAs(emu, 'live', ['webhooks', 'rotate-secret', live.id], {configDir: cfg.path}), cfg.path)
    expect(r.code).toBe(3)
    expect((await runAs(emu, 'live', ['webhooks', 'list', '--all', '-o', 'ndjson'])).stdout.trim().split('\n')).toHaveLength(before)
    cfg.cleanup()
  })

  it('copies URL, description, event types and a disabled state; --replace-twin makes a fresh twin', async () => {
    const cfg = tempDir()
    const hook = await createHook(['--description', 'twin me', '--event-types', 'payout.failed,payin.failed'])
    await runAs(emu, 'test', ['webhooks', 'disable', hook.id])
    const first = await runAs(emu, 'test', ['webhooks', 'rotate-secret', hook.id, '-o', 'json'], {configDir: cfg.path, allowSecrets: true})
    expect(first.code, first.stderr).toBe(0)
    const out = first.json()
    knownSecrets.add(out.secret)
    expect(out).toMatchObject({old_id: hook.id, old_deleted: false})
    const twin = (await runAs(emu, 'test', ['webhooks', 'get', out.new_id])).json()
    expect(twin).toMatchObject({url: hook.url, description: 'twin me', event_types: ['payin.failed', 'payout.failed'], is_active: false})

    const replaced = await runAs(emu, 'test', ['webhooks', 'rotate-secret', hook.id, '--replace-twin', '-o', 'json'], {configDir: cfg.path, allowSecrets: true})
    expect(replaced.code, replaced.stderr).toBe(0)
    const out2 = replaced.json()
    knownSecrets.add(out2.secret)
    expect(out2.new_id).not.toBe(out.new_id)
    expect(out2.secret).toMatch(/^whsec_/)
    expect((await runAs(emu, 'test', ['webhooks', 'get', out.new_id])).code).toBe(4)

    const done = await runAs(emu, 'test', ['webhooks', 'rotate-secret', hook.id, '--yes', '-o', 'json'], {configDir: cfg.path})
    expect(done.json()).toMatchObject({old_id: hook.id, new_id: out2.new_id, secret: null, old_deleted: true})
    expect(done.stderr).toMatch(/cannot be shown again/)
    // Once done, the old id is gone; a re-run says so and changes nothing.
    const again = await runAs(emu, 'test', ['webhooks', 'rotate-secret', hook.id, '-o', 'json'], {configDir: cfg.path})
    expect(again.code).toBe(4)
    cfg.cleanup()
  })
})
