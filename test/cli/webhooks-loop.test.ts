/**
 * The webhook loop: the listener keeps every verified event (`webhooks events list/get/resend`),
 * routes event types to handlers (`--forward TYPE=URL`), and registers its own endpoint
 * (`--register`), each end to end against the emulator and loopback receivers.
 */
import {createHmac} from 'node:crypto'
import {existsSync, readFileSync, statSync, writeFileSync} from 'node:fs'
import {createServer, type IncomingMessage, type Server} from 'node:http'
import type {AddressInfo} from 'node:net'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {knownSecrets, listeningUrl, run, runAs, startCli, until, startEmulator, tempDir, type Emulator, type RunningCli} from '../support/index.js'

let emu: Emulator
const SECRET = 'whsec_loopListenerSecretValue0000000000000000001'
const RESIGN = 'whsec_loopResendSecretValue00000000000000000002'
knownSecrets.add(SECRET)
knownSecrets.add(RESIGN)

const servers: Server[] = []
const running: RunningCli[] = []

beforeAll(async () => {
  emu = await startEmulator()
})
afterAll(async () => {
  for (const cli of running) cli.interrupt()
  await Promise.all(running.map((c) => c.done.catch(() => undefined)))
  await Promise.all(servers.map((s) => new Promise((r) => (s.closeAllConnections(), s.close(r)))))
})

const hmac = (secret: string, ts: number | string, body: string | Buffer) => createHmac('sha256', secret).update(`${ts}.`).update(body).digest('hex')
const now = () => Math.floor(Date.now() / 1000)

interface Listener {
  cli: RunningCli
  url: string
  waitForLog(re: RegExp): Promise<void>
  stop(): Promise<{code: number; stdout: string; stderr: string}>
}

/** `payops webhooks listen --port 0 -o ndjson ARGS` in its own config dir, once it listens. */
async function listen(args: string[], opts: {configDir: string; env?: Record<string, string>}): Promise<Listener> {
  const cli = startCli(['webhooks', 'listen', '--port', '0', '-o', 'ndjson', ...args], {configDir: opts.configDir, env: opts.env})
  running.push(cli)
  const url = await listeningUrl(cli)
  return {
    cli,
    url,
    waitForLog: (re) => until(() => re.test(cli.stderr()), () => `${re} in stderr: ${cli.stderr()}`),
    async stop() {
      cli.interrupt()
      const r = await cli.done
      return {code: r.code, stdout: r.stdout, stderr: r.stderr}
    },
  }
}

interface Got {
  headers: IncomingMessage['headers']
  body: Buffer
}

/** A receiver that answers the next status in `statuses` (then 200) and records what it got. */
async function receiver(statuses: number[] = []): Promise<{url: string; got: Got[]}> {
  const got: Got[] = []
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      got.push({headers: req.headers, body: Buffer.concat(chunks)})
      res.writeHead(statuses.shift() ?? 200, {'content-type': 'application/json'}).end('{"ok":true}')
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  servers.push(server)
  return {url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, got}
}

function signed(body: string | Buffer, secret = SECRET, ts: number = now()): Record<string, string> {
  return {'content-type': 'application/json', 'x-webhook-signature': hmac(secret, ts, body), 'x-webhook-timestamp': String(ts)}
}

const post = (url: string, body: string | Buffer, headers: Record<string, string>) => fetch(url, {method: 'POST', headers, body: typeof body === 'string' ? body : new Uint8Array(body)})

const envelope = (id: string, type = 'payin.settled', data: Record<string, unknown> = {payin_id: '5d1c7c5e-8a34-4a8e-9f3b-0d8f1f2c9a10'}) => JSON.stringify({id, type, data})

