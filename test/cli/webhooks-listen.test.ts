import {execFileSync} from 'node:child_process'
import {createHmac} from 'node:crypto'
import {readFileSync, writeFileSync} from 'node:fs'
import {createServer, type IncomingMessage, type Server} from 'node:http'
import type {AddressInfo} from 'node:net'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {knownSecrets, listeningUrl, run, runAs, startCli, until, startEmulator, tempDir, type Emulator, type RunningCli} from '../support/index.js'

let emu: Emulator
const NOWHERE = 'https://127.0.0.1:1'
const SECRET = 'whsec_e2eListenerSecretValue000000000000000001'
const OTHER = 'whsec_e2eListenerSecretValue000000000000000002'
knownSecrets.add(SECRET)
knownSecrets.add(OTHER)

const servers: Server[] = []
const listeners: Listener[] = []

beforeAll(async () => {
  emu = await startEmulator()
})
afterAll(async () => {
  // A listener a failed test left running: Ctrl-C, and wait for its end (its output is not checked here).
  for (const l of listeners) if (!l.ended()) l.cli.interrupt()
  await Promise.all(listeners.map((l) => l.cli.done.catch(() => undefined)))
  await Promise.all(servers.map((s) => new Promise((r) => (s.closeAllConnections(), s.close(r)))))
  await emu?.stop()
})

/** HMAC computed here, independently of the code under test. */
const hmac = (secret: string, ts: number | string, body: string) => createHmac('sha256', secret).update(`${ts}.${body}`).digest('hex')
const now = () => Math.floor(Date.now() / 1000)

interface Listener {
  cli: RunningCli
  url: string
  port: number
  events: Array<Record<string, any>>
  ended: () => boolean
  stderr: () => string
  stdout: () => string
  waitFor(pred: (e: Record<string, any>) => boolean, ms?: number): Promise<Record<string, any>>
  waitForLog(re: RegExp, ms?: number): Promise<void>
  /** Ctrl-C (SIGINT or SIGTERM, as the command sees them); resolves with the run's end. The run fails if a secret was printed. */
  stop(): Promise<{code: number; stdout: string; stderr: string}>
}

/** `payops webhooks listen ARGS` in-process (--port 0 and -o ndjson unless given), once it listens. */
async function listen(args: string[], env: Record<string, string> = {}): Promise<Listener> {
  const defaults = [...(args.includes('--port') ? [] : ['--port', '0']), ...(args.includes('-o') ? [] : ['-o', 'ndjson'])]
  const cli = startCli(['webhooks', 'listen', ...defaults, ...args], {env})
  let ended = false
  cli.done.then(
    () => (ended = true),
    () => (ended = true),
  )
  const url = await listeningUrl(cli)
  // Whole lines only: one JSON object per line.
  const events = () => cli.stdout().split('\n').slice(0, -1).filter(Boolean).map((l) => JSON.parse(l) as Record<string, any>)
  const l: Listener = {
    cli,
    url,
    port: Number(new URL(url).port),
    get events() {
      return events()
    },
    ended: () => ended,
    stderr: cli.stderr,
    stdout: cli.stdout,
    async waitFor(pred, ms) {
      await until(() => events().some(pred), () => `an event; stdout: ${cli.stdout()}; stderr: ${cli.stderr()}`, ms)
      return events().find(pred)!
    },
    async waitForLog(re, ms) {
      await until(() => re.test(cli.stderr()), () => `${re} in stderr: ${cli.stderr()}`, ms)
    },
    async stop() {
      cli.interrupt()
      const r = await cli.done
      for (const s of knownSecrets) {
        expect(r.stdout.includes(s) || r.stderr.includes(s), 'a secret was printed by listen').toBe(false)
      }
      return {code: r.code, stdout: r.stdout, stderr: r.stderr}
    },
  }
  listeners.push(l)
  return l
}