describe('the event store and webhooks events', () => {
  it('keeps each verified event byte for byte; list, get and resend (re-signed and original), exit 4 and 6', async () => {
    const dir = tempDir()
    const target = await receiver([503])
    const l = await listen(['--secret', SECRET, '--forward-to', target.url], {configDir: dir.path})
    // Spacing, key order and escapes a re-serialisation would change: the store must keep the bytes.
    const raw = Buffer.from('{ "type":"payin.settled",  "id":"evt_store_1", "data":{"payin_id":"5d1c7c5e-8a34-4a8e-9f3b-0d8f1f2c9a10","note":"caf\\u00e9 \u00e9"} }\n')
    const headers: Record<string, string> = {...signed(raw), 'x-extra': 'kept', authorization: 'Bearer not-to-be-kept'}
    expect((await post(l.url, raw, headers)).status).toBe(200)
    const second = envelope('evt_store_2', 'payout.failed', {payout_id: 'a6f1c1d2-1111-4222-8333-944455556666'})
    expect((await post(l.url, second, signed(second))).status).toBe(200)
    // A forged delivery is not kept.
    const forged = envelope('evt_forged')
    expect((await post(l.url, forged, signed(forged, RESIGN))).status).toBe(401)
    await l.waitForLog(/forwarded evt_store_2 .*: 200/)
    await l.waitForLog(/forwarded evt_store_1 .*: 503/)
    expect((await l.stop()).code).toBe(0)
    expect(statSync(join(dir.path, 'webhook-events.sqlite')).mode & 0o777).toBe(0o600)

    const env = {configDir: dir.path}
    const list = await run(['webhooks', 'events', 'list', '-o', 'json'], env)
    expect(list.code, list.stderr).toBe(0)
    const events = list.json() as Array<Record<string, any>>
    expect(events.map((e) => e.id)).toEqual(['evt_store_2', 'evt_store_1'])
    expect(events[1]).toMatchObject({type: 'payin.settled', size: raw.length, secret_index: 0})
    expect(events[1].deliveries).toMatchObject([{kind: 'forward', url: target.url, status: 503, ok: false}])
    expect(events[0].deliveries).toMatchObject([{kind: 'forward', url: target.url, status: 200, ok: true}])
    expect((await run(['webhooks', 'events', 'list', '--type', 'payout.*', '-o', 'json'], env)).json().map((e: {id: string}) => e.id)).toEqual(['evt_store_2'])
    expect((await run(['webhooks', 'events', 'list', '--since', '2999-01-01', '-o', 'json'], env)).json()).toEqual([])
    expect((await run(['webhooks', 'events', 'list', '--since', '1h', '-o', 'json'], env)).json()).toHaveLength(2)
    expect((await run(['webhooks', 'events', 'list', '--since', 'yesterday'], env)).code).toBe(2)

    // get: the raw body, byte for byte.
    const got = await run(['webhooks', 'events', 'get', 'evt_store_1'], env)
    expect(got.code, got.stderr).toBe(0)
    expect(Buffer.from(got.stdout)).toEqual(raw)
    const record = (await run(['webhooks', 'events', 'get', 'evt_store_1', '--record', '-o', 'json'], env)).json()
    const names = (record.headers as Array<[string, string]>).map(([k]) => k.toLowerCase())
    expect(names).toEqual(expect.arrayContaining(['x-webhook-signature', 'x-webhook-timestamp', 'x-extra']))
    expect(names).not.toContain('authorization')
    expect(JSON.stringify(record)).not.toContain('not-to-be-kept')
    const missing = await run(['webhooks', 'events', 'get', 'evt_nope'], env)
    expect(missing.code).toBe(4)
    expect(missing.stderr).toMatch(/No stored event evt_nope/)

    // resend, re-signed now with a secret from the environment, to the URL it was forwarded to.
    const before = target.got.length
    const resent = await run(['webhooks', 'events', 'resend', 'evt_store_1', '-o', 'json'], {...env, env: {PAYOPS_WEBHOOK_SECRET: RESIGN}})
    expect(resent.code, resent.stderr).toBe(0)
    expect(resent.json()).toMatchObject([{id: 'evt_store_1', url: target.url, status: 200, ok: true, signed: 're-signed'}])
    const again = target.got[before]
    expect(again.body).toEqual(raw)
    const ts = again.headers['x-webhook-timestamp'] as string
    expect(Math.abs(Number(ts) - now())).toBeLessThan(60)
    expect(again.headers['x-webhook-signature']).toBe(hmac(RESIGN, ts, raw))

    // resend with the original headers, to another URL.
    const other = await receiver()
    const orig = await run(['webhooks', 'events', 'resend', 'evt_store_1', '--original-headers', '--forward-to', other.url, '-o', 'json'], env)
    expect(orig.code, orig.stderr + orig.stdout).toBe(0)
    expect(other.got).toHaveLength(1)
    expect(other.got[0].body).toEqual(raw)
    expect(other.got[0].headers['x-webhook-signature']).toBe(headers['x-webhook-signature'])
    expect(other.got[0].headers['x-webhook-timestamp']).toBe(headers['x-webhook-timestamp'])
    // Nothing else it arrived with: only its own signature goes to another URL.
    expect(other.got[0].headers['x-extra']).toBeUndefined()
    expect(other.got[0].headers.authorization).toBeUndefined()

    // One of two fails: both printed, exit 6, the results kept with the events.
    const flaky = await receiver([500])
    const partial = await run(['webhooks', 'events', 'resend', 'evt_store_1', 'evt_store_2', '--original-headers', '--forward-to', flaky.url, '-o', 'json'], env)
    expect(partial.code, partial.stderr).toBe(6)
    expect(partial.json()).toMatchObject([
      {id: 'evt_store_1', status: 500, ok: false},
      {id: 'evt_store_2', status: 200, ok: true},
    ])
    expect(partial.stderr).toMatch(/1 of 2 resends failed/)
    const unreachable = await run(['webhooks', 'events', 'resend', 'evt_store_2', '--original-headers', '--forward-to', 'http://127.0.0.1:1/', '-o', 'json'], env)
    // Every resend failed (here, the one): its own code, 7 for an unreached URL, not a partial 6.
    expect(unreachable.code).toBe(7)
    expect(unreachable.json()).toMatchObject([{status: null, ok: false, error: 'ECONNREFUSED'}])
    const kept = (await run(['webhooks', 'events', 'get', 'evt_store_1', '--record', '-o', 'json'], env)).json()
    expect(kept.deliveries.map((d: {kind: string; status: number}) => `${d.kind} ${d.status}`)).toEqual(['forward 503', 'resend 200', 'resend 200', 'resend 500'])

    // Ids from stdin.
    const piped = await run(['webhooks', 'events', 'resend', '-', '--original-headers', '--forward-to', other.url, '-o', 'json'], {...env, input: 'evt_store_2\n'})
    expect(piped.code, piped.stderr).toBe(0)
    expect(piped.json()).toMatchObject([{id: 'evt_store_2', status: 200}])

    // An unknown id among known ones: exit 4, nothing sent.
    const sentBefore = flaky.got.length
    const unknown = await run(['webhooks', 'events', 'resend', 'evt_store_2', 'evt_unknown', '--original-headers', '--forward-to', flaky.url], env)
    expect(unknown.code).toBe(4)
    expect(unknown.stderr).toMatch(/No stored event evt_unknown/)
    expect(flaky.got.length).toBe(sentBefore)

    // No secret and no --original-headers; a --secret flag (it would show in `ps`); both ways at once: usage errors.
    expect((await run(['webhooks', 'events', 'resend', 'evt_store_1'], env)).code).toBe(2)
    expect((await run(['webhooks', 'events', 'resend', 'evt_store_1', '--secret', RESIGN], env)).code).toBe(2)
    const secretFile = join(dir.path, 'resend.secret')
    writeFileSync(secretFile, `${RESIGN}\n`, {mode: 0o600})
    expect((await run(['webhooks', 'events', 'resend', 'evt_store_1', '--secret-file', secretFile, '--original-headers'], env)).code).toBe(2)
    expect(flaky.got.length).toBe(sentBefore)
    // --secret-file signs as the environment does.
    const byFile = await run(['webhooks', 'events', 'resend', 'evt_store_2', '--secret-file', secretFile, '--forward-to', other.url, '-o', 'json'], env)
    expect(byFile.code, byFile.stderr).toBe(0)
    const last = other.got.at(-1)!
    expect(last.headers['x-webhook-signature']).toBe(hmac(RESIGN, last.headers['x-webhook-timestamp'] as string, second))
    dir.cleanup()
  })

  it('a credential header an event arrived with is neither kept nor resent; every resend failing exits with the failures\' code, not 6', async () => {
    const dir = tempDir()
    const env = {configDir: dir.path}
    const token = 'tok-9f8e7d6c5b4a39281706'
    knownSecrets.add(token)
    const l = await listen(['--secret', SECRET], env)
    const body = envelope('evt_cred_1')
    const headers: Record<string, string> = {...signed(body), 'x-auth-token': token, 'x-session-id': token, cookie: `sid=${token}`, 'x-forwarded-for': '10.0.0.1'}
    expect((await post(l.url, body, headers)).status).toBe(200)
    await until(() => l.cli.stdout().includes('evt_cred_1'), () => l.cli.stdout())
    expect((await l.stop()).code).toBe(0)
    const record = await run(['webhooks', 'events', 'get', 'evt_cred_1', '--record', '-o', 'json'], env)
    expect(JSON.stringify(record.json().headers)).not.toContain(token)

    const elsewhere = await receiver()
    const sent = await run(['webhooks', 'events', 'resend', 'evt_cred_1', '--original-headers', '--forward-to', elsewhere.url, '-o', 'json'], env)
    expect(sent.code, sent.stderr).toBe(0)
    const got = elsewhere.got[0].headers
    expect(got['x-webhook-signature']).toBe(headers['x-webhook-signature'])
    expect(got['x-webhook-timestamp']).toBe(headers['x-webhook-timestamp'])
    expect(JSON.stringify(got)).not.toContain(token)
    expect(got['x-forwarded-for']).toBeUndefined()
    expect(elsewhere.got[0].body.toString()).toBe(body)

    // Every resend refused: exit 1; every one unreached: 7; some through: 6.
    const refusing = await receiver([500, 500])
    const twice = ['webhooks', 'events', 'resend', 'evt_cred_1', '--original-headers', '--forward-to']
    const refused = await run([...twice, refusing.url, '-o', 'json'], env)
    expect(refused.code, refused.stderr).toBe(1)
    expect(refused.stderr).toMatch(/1 of 1 resend failed/)
    expect((await run([...twice, 'http://127.0.0.1:1/', '-o', 'json'], env)).code).toBe(7)
    expect((await run([...twice, refusing.url, '-o', 'json'], env)).code).toBe(1)
    dir.cleanup()
  })

  it('an event never forwarded needs --forward-to; an empty store lists nothing and gets exit 4', async () => {
    const dir = tempDir()
    const env = {configDir: dir.path}
    expect((await run(['webhooks', 'events', 'list', '-o', 'json'], env)).json()).toEqual([])
    expect((await run(['webhooks', 'events', 'get', 'evt_x'], env)).code).toBe(4)
    expect((await run(['webhooks', 'events', 'resend', 'evt_x', '--original-headers'], env)).code).toBe(4)
    expect(existsSync(join(dir.path, 'webhook-events.sqlite'))).toBe(false)

    const l = await listen(['--secret', SECRET, '--keep-events', '2'], env)
    for (const n of [1, 2, 3]) {
      const body = envelope(`evt_keep_${n}`)
      expect((await post(l.url, body, signed(body))).status).toBe(200)
    }
    await until(() => (l.cli.stdout().match(/evt_keep_/g) ?? []).length === 3, () => l.cli.stdout())
    expect((await l.stop()).code).toBe(0)
    expect((await run(['webhooks', 'events', 'list', '-o', 'json'], env)).json().map((e: {id: string}) => e.id)).toEqual(['evt_keep_3', 'evt_keep_2'])
    const noTarget = await run(['webhooks', 'events', 'resend', 'evt_keep_3', '--original-headers'], env)
    expect(noTarget.code).toBe(2)
    expect(noTarget.stderr).toMatch(/never forwarded.*--forward-to/)

    const off = await listen(['--secret', SECRET, '--no-store'], env)
    const body = envelope('evt_not_kept')
    expect((await post(off.url, body, signed(body))).status).toBe(200)
    await until(() => off.cli.stdout().includes('evt_not_kept'), () => off.cli.stdout())
    expect((await off.stop()).stderr).toMatch(/not storing events/)
    expect((await run(['webhooks', 'events', 'get', 'evt_not_kept'], env)).code).toBe(4)
    dir.cleanup()
  })
})