/** A receiver that answers the next status in `statuses` (then 200) and records what it got. */
async function receiver(statuses: number[] = []): Promise<{url: string; got: Array<{headers: IncomingMessage['headers']; body: string}>}> {
  const got: Array<{headers: IncomingMessage['headers']; body: string}> = []
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      got.push({headers: req.headers, body: Buffer.concat(chunks).toString('utf8')})
      res.writeHead(statuses.shift() ?? 200, {'content-type': 'application/json'}).end('{"ok":true}')
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  servers.push(server)
  return {url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/in`, got}
}

async function createHook(url: string, eventTypes: string): Promise<{id: string; secret: string}> {
  const r = await runAs(emu, 'test', ['webhooks', 'create', '--url', url, '--event-types', eventTypes, '-o', 'json'], {allowSecrets: true})
  expect(r.code, r.stderr).toBe(0)
  const hook = r.json()
  knownSecrets.add(hook.secret)
  return hook
}

const emit = (type: string, data?: Record<string, unknown>) => emu.control<{data: {id: string}}>('POST', '/_emulator/events', {entity: 'test', type, data}).then((r) => r.data)

function post(url: string, body: string, headers: Record<string, string> = {}, method = 'POST') {
  return fetch(url, {method, headers: {'content-type': 'application/json', ...headers}, body: method === 'GET' ? undefined : body})
}

function signedHeaders(body: string, secret = SECRET, ts: number | string = now()) {
  return {'x-webhook-signature': hmac(secret, ts, body), 'x-webhook-timestamp': String(ts)}
}

const envelope = (id: string, type = 'payin.settled', data: Record<string, unknown> = {payin_id: '5d1c7c5e-8a34-4a8e-9f3b-0d8f1f2c9a10'}) => JSON.stringify({id, type, data})

describe('emulator -> listen', () => {
  it('delivers a real signed event to a running listener, which verifies and prints it', async () => {
    const hook = await createHook(NOWHERE, 'subaccount.credit_received')
    const l = await listen(['--secret', hook.secret])
    const upd = await runAs(emu, 'test', ['webhooks', 'update', hook.id, '--url', l.url])
    expect(upd.code, upd.stderr).toBe(0)
    const before = now()
    const evt = await emit('subaccount.credit_received', {subaccount_id: '2b1f2a8e-6a39-4a57-8a4b-3d2f2b6b1a11', amount_cents: 4200, amount_in_minor_units: 4200})
    const got = await l.waitFor((e) => e.id === evt.id)
    const after = now()
    expect(got).toMatchObject({type: 'subaccount.credit_received', verified: true, secret_index: 0, data: {amount_in_minor_units: 4200}})
    // Signed at delivery time: between the emit and the receipt (same clock, this process).
    expect(got.timestamp).toBeGreaterThanOrEqual(before)
    expect(got.timestamp).toBeLessThanOrEqual(after)
    const attempts = await emu.control<{data: any[]}>('GET', `/_emulator/webhook-deliveries?endpoint_id=${hook.id}&event_id=${evt.id}`)
    expect(attempts.data).toMatchObject([{attempt: 1, status: 200, ok: true}])
    const done = await l.stop()
    expect(done.code).toBe(0)
    expect(done.stderr).toMatch(/Summary: received 1, verified 1, rejected 0/)
  })

  it('treasury simulate-credit --subaccount produces a signed subaccount.credit_received that the listener verifies', async () => {
    // The main account: the first USD account onboarded.
    const accounts = (await runAs(emu, 'test', ['treasury', 'accounts', 'list', '--order', 'asc'])).json() as Array<{id: string; currency_code: string}>
    const main = accounts.find((a) => a.currency_code === 'USD')!
    const sub = (await runAs(emu, 'test', ['subaccounts', 'create', '--name', 'Webhook credit'])).json()
    const l = await listen(['--secret', 'whsec_placeholderplaceholder0000000000'])
    const hook = await createHook(l.url, 'subaccount.credit_received,payin.settled')
    await l.stop()
    const live = await listen(['--secret', hook.secret, '--port', String(l.port)])
    const credit = await runAs(emu, 'test', ['treasury', 'simulate-credit', main.id, '--rail', 'wire', '--amount', '42.17', '--subaccount', sub.id])
    expect(credit.code, credit.stderr).toBe(0)
    const got = await live.waitFor((e) => e.type === 'subaccount.credit_received' && e.data?.subaccount_id === sub.id)
    expect(got).toMatchObject({verified: true, data: {subaccount_id: sub.id, amount_cents: 4217, amount_in_minor_units: 4217}})
    expect((await runAs(emu, 'test', ['subaccounts', 'get', sub.id])).json().total_incoming_in_minor_units).toBe(4217)

    // A payin advancing to settled is delivered too.
    const payin = (await emu.control<{data: {id: string}}>('POST', '/_emulator/payins', {entity: 'test', amount_in_minor_units: 999})).data
    await emu.control('POST', `/_emulator/payins/${payin.id}/advance`, {status: 'settled'})
    const settled = await live.waitFor((e) => e.type === 'payin.settled' && e.data?.payin_id === payin.id)
    expect(settled.verified).toBe(true)
    expect((await live.stop()).code).toBe(0)
    expect((await runAs(emu, 'test', ['webhooks', 'delete', hook.id])).code).toBe(0)
  })

  it('retries when the receiver first answers 500: the same event id arrives twice', async () => {
    await emu.control('POST', '/_emulator/webhooks/retry-policy', {base_delay_ms: 50, max_attempts: 4})
    const r = await receiver([500])
    const hook = await createHook(r.url, 'payout.settled')
    const evt = await emit('payout.settled')
    await until(() => r.got.length >= 2, () => `two deliveries, got ${r.got.length}`)
    expect(r.got.map((g) => JSON.parse(g.body).id)).toEqual([evt.id, evt.id])
    expect(r.got[0].body).toBe(r.got[1].body)
    for (const g of r.got) expect(g.headers['x-webhook-signature']).toBe(hmac(hook.secret, g.headers['x-webhook-timestamp'] as string, g.body))
    const attempts = await emu.control<{data: any[]}>('GET', `/_emulator/webhook-deliveries?endpoint_id=${hook.id}`)
    expect(attempts.data.map((a) => [a.event_id, a.attempt, a.status])).toEqual([
      [evt.id, 1, 500],
      [evt.id, 2, 200],
    ])
    await new Promise((res) => setTimeout(res, 200))
    expect(r.got).toHaveLength(2)
  })
})

describe('listen rejections', () => {
  it('answers every bad request with the right status and a log line, and keeps running', async () => {
    const l = await listen(['--secret', SECRET, '--events', 'payin.settled,payin.failed', '--tolerance', '300'])
    const ok = envelope('evt_ok_1')
    let res = await post(l.url, ok, signedHeaders(ok))
    expect(res.status).toBe(200)
    await l.waitFor((e) => e.id === 'evt_ok_1')

    res = await post(l.url, ok, signedHeaders(ok))
    expect(res.status).toBe(200)
    await l.waitForLog(/duplicate evt_ok_1/)

    const forged = envelope('evt_forged')
    res = await post(l.url, forged, signedHeaders(forged, OTHER))
    expect(res.status).toBe(401)
    expect(await res.json()).toMatchObject({error: 'bad_signature'})
    await l.waitForLog(/rejected 401 bad_signature/)

    const stale = envelope('evt_stale')
    res = await post(l.url, stale, signedHeaders(stale, SECRET, now() - 301))
    expect(res.status).toBe(401)
    await l.waitForLog(/rejected 401 stale_timestamp/)

    res = await post(l.url, ok, {})
    expect(res.status).toBe(400)
    await l.waitForLog(/rejected 400 missing_header/)

    res = await post(l.url, ok, {...signedHeaders(ok), 'x-webhook-timestamp': 'yesterday'})
    expect(res.status).toBe(400)
    await l.waitForLog(/rejected 400 malformed_timestamp/)

    const broken = '{"id": "evt_broken", "type": '
    res = await post(l.url, broken, signedHeaders(broken))
    expect(res.status).toBe(400)
    await l.waitForLog(/rejected 400 malformed_json/)

    res = await post(l.url, '', {}, 'GET')
    expect(res.status).toBe(405)
    expect(res.headers.get('allow')).toBe('POST')
    await l.waitForLog(/rejected 405 method_not_allowed/)

    const big = JSON.stringify({id: 'evt_big', type: 'payin.settled', data: {pad: 'x'.repeat(1024 * 1024)}})
    res = await post(l.url, big, signedHeaders(big))
    expect(res.status).toBe(413)
    await l.waitForLog(/rejected 413 payload_too_large/)

    res = await post(new URL('/elsewhere', l.url).href, ok, signedHeaders(ok))
    expect(res.status).toBe(404)
    await l.waitForLog(/rejected 404 not_found/)

    const filtered = envelope('evt_payout', 'payout.failed', {payout_id: 'a6f1c1d2-1111-4222-8333-944455556666'})
    res = await post(l.url, filtered, signedHeaders(filtered))
    expect(res.status).toBe(200)
    await l.waitForLog(/ignored evt_payout \(payout.failed\): not in --events/)

    // Still alive and verifying.
    const last = envelope('evt_ok_2', 'payin.failed')
    expect((await post(l.url, last, signedHeaders(last))).status).toBe(200)
    await l.waitFor((e) => e.id === 'evt_ok_2')

    // SIGTERM and SIGINT reach the command alike; a real SIGTERM to a process: test/smoke/listener.test.ts.
    const done = await l.stop()
    expect(done.code).toBe(0)
    expect(done.stdout.trim().split('\n').map((line) => JSON.parse(line).id)).toEqual(['evt_ok_1', 'evt_ok_2'])
    const summary = JSON.parse(done.stderr.trim().split('\n').at(-1)!).summary
    expect(summary).toEqual({
      received: 12,
      verified: 4,
      rejected: {bad_signature: 1, stale_timestamp: 1, missing_header: 1, malformed_timestamp: 1, malformed_json: 1, method_not_allowed: 1, payload_too_large: 1, not_found: 1},
      duplicates: 1,
      filtered: 1,
      forwarded: 0,
      forward_failed: 0,
    })
    expect(done.stderr).toMatch(/Summary: received 12, verified 4, rejected 8 \(/)
  })

  it('usage errors: no secret, unknown --events type, --tls-cert alone, a port in use (exit 2)', async () => {
    const noSecret = await run(['webhooks', 'listen', '--port', '0'])
    expect(noSecret.code).toBe(2)
    expect(noSecret.stderr).toMatch(/--secret/)
    expect((await run(['webhooks', 'listen', '--port', '0', '--secret', SECRET, '--events', 'payin.refunded'])).code).toBe(2)
    expect((await run(['webhooks', 'listen', '--port', '0', '--secret', SECRET, '--tls-cert', 'x.pem'])).code).toBe(2)
    const l = await listen(['--secret', SECRET])
    const busy = await run(['webhooks', 'listen', '--port', String(l.port), '--secret', SECRET])
    expect(busy.code).toBe(2)
    expect(busy.stderr).toMatch(/in use/)
    expect((await l.stop()).code).toBe(0)
  })

  it('takes secrets from PAYOPS_WEBHOOK_SECRETS and prints a line per event in table mode', async () => {
    const l = await listen(['-o', 'table'], {PAYOPS_WEBHOOK_SECRETS: `${OTHER},${SECRET}`})
    const body = envelope('evt_table_1')
    expect((await post(l.url, body, signedHeaders(body))).status).toBe(200)
    await until(() => l.stdout().includes('evt_table_1'), () => `the event line: ${l.stdout()}`)
    const done = await l.stop()
    expect(done.stdout).toMatch(/payin\.settled\s+evt_table_1\s+\{"payin_id".*\(secret #2\)/)
    expect(done.stderr).toMatch(/2 secrets/)
  })
})

describe('trigger and verify', () => {
  it('trigger -> listen verifies; the exit code follows the receiver', async () => {
    const l = await listen(['--secret', SECRET])
    const r = await run(['webhooks', 'trigger', 'subaccount.credit_received', '--url', l.url, '--secret', SECRET, '--data', 'amount_in_minor_units=777', '-o', 'json'])
    expect(r.code, r.stderr).toBe(0)
    const sent = r.json()
    expect(sent).toMatchObject({status: 200, ok: true, type: 'subaccount.credit_received'})
    const got = await l.waitFor((e) => e.id === sent.id)
    expect(got.data).toMatchObject({amount_in_minor_units: 777, amount_cents: 777})
    expect(got.data.subaccount_id).toMatch(/^[0-9a-f-]{36}$/)

    const dup = await run(['webhooks', 'trigger', 'subaccount.credit_received', '--url', l.url, '--secret', SECRET, '--id', sent.id, '-o', 'table'])
    expect(dup.code).toBe(0)
    expect(dup.stdout).toMatch(/: 200 in \d+ ms/)
    await l.waitForLog(new RegExp(`duplicate ${sent.id}`))

    const wrong = await run(['webhooks', 'trigger', 'payin.settled', '--url', l.url, '--secret', OTHER])
    expect(wrong.code).toBe(3)
    expect(wrong.stderr).toMatch(/401.*bad_signature/)
    const stale = await run(['webhooks', 'trigger', 'payin.settled', '--url', l.url, '--secret', SECRET, '--timestamp', String(now() - 3600)])
    expect(stale.code).toBe(3)
    expect(stale.stderr).toMatch(/stale_timestamp/)
    expect((await l.stop()).code).toBe(0)

    const failing = await receiver([500])
    const five = await run(['webhooks', 'trigger', 'payout.debited', '--url', failing.url, '--secret', SECRET])
    expect(five.code).toBe(1)
    expect(JSON.parse(failing.got[0].body).data.payout_id).toMatch(/^[0-9a-f-]{36}$/)
    expect((await run(['webhooks', 'trigger', 'payin.settled', '--url', 'http://127.0.0.1:1/', '--secret', SECRET])).code).toBe(7)
    expect((await run(['webhooks', 'trigger', 'payin.refunded', '--url', failing.url, '--secret', SECRET])).code).toBe(2)
    expect((await run(['webhooks', 'trigger', 'payin.settled', '--url', failing.url])).code).toBe(2)
    expect((await run(['webhooks', 'trigger', 'payin.settled', '--url', failing.url, '--secret', SECRET, '--data', 'oops'])).code).toBe(2)
    const fromEnv = await run(['webhooks', 'trigger', 'payin.failed', '--url', failing.url], {env: {PAYOPS_WEBHOOK_SECRET: SECRET}})
    expect(fromEnv.code).toBe(0)
    const last = failing.got.at(-1)!
    expect(last.headers['x-webhook-signature']).toBe(hmac(SECRET, last.headers['x-webhook-timestamp'] as string, last.body))
  })

  it('verify: valid raw body, stdin, re-serialised body fails, staleness, usage errors', async () => {
    const dir = tempDir()
    const body = JSON.stringify({id: 'evt_v1', type: 'payin.settled', data: {payin_id: 'c0ffee00-0000-4000-8000-000000000001'}})
    const ts = now() - 1000
    const sig = hmac(SECRET, ts, body)
    const file = join(dir.path, 'body.json')
    writeFileSync(file, body)
    const args = ['webhooks', 'verify', '--secret', SECRET, '--timestamp', String(ts), '--signature', sig]

    const valid = await run([...args, '--payload-file', file, '-o', 'table'])
    expect(valid.code).toBe(0)
    expect(valid.stdout).toBe('valid\n')
    const json = await run([...args, '--payload-file', file, '--json'])
    expect(json.json()).toEqual({valid: true, secret_index: 0})
    expect((await run([...args, '-o', 'table'], {input: body})).stdout).toBe('valid\n')
    expect((await run(['webhooks', 'verify', '--secret', OTHER, '--secret', SECRET, '--timestamp', String(ts), '--signature', sig, '--json'], {input: body})).json().secret_index).toBe(1)

    const reserialised = JSON.stringify(JSON.parse(body), null, 2)
    const bad = await run([...args, '-o', 'json'], {input: reserialised})
    expect(bad.code).toBe(1)
    expect(bad.stdout).toBe('')
    expect(bad.stderr).toMatch(/invalid: bad_signature/)
    expect(JSON.parse(bad.stderr.trim().split('\n').at(-1)!).error).toMatchObject({valid: false, reason: 'bad_signature', exit_code: 1})
    expect((await run(args, {input: `${body}\n`})).code).toBe(1)

    const staleRun = await run([...args, '--tolerance', '300'], {input: body})
    expect(staleRun.code).toBe(1)
    expect(staleRun.stderr).toMatch(/stale_timestamp/)
    expect((await run([...args, '--tolerance', '5000'], {input: body})).code).toBe(0)

    expect((await run(['webhooks', 'verify', '--secret', SECRET, '--timestamp', 'soon', '--signature', sig], {input: body})).code).toBe(2)
    expect((await run(['webhooks', 'verify', '--timestamp', String(ts), '--signature', sig], {input: body})).code).toBe(2)
    expect((await run(['webhooks', 'verify', '--timestamp', String(ts), '--signature', sig, '-o', 'table'], {input: body, env: {PAYOPS_WEBHOOK_SECRET: SECRET}})).stdout).toBe('valid\n')
    expect((await run([...args, '--payload-file', join(dir.path, 'missing.json')])).code).toBe(2)
    dir.cleanup()
  })
})

describe('listen --forward-to and --tls-cert', () => {
  it('forwards the raw body and signature headers after answering, and reports the target status', async () => {
    const target = await receiver([200, 502])
    const l = await listen(['--secret', SECRET, '--forward-to', target.url])
    const body = envelope('evt_fwd_1')
    const headers = signedHeaders(body)
    expect((await post(l.url, body, headers)).status).toBe(200)
    await l.waitForLog(/forwarded evt_fwd_1 \(payin.settled\) to .*: 200/)
    expect(target.got[0].body).toBe(body)
    expect(target.got[0].headers['x-webhook-signature']).toBe(headers['x-webhook-signature'])
    expect(target.got[0].headers['x-webhook-timestamp']).toBe(headers['x-webhook-timestamp'])
    const body2 = envelope('evt_fwd_2')
    expect((await post(l.url, body2, signedHeaders(body2))).status).toBe(200)
    await l.waitForLog(/forwarded evt_fwd_2 .*: 502/)
    const done = await l.stop()
    expect(done.stderr).toMatch(/forwarded 1 \(failed 1\)/)

    // A new event: evt_fwd_1 is kept in the event store, so its delivery to a restarted listener is a duplicate.
    const l2 = await listen(['--secret', SECRET, '--forward-to', 'http://127.0.0.1:1/'])
    const body3 = envelope('evt_fwd_3')
    expect((await post(l2.url, body3, signedHeaders(body3))).status).toBe(200)
    await l2.waitForLog(/forward of evt_fwd_3 .* failed: ECONNREFUSED/)
    expect((await l2.stop()).code).toBe(0)
  })

  it('serves HTTPS with --tls-cert/--tls-key', async () => {
    const dir = tempDir()
    const cert = join(dir.path, 'cert.pem')
    const key = join(dir.path, 'key.pem')
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'], {stdio: 'pipe'})
    const l = await listen(['--secret', SECRET, '--tls-cert', cert, '--tls-key', key])
    expect(l.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/$/)
    // Real TLS: a sender that does not trust the certificate cannot deliver.
    const untrusted = await run(['webhooks', 'trigger', 'payin.settled', '--url', l.url, '--secret', SECRET])
    expect(untrusted.code, untrusted.stderr).toBe(7)
    expect(untrusted.stderr).toMatch(/SELF_SIGNED_CERT/)
    // NODE_EXTRA_CA_CERTS in the run's environment: trigger's TLS trusts the certificate.
    const r = await run(['webhooks', 'trigger', 'payin.settled', '--url', l.url, '--secret', SECRET], {env: {NODE_EXTRA_CA_CERTS: cert}})
    expect(r.code, r.stderr).toBe(0)
    await l.waitFor((e) => e.id === r.json().id)
    expect((await l.stop()).code).toBe(0)
    expect((await run(['webhooks', 'listen', '--port', '0', '--secret', SECRET, '--tls-cert', join(dir.path, 'none.pem'), '--tls-key', key])).code).toBe(2)
    dir.cleanup()
  })
})

describe('secret rotation mid-stream', () => {
  it('listen with OLD and NEW keeps verifying during rotate-secret; after the old endpoint is deleted only the new one receives', async () => {
    const cfg = tempDir()
    const hook = await createHook(NOWHERE, 'payin.settled,payin.failed')
    const old = hook.secret
    const l0 = await listen(['--secret', old])
    await runAs(emu, 'test', ['webhooks', 'update', hook.id, '--url', l0.url])
    const e1 = await emit('payin.settled')
    expect((await l0.waitFor((e) => e.id === e1.id)).secret_index).toBe(0)

    // Phase 1 (no terminal, no --yes): the twin is created and its secret shown; the old endpoint stays.
    const phase1 = await runAs(emu, 'test', ['webhooks', 'rotate-secret', hook.id, '-o', 'json'], {configDir: cfg.path, allowSecrets: true})
    expect(phase1.code, phase1.stderr).toBe(0)
    const rot = phase1.json()
    knownSecrets.add(rot.secret)
    expect(rot).toMatchObject({old_id: hook.id, old_deleted: false, url: l0.url})
    expect(rot.secret).toMatch(/^whsec_/)
    expect(phase1.stderr).toMatch(/store it now/)
    expect(phase1.stderr).toMatch(/rotate-secret .* --yes/)

    // Events go to both endpoints now; the receiver switches to both secrets.
    const e2 = await emit('payin.failed')
    await l0.waitFor((e) => e.id === e2.id)
    await l0.waitForLog(/rejected 401 bad_signature/) // the twin's delivery, signed with NEW
    expect((await l0.stop()).code).toBe(0)
    const l = await listen(['--port', String(l0.port), '--secret', old, '--secret', rot.secret])

    const e3 = await emit('payin.settled')
    await l.waitFor((e) => e.id === e3.id)
    await l.waitForLog(new RegExp(`duplicate ${e3.id}`))
    const both = await emu.control<{data: any[]}>('GET', `/_emulator/webhook-deliveries?event_id=${e3.id}`)
    expect(both.data.filter((a) => a.ok).map((a) => a.endpoint_id).sort()).toEqual([hook.id, rot.new_id].sort())

    // Phase 2: the re-run finds the twin (no second one), cannot show its secret again, deletes the old endpoint.
    const phase2 = await runAs(emu, 'test', ['webhooks', 'rotate-secret', hook.id, '--yes', '-o', 'json'], {configDir: cfg.path})
    expect(phase2.code, phase2.stderr).toBe(0)
    expect(phase2.json()).toMatchObject({old_id: hook.id, new_id: rot.new_id, secret: null, old_deleted: true})
    expect(phase2.stderr).toMatch(/cannot be shown again/)
    const ids = (await runAs(emu, 'test', ['webhooks', 'list', '--all', '-o', 'ndjson'])).stdout.trim().split('\n').map((x) => JSON.parse(x).id)
    expect(ids).toContain(rot.new_id)
    expect(ids).not.toContain(hook.id)

    const e4 = await emit('payin.settled')
    const got = await l.waitFor((e) => e.id === e4.id)
    expect(got.secret_index).toBe(1)
    await new Promise((r) => setTimeout(r, 300))
    const after = await emu.control<{data: any[]}>('GET', `/_emulator/webhook-deliveries?event_id=${e4.id}`)
    expect(after.data.map((a) => a.endpoint_id)).toEqual([rot.new_id])
    const done = await l.stop()
    expect(done.code).toBe(0)
    expect(done.stdout.trim().split('\n').filter((x) => JSON.parse(x).id === e4.id)).toHaveLength(1)
    cfg.cleanup()
  })
})