describe('routing with --forward TYPE=URL', () => {
  it('sends each type to the routes that match it and the rest to --forward-to; counts per route', async () => {
    const dir = tempDir()
    const payins = await receiver()
    const failures = await receiver([500])
    const rest = await receiver()
    const l = await listen(['--secret', SECRET, '--forward', `payin.*=${payins.url}`, '--forward', `*.failed=${failures.url}`, '--forward-to', rest.url], {configDir: dir.path})
    const sent = {
      settled: envelope('evt_r_1', 'payin.settled'),
      payinFailed: envelope('evt_r_2', 'payin.failed'),
      payoutFailed: envelope('evt_r_3', 'payout.failed', {payout_id: 'a6f1c1d2-1111-4222-8333-944455556666'}),
      credit: envelope('evt_r_4', 'subaccount.credit_received', {subaccount_id: '2b1f2a8e-6a39-4a57-8a4b-3d2f2b6b1a11', amount_cents: 1, amount_in_minor_units: 1}),
    }
    for (const body of Object.values(sent)) expect((await post(l.url, body, signed(body))).status).toBe(200)
    await until(() => payins.got.length === 2 && failures.got.length === 2 && rest.got.length === 1, () => `${payins.got.length} ${failures.got.length} ${rest.got.length}`)
    const ids = (g: Got[]) => g.map((x) => JSON.parse(x.body.toString()).id).sort()
    expect(ids(payins.got)).toEqual(['evt_r_1', 'evt_r_2'])
    // payin.failed matches both routes: it goes to both.
    expect(ids(failures.got)).toEqual(['evt_r_2', 'evt_r_3'])
    expect(ids(rest.got)).toEqual(['evt_r_4'])
    expect(rest.got[0].body.toString()).toBe(sent.credit)
    await l.waitForLog(/forwarded evt_r_\d .*\(route \*\.failed -> .*\): 500/)
    const done = await l.stop()
    expect(done.code).toBe(0)
    const summary = JSON.parse(done.stderr.trim().split('\n').at(-1)!).summary
    expect(summary).toMatchObject({forwarded: 4, forward_failed: 1})
    expect(summary.routes).toEqual([
      {route: 'payin.*', url: payins.url, forwarded: 2, failed: 0},
      {route: '*.failed', url: failures.url, forwarded: 1, failed: 1},
      {route: null, url: rest.url, forwarded: 1, failed: 0},
    ])
    expect(done.stderr).toMatch(/routes: payin\.\* -> \S+: forwarded 2; \*\.failed -> \S+: forwarded 1, failed 1; else -> \S+: forwarded 1/)
    // Each forward is kept with its route.
    const record = (await run(['webhooks', 'events', 'get', 'evt_r_2', '--record', '-o', 'json'], {configDir: dir.path})).json()
    expect(record.deliveries.map((d: {route: string}) => d.route).sort()).toEqual(['*.failed', 'payin.*'])
    dir.cleanup()
  })

  it('warns at the start about a pattern that matches no known type; malformed routes are usage errors', async () => {
    const dir = tempDir()
    const target = await receiver()
    const l = await listen(['--secret', SECRET, '--forward', `refund.*=${target.url}`, '--forward', `payin.setled=${target.url}`], {configDir: dir.path})
    const stderr = l.cli.stderr()
    expect(stderr).toMatch(/Warning: --forward refund\.\*=\S+: the pattern matches no known event type/)
    expect(stderr).toMatch(/Warning: --forward payin\.setled=\S+: the pattern matches no known event type/)
    // An event no route matches, with no --forward-to, is printed and not forwarded.
    const body = envelope('evt_unrouted')
    expect((await post(l.url, body, signed(body))).status).toBe(200)
    await until(() => l.cli.stdout().includes('evt_unrouted'), () => l.cli.stdout())
    expect((await l.stop()).code).toBe(0)
    expect(target.got).toHaveLength(0)

    for (const bad of ['payin.settled', `=${target.url}`, 'payin.settled=', 'payin.settled=ftp://x/', `Payin.*=${target.url}`, `payin..settled=${target.url}`]) {
      const r = await run(['webhooks', 'listen', '--port', '0', '--secret', SECRET, '--forward', bad], {configDir: dir.path})
      expect(r.code, `${bad}: ${r.stderr}`).toBe(2)
      expect(r.stderr).toMatch(/--forward/)
    }
    dir.cleanup()
  })
})

describe('listen --register', () => {
  async function hooks(): Promise<Array<{id: string; url: string; event_types: string[]}>> {
    const r = await runAs(emu, 'test', ['webhooks', 'list', '--all', '-o', 'json'])
    expect(r.code, r.stderr).toBe(0)
    return r.json()
  }

  /** The signing secret the emulator holds for an endpoint (the test's own view of it). */
  function secretOf(id: string): string {
    for (const e of emu.store!.entities.values()) {
      const hook = e.webhooks.get(id)
      if (hook) return hook.secret
    }
    throw new Error(`no endpoint ${id} in the emulator's store`)
  }

  it('creates an endpoint for the local URL, verifies real deliveries with its secret, never prints it, and deletes it on Ctrl-C', async () => {
    const dir = tempDir()
    const target = await receiver()
    const env = {PAYOPS_BASE_URL: emu.baseUrl, PAYOPS_API_KEY: emu.keys.test}
    const l = await listen(['--register', '--events', 'payin.settled,payin.failed', '--forward-to', target.url], {configDir: dir.path, env})
    const id = /Registered webhook endpoint (\S+) for (\S+)/.exec(l.cli.stderr())
    expect(id, l.cli.stderr()).not.toBeNull()
    const [, hookId, hookUrl] = id!
    expect(hookUrl).toBe(l.url)
    expect(l.cli.stderr()).toMatch(new RegExp(`If this listener is killed, delete it: payops webhooks delete ${hookId} --yes \\(with the same PAYOPS_API_KEY and PAYOPS_BASE_URL\\)`))
    const listed = (await hooks()).find((h) => h.id === hookId)
    expect(listed).toMatchObject({url: l.url, event_types: ['payin.failed', 'payin.settled']})
    const secret = secretOf(hookId)
    knownSecrets.add(secret)

    const evt = (await emu.control<{data: {id: string}}>('POST', '/_emulator/events', {entity: 'test', type: 'payin.settled'})).data
    await until(() => l.cli.stdout().includes(evt.id), () => `the delivered event: ${l.cli.stderr()}`)
    await until(() => target.got.length === 1, () => 'the forward')
    const delivered = target.got[0]
    expect(delivered.headers['x-webhook-signature']).toBe(hmac(secret, delivered.headers['x-webhook-timestamp'] as string, delivered.body))

    const done = await l.stop()
    expect(done.code, done.stderr).toBe(0)
    expect(done.stdout + done.stderr).not.toContain(secret)
    expect(done.stderr).toMatch(new RegExp(`Deleted webhook endpoint ${hookId}`))
    expect((await hooks()).some((h) => h.id === hookId)).toBe(false)
    expect((await runAs(emu, 'test', ['webhooks', 'get', hookId])).code).toBe(4)
    // The delivered event was kept.
    expect((await run(['webhooks', 'events', 'get', evt.id], {configDir: dir.path})).stdout).toBe(delivered.body.toString())
    dir.cleanup()
  })

  it('--print-secret prints it on stdout; --secret-out writes it with mode 0600', async () => {
    const dir = tempDir()
    const out = join(dir.path, 'handler.secret')
    const env = {PAYOPS_BASE_URL: emu.baseUrl, PAYOPS_API_KEY: emu.keys.test}
    const cli = startCli(['webhooks', 'listen', '--port', '0', '-o', 'ndjson', '--register', '--print-secret', '--secret-out', out], {configDir: dir.path, env, allowSecrets: true})
    running.push(cli)
    const line = JSON.parse(await cli.line(/registered/)) as {registered: {id: string; url: string; secret: string}}
    expect(line.registered.secret).toBe(secretOf(line.registered.id))
    expect(readFileSync(out, 'utf8')).toBe(`${line.registered.secret}\n`)
    expect(statSync(out).mode & 0o777).toBe(0o600)
    // The stderr log never shows it.
    expect(cli.stderr()).not.toContain(line.registered.secret)
    cli.interrupt()
    const r = await cli.done
    expect(r.code).toBe(0)
    expect((await hooks()).some((h) => h.id === line.registered.id)).toBe(false)
    dir.cleanup()
  })

  it('a delete that fails at exit says exactly how to delete it; the next --register names the endpoint left behind', async () => {
    const dir = tempDir()
    const env = {PAYOPS_BASE_URL: emu.baseUrl, PAYOPS_API_KEY: emu.keys.test}
    const l = await listen(['--register', '--max-retries', '0'], {configDir: dir.path, env})
    const hookId = /Registered webhook endpoint (\S+)/.exec(l.cli.stderr())![1]
    await emu.control('POST', '/_emulator/faults', {rate: 1, kinds: ['503'], phases: ['before'], methods: ['DELETE']})
    const done = await l.stop()
    await emu.control('DELETE', '/_emulator/faults')
    expect(done.code).toBe(1)
    expect(done.stderr).toMatch(new RegExp(`Could not delete webhook endpoint ${hookId} \\(.*503.*\\); it still receives events\\. Delete it: payops webhooks delete ${hookId} --yes`))
    expect((await hooks()).some((h) => h.id === hookId)).toBe(true)

    const next = await listen(['--register'], {configDir: dir.path, env})
    expect(next.cli.stderr()).toMatch(new RegExp(`Warning: Endpoint ${hookId} \\(\\S+\\) was registered by a listener on \\S+ and was not deleted\\. If that listener is no longer running, delete it: payops webhooks delete ${hookId} --yes`))
    expect((await next.stop()).code).toBe(0)
    expect((await runAs(emu, 'test', ['webhooks', 'delete', hookId, '--yes'])).code).toBe(0)
    dir.cleanup()
  })

  it('a second Ctrl-C while the endpoint is deleted ends at once (130), naming the command that deletes it', async () => {
    const dir = tempDir()
    const env = {PAYOPS_BASE_URL: emu.baseUrl, PAYOPS_API_KEY: emu.keys.test}
    const l = await listen(['--register'], {configDir: dir.path, env})
    const hookId = /Registered webhook endpoint (\S+)/.exec(l.cli.stderr())![1]
    await emu.control('POST', '/_emulator/faults', {rate: 1, kinds: ['latency'], latency_ms: 1500, methods: ['DELETE']})
    l.cli.interrupt()
    await l.waitForLog(/Summary: /)
    l.cli.interrupt()
    expect(l.cli.exits).toEqual([130])
    expect(l.cli.stderr()).toMatch(new RegExp(`Stopped before webhook endpoint ${hookId} was deleted; delete it: payops webhooks delete ${hookId} --yes`))
    await l.cli.done
    await emu.control('DELETE', '/_emulator/faults')
    dir.cleanup()
  })

  it('on a LIVE key, registering is confirmed: without a terminal and without --yes it is refused (exit 3), nothing created', async () => {
    const dir = tempDir()
    const live = {PAYOPS_BASE_URL: emu.baseUrl, PAYOPS_API_KEY: emu.keys.live}
    const count = async () => (await runAs(emu, 'live', ['webhooks', 'list', '--all', '-o', 'json'])).json().length as number
    const before = await count()
    const refused = await run(['webhooks', 'listen', '--port', '0', '--register', '--url', 'https://hooks.example.com/live'], {configDir: dir.path, env: live})
    expect(refused.code, refused.stderr).toBe(3)
    expect(await count()).toBe(before)
    const yes = await listen(['--register', '--url', 'https://hooks.example.com/live', '--yes'], {configDir: dir.path, env: live})
    expect(await count()).toBe(before + 1)
    expect((await yes.stop()).code).toBe(0)
    expect(await count()).toBe(before)
    dir.cleanup()
  })

  it('refuses, before anything is created: a remote base URL without --url, a plain-http --url, --url without --register', async () => {
    const dir = tempDir()
    const remote = await run(['webhooks', 'listen', '--port', '0', '--register'], {configDir: dir.path, env: {PAYOPS_BASE_URL: 'https://api.example.com', PAYOPS_API_KEY: 'test_0000000000000000'}})
    expect(remote.code).toBe(2)
    expect(remote.stderr).toMatch(/cannot reach this machine's listener; give --url PUBLIC_URL/)
    const before = (await hooks()).length
    const env = {PAYOPS_BASE_URL: emu.baseUrl, PAYOPS_API_KEY: emu.keys.test}
    const plain = await run(['webhooks', 'listen', '--port', '0', '--register', '--url', 'http://hooks.example.com/in'], {configDir: dir.path, env})
    expect(plain.code).toBe(2)
    expect(plain.stderr).toMatch(/--url .*https/)
    expect((await run(['webhooks', 'listen', '--port', '0', '--secret', SECRET, '--url', 'https://hooks.example.com/in'], {configDir: dir.path})).code).toBe(2)
    expect((await run(['webhooks', 'listen', '--port', '0', '--secret', SECRET, '--print-secret'], {configDir: dir.path})).code).toBe(2)
    expect((await hooks()).length).toBe(before)
    // A public URL is registered as given (the service delivers there; a tunnel reaches the listener).
    const tunnel = await listen(['--register', '--url', 'https://hooks.example.com/in'], {configDir: dir.path, env})
    const hookId = /Registered webhook endpoint (\S+) for (\S+)/.exec(tunnel.cli.stderr())!
    expect(hookId[2]).toBe('https://hooks.example.com/in')
    expect((await tunnel.stop()).code).toBe(0)
    expect((await hooks()).length).toBe(before)
    dir.cleanup()
  })
})
