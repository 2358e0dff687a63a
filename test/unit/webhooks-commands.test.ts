/**
 * `webhooks listen`, `verify`, `trigger` and `rotate-secret` in-process: their run functions with a
 * fake command context (captured stdout and stderr, fake stdin, clock and stop signal, a fake
 * webhooks API), no process spawned. Servers bind 127.0.0.1 on a free port and are always closed.
 */
import {createHmac} from 'node:crypto'
import {readFileSync, rmSync, writeFileSync} from 'node:fs'
import {createServer, type IncomingHttpHeaders, type Server} from 'node:http'
import type {AddressInfo} from 'node:net'
import {tempDir as runTempDir} from '../support/env.js'
import {join} from 'node:path'
import {Writable} from 'node:stream'
import {parse as parseCsv} from 'csv-parse/sync'
import {afterEach, describe, expect, it} from 'vitest'
import type {WebhookEndpoint} from '../../src/api/schemas/webhooks.js'
import type {WebhookCreateInput, WebhooksApi} from '../../src/api/webhooks.js'
import {ApiError, UsageError} from '../../src/errors.js'
import {Output, type Column, type Format} from '../../src/output/index.js'
import {runListen, type ListenOptions} from '../../src/webhooks/listen-command.js'
import {runRotateSecret} from '../../src/webhooks/rotate.js'
import {ROTATIONS_FILE} from '../../src/webhooks/rotation-state.js'
import {InvalidSignatureError, MalformedSignatureError, ReceiverError} from '../../src/webhooks/tools.js'
import {runTrigger} from '../../src/webhooks/trigger-command.js'
import {runVerify} from '../../src/webhooks/verify-command.js'
import {testContext, type ApiDouble, type TestContext, type TestContextOptions} from './context.js'
import {response} from './doubles.js'

const SECRET = 'whsec_unit_commands_secret_value_0001'
const OTHER = 'whsec_unit_commands_secret_value_0002'
/** HMAC computed here, independently of the code under test. */
const hmac = (secret: string, ts: number | string, body: string) => createHmac('sha256', secret).update(`${ts}.${body}`).digest('hex')
const realNow = () => Math.floor(Date.now() / 1000)

const cleanups: Array<() => unknown> = []
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c()
})

function tempDir(): string {
  const dir = runTempDir('payops-hooks-cmd-').path
  cleanups.push(() => rmSync(dir, {recursive: true, force: true}))
  return dir
}

async function until(check: () => boolean, what: () => string, ms = 5_000): Promise<void> {
  const end = Date.now() + ms
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what()}`)
    await new Promise((r) => setTimeout(r, 10))
  }
}

function expectNoSecret(t: TestContext, ...secrets: string[]) {
  for (const s of secrets) expect(t.stdout().includes(s) || t.stderr().includes(s), 'a secret was printed').toBe(false)
}

describe('Output.stream and Output.result', () => {
  function sink() {
    let text = ''
    const stream = new Writable({
      write(chunk: Buffer, _enc, cb) {
        text += chunk.toString()
        cb()
      },
    })
    return {stream, text: () => text}
  }
  const output = (format: Format, o: {columns?: string[]; query?: string} = {}) => {
    const stdout = sink()
    return {out: new Output({format, color: false, stdout: stdout.stream, stderr: sink().stream, ...o}), text: stdout.text}
  }
  const cols: Column[] = [{key: 'id'}, {key: 'note'}]
  const rows = [{id: 'a', note: 'x\u001b[2Jy', n: 1}, {id: 'b', note: 'line\nbreak', n: 2}]

  it('json and ndjson: one compact object per line; csv: one header; table: escaped cells, no header', async () => {
    for (const format of ['json', 'ndjson'] as const) {
      const o = output(format)
      const s = await o.out.stream(cols)
      for (const r of rows) s.write(r)
      expect(o.text()).toBe(rows.map((r) => JSON.stringify(r) + '\n').join(''))
      expect(s.count).toBe(2)
    }
    const csv = output('csv')
    const c = await csv.out.stream(cols)
    for (const r of rows) c.write(r)
    expect(parseCsv(csv.text())).toEqual([['id', 'note'], ['a', 'x\u001b[2Jy'], ['b', 'line\nbreak']])
    const table = output('table')
    const t = await table.out.stream(cols)
    for (const r of rows) t.write(r)
    expect(table.text()).toBe('a  x\\x1b[2Jy\nb  line\\x0abreak\n')
  })

  it('--columns projects and selects; --query applies per row; a bad expression is a usage error before any row', async () => {
    const j = output('ndjson', {columns: ['n', 'id']})
    const s = await j.out.stream(cols)
    s.write(rows[0])
    expect(j.text()).toBe('{"n":1,"id":"a"}\n')
    const q = output('json', {query: '{id: id, twice: [n, n]}'})
    const qs = await q.out.stream(cols)
    for (const r of rows) qs.write(r)
    expect(q.text()).toBe('{"id":"a","twice":[1,1]}\n{"id":"b","twice":[2,2]}\n')
    const qt = output('table', {query: 'id'})
    const qts = await qt.out.stream(cols)
    for (const r of rows) qts.write(r)
    expect(qt.text()).toBe('a\nb\n')
    await expect(output('json', {query: '[?'}).out.stream(cols)).rejects.toThrow(UsageError)
    await expect(output('json', {columns: ['id', ' ']}).out.stream(cols)).rejects.toThrow(/--columns/)
  })

  it('result: the sentence on a terminal, the row otherwise (one line with oneLine)', async () => {
    const row = {valid: true, secret_index: 0}
    const c: Column[] = [{key: 'valid'}, {key: 'secret_index'}]
    const t = output('table')
    await t.out.result(row, c, 'valid')
    expect(t.text()).toBe('valid\n')
    const j = output('json')
    await j.out.result(row, c, 'valid', {oneLine: true})
    expect(j.text()).toBe('{"valid":true,"secret_index":0}\n')
    const pretty = output('json')
    await pretty.out.result(row, c, 'valid')
    expect(pretty.text()).toBe(JSON.stringify(row, null, 2) + '\n')
    const tq = output('table', {query: 'secret_index'})
    await tq.out.result(row, c, 'valid')
    expect(tq.text()).toBe('0\n')
  })
})

describe('runListen', () => {
  const base: ListenOptions = {host: '127.0.0.1', port: 0, path: '/hooks', secret: [SECRET], tolerance: 300, forwardConcurrency: 2, forwardQueue: 10, maxConnections: 64}

  /** Starts the listener through its run function; stop() fires the context's stop signal. */
  async function listen(o: TestContextOptions, opts: Partial<ListenOptions> = {}) {
    // Its own config dir: the event store an earlier run left makes its ids duplicates.
    const t = testContext({configDir: tempDir(), ...o})
    const running = runListen({...base, ...opts}, t.ctx)
    let failed: unknown
    running.catch((err) => (failed = err))
    cleanups.push(async () => {
      t.stop()
      await running.catch(() => undefined)
    })
    await until(() => /Listening on (\S+)/.test(t.stderr()) || failed !== undefined, () => `the listener: ${t.stderr()}`)
    if (failed) throw failed
    const url = /Listening on (\S+)/.exec(t.stderr())![1]
    return {
      t,
      url,
      async stop() {
        t.stop()
        await running
      },
    }
  }

  const send = (url: string, id: string, secret = SECRET, type = 'payin.settled') => {
    const body = JSON.stringify({id, type, data: {payin_id: 'p_1'}})
    const ts = realNow()
    return fetch(url, {method: 'POST', headers: {'content-type': 'application/json', 'x-webhook-signature': hmac(secret, ts, body), 'x-webhook-timestamp': String(ts)}, body})
  }

  it('json: a signed event is one JSON line on stdout; the stop signal prints the summary on stderr', async () => {
    const l = await listen({format: 'json'})
    expect(l.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/hooks$/)
    expect((await send(l.url, 'evt_1')).status).toBe(200)
    expect((await send(l.url, 'evt_bad', OTHER)).status).toBe(401)
    await until(() => l.t.stdout().includes('evt_1'), () => `the event: ${l.t.stdout()}`)
    const lines = l.t.stdout().trim().split('\n')
    expect(lines).toHaveLength(1)
    expect(JSON.parse(lines[0])).toMatchObject({id: 'evt_1', type: 'payin.settled', data: {payin_id: 'p_1'}, secret_index: 0, verified: true})
    expect(Object.keys(JSON.parse(lines[0]))).toEqual(['received_at', 'id', 'type', 'data', 'timestamp', 'secret_index', 'verified'])
    await l.stop()
    expect(l.t.stderr()).toMatch(/rejected 401 bad_signature/)
    expect(l.t.stderr()).toMatch(/Summary: received 2, verified 1, rejected 1 \(bad_signature 1\)/)
    expect(JSON.parse(l.t.stderr().trim().split('\n').at(-1)!).summary).toMatchObject({received: 2, verified: 1, rejected: {bad_signature: 1}})
    expectNoSecret(l.t, SECRET, OTHER)
  })

  it('csv: one header, then a row per event', async () => {
    const l = await listen({format: 'csv'})
    expect((await send(l.url, 'evt_c1')).status).toBe(200)
    expect((await send(l.url, 'evt_c2', SECRET, 'payin.failed')).status).toBe(200)
    await until(() => l.t.stdout().includes('evt_c2'), () => `two rows: ${l.t.stdout()}`)
    await l.stop()
    const [header, ...records] = parseCsv(l.t.stdout()) as string[][]
    expect(header).toEqual(['received_at', 'id', 'type', 'timestamp', 'secret_index', 'data'])
    expect(records.map((r) => [r[1], r[2], r[4], r[5]])).toEqual([
      ['evt_c1', 'payin.settled', '0', '{"payin_id":"p_1"}'],
      ['evt_c2', 'payin.failed', '0', '{"payin_id":"p_1"}'],
    ])
    expect(l.t.stderr()).toMatch(/^\{"summary":\{"received":2,"verified":2/m)
  })

  it('table with two secrets shows which one matched; --columns and --query shape each event', async () => {
    const table = await listen({format: 'table'}, {secret: [OTHER, SECRET]})
    expect((await send(table.url, 'evt_t1')).status).toBe(200)
    await until(() => table.t.stdout().includes('evt_t1'), () => table.t.stdout())
    await table.stop()
    expect(table.t.stdout()).toMatch(/^\S+ {2}payin\.settled {2}evt_t1 {2}\{"payin_id":"p_1"\} {2}\(secret #2\)\n$/)
    expect(table.t.stderr()).toMatch(/2 secrets/)
    expect(table.t.stderr()).not.toMatch(/"summary"/)

    const cols = await listen({format: 'csv', columns: ['id', 'data.payin_id']})
    expect((await send(cols.url, 'evt_k1')).status).toBe(200)
    await until(() => cols.t.stdout().includes('evt_k1'), () => cols.t.stdout())
    await cols.stop()
    expect(cols.t.stdout()).toBe('id,data.payin_id\r\nevt_k1,p_1\r\n')

    const query = await listen({format: 'ndjson', query: '{id: id, payin: data.payin_id}'})
    expect((await send(query.url, 'evt_q1')).status).toBe(200)
    await until(() => query.t.stdout().includes('evt_q1'), () => query.t.stdout())
    await query.stop()
    expect(query.t.stdout()).toBe('{"id":"evt_q1","payin":"p_1"}\n')
  })

  it('usage errors before anything listens: bad --query, bad --path, no secret, unknown --events type', async () => {
    for (const [o, opts] of [
      [{query: '[?'}, {}],
      [{}, {path: 'hooks'}],
      [{}, {secret: undefined}],
      [{}, {events: 'payin.refunded'}],
    ] as Array<[TestContextOptions, Partial<ListenOptions>]>) {
      const t = testContext(o)
      const err = await runListen({...base, ...opts}, t.ctx).catch((e) => e)
      expect(err, JSON.stringify(opts)).toBeInstanceOf(UsageError)
      expect(err.exitCode).toBe(2)
      expect(t.stderr()).not.toMatch(/Listening/)
    }
  })

  it('takes secrets from the context environment and a --secret-file on the context stdin', async () => {
    const fromEnv = await listen({format: 'ndjson', env: {PAYOPS_WEBHOOK_SECRET: SECRET}}, {secret: undefined})
    expect((await send(fromEnv.url, 'evt_e1')).status).toBe(200)
    await fromEnv.stop()
    expect(fromEnv.t.stderr()).not.toMatch(/visible to other users/)
    const fromStdin = await listen({format: 'ndjson', stdin: `${SECRET}\n`}, {secret: undefined, secretFile: ['-']})
    expect((await send(fromStdin.url, 'evt_s1')).status).toBe(200)
    await until(() => fromStdin.t.stdout().includes('evt_s1'), () => fromStdin.t.stdout())
    await fromStdin.stop()
    expectNoSecret(fromStdin.t, SECRET)
  })
})

describe('runVerify', () => {
  const body = JSON.stringify({id: 'evt_v1', type: 'payin.settled', data: {payin_id: 'p_1'}})
  // The fake clock's now, in unix seconds.
  const now = Math.floor(Date.parse('2026-11-23T12:00:00Z') / 1000)
  const opts = (ts = now, secret = SECRET) => ({secret: [secret], timestamp: String(ts), signature: hmac(secret, ts, body)})

  it('valid on stdin: `valid` on a terminal, one JSON line in json, --query on it, a CSV record in csv', async () => {
    const table = testContext({format: 'table', stdin: body})
    await runVerify(opts(), table.ctx)
    expect(table.stdout()).toBe('valid\n')
    const json = testContext({format: 'json', stdin: body})
    await runVerify({...opts(), secret: [OTHER, SECRET]}, json.ctx)
    expect(json.stdout()).toBe('{"valid":true,"secret_index":1}\n')
    const query = testContext({format: 'json', query: 'secret_index', stdin: body})
    await runVerify(opts(), query.ctx)
    expect(query.stdout()).toBe('0\n')
    const csv = testContext({format: 'csv', stdin: body})
    await runVerify(opts(), csv.ctx)
    expect(csv.stdout()).toBe('valid,secret_index\r\ntrue,0\r\n')
    for (const t of [table, json, query, csv]) expectNoSecret(t, SECRET, OTHER)
  })

  it('a bad signature, a changed body or a stale timestamp (by the context clock) is exit 1 with nothing on stdout', async () => {
    const bad = testContext({stdin: body})
    const err = await runVerify({...opts(), signature: hmac(OTHER, now, body)}, bad.ctx).catch((e) => e)
    expect(err.exitCode).toBe(1)
    expect(err).toBeInstanceOf(InvalidSignatureError)
    expect(err.toJSON()).toMatchObject({valid: false, reason: 'bad_signature', exit_code: 1})
    expect(bad.stdout()).toBe('')
    await expect(runVerify({...opts(), secret: [SECRET]}, testContext({stdin: `${body}\n`}).ctx)).rejects.toMatchObject({exitCode: 1, reason: 'bad_signature'})
    await expect(runVerify({...opts(now - 3600), tolerance: 300}, testContext({stdin: body}).ctx)).rejects.toMatchObject({exitCode: 1, reason: 'stale_timestamp'})
    await runVerify({...opts(now - 200), tolerance: 300}, testContext({stdin: body}).ctx)
  })

  it('malformed input is a usage error (exit 2): a timestamp that is not one, no body at a terminal, a missing file', async () => {
    const malformed = await runVerify({...opts(), timestamp: 'soon'}, testContext({stdin: body}).ctx).catch((e) => e)
    expect(malformed).toBeInstanceOf(MalformedSignatureError)
    expect(malformed).toBeInstanceOf(UsageError)
    expect(malformed.exitCode).toBe(2)
    expect(malformed.toJSON()).toMatchObject({valid: false, reason: 'malformed_timestamp'})
    await expect(runVerify({...opts(), signature: ''}, testContext({stdin: body}).ctx)).rejects.toMatchObject({exitCode: 2, reason: 'missing_header'})
    await expect(runVerify(opts(), testContext({stdinIsTTY: true}).ctx)).rejects.toThrow(/--payload-file FILE or on stdin/)
    await expect(runVerify({...opts(), payloadFile: '/nonexistent/body.json'}, testContext().ctx)).rejects.toMatchObject({exitCode: 2})
    await expect(runVerify({...opts(), secret: undefined, secretFile: ['-']}, testContext({stdin: body}).ctx)).rejects.toThrow(/stdin cannot carry both/)
  })

  it('reads --payload-file byte for byte', async () => {
    const file = join(tempDir(), 'body.json')
    writeFileSync(file, body)
    const t = testContext({format: 'ndjson', stdinIsTTY: true})
    await runVerify({...opts(), payloadFile: file}, t.ctx)
    expect(t.stdout()).toBe('{"valid":true,"secret_index":0}\n')
  })
})

describe('runTrigger', () => {
  interface Got {
    headers: IncomingHttpHeaders
    body: string
  }

  /** A receiver answering the given statuses in turn (then 200), recording each request. */
  async function receiver(statuses: Array<[number, string]> = []) {
    const got: Got[] = []
    const server: Server = createServer((req, res) => {
      const chunks: Buffer[] = []
      req.on('data', (c: Buffer) => chunks.push(c))
      req.on('end', () => {
        got.push({headers: req.headers, body: Buffer.concat(chunks).toString('utf8')})
        const [status, text] = statuses.shift() ?? [200, '{"received":true}']
        res.writeHead(status, {'content-type': 'application/json'}).end(text)
      })
    })
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
    cleanups.push(() => new Promise((r) => (server.closeAllConnections(), server.close(r))))
    return {url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/in`, got}
  }

  const now = Math.floor(Date.parse('2026-11-23T12:00:00Z') / 1000)

  it('signs with the context clock and sends; one sentence on a terminal, the send result in json', async () => {
    const r = await receiver()
    const t = testContext({format: 'table'})
    await runTrigger({type: 'subaccount.credit_received', url: r.url, secret: SECRET, data: ['amount_in_minor_units=5000'], id: 'evt_trig_1', timeoutSec: 5}, t.ctx)
    expect(t.stdout()).toBe(`Sent subaccount.credit_received evt_trig_1 to ${r.url}: 200 in 0 ms\n`)
    const [req] = r.got
    expect(req.headers['x-webhook-timestamp']).toBe(String(now))
    expect(req.headers['x-webhook-signature']).toBe(hmac(SECRET, now, req.body))
    expect(JSON.parse(req.body)).toMatchObject({id: 'evt_trig_1', type: 'subaccount.credit_received', data: {amount_in_minor_units: 5000, amount_cents: 5000}})
    expect(t.stderr()).toMatch(/--secret is visible to other users/)

    const j = testContext({format: 'json', env: {PAYOPS_WEBHOOK_SECRET: SECRET}})
    await runTrigger({type: 'payout.failed', url: r.url, timeoutSec: 5}, j.ctx)
    expect(JSON.parse(j.stdout())).toMatchObject({type: 'payout.failed', status: 200, ok: true, url: r.url, timestamp: now, event: {type: 'payout.failed'}})
    expect(j.stdout()).toMatch(/^\{\n {2}"id"/)
    expect(j.stderr()).toBe('')

    const c = testContext({format: 'ndjson', columns: ['id', 'status'], env: {PAYOPS_WEBHOOK_SECRET: SECRET}})
    await runTrigger({type: 'payin.failed', url: r.url, id: 'evt_cols', timeoutSec: 5}, c.ctx)
    expect(c.stdout()).toBe('{"id":"evt_cols","status":200}\n')
    const q = testContext({format: 'table', query: 'status', env: {PAYOPS_WEBHOOK_SECRET: SECRET}})
    await runTrigger({type: 'payin.failed', url: r.url, timeoutSec: 5}, q.ctx)
    expect(q.stdout()).toBe('200\n')
    for (const x of [t, j, c, q]) expectNoSecret(x, SECRET)
  })

  it('a non-2XX answer is printed, then an error whose exit code follows the status; unreachable is exit 7', async () => {
    const r = await receiver([
      [401, '{"error":"bad_signature"}'],
      [404, '{}'],
      [409, '{}'],
      [500, 'oops'],
    ])
    const t = testContext({format: 'table'})
    const err = await runTrigger({type: 'payin.settled', url: r.url, secret: SECRET, timeoutSec: 5}, t.ctx).catch((e) => e)
    expect(err).toBeInstanceOf(ReceiverError)
    expect(err).toBeInstanceOf(ApiError)
    expect(err.exitCode).toBe(3)
    expect(err.describe()).toMatch(/^The receiver answered 401: \{"error":"bad_signature"\}\.$/)
    expect(t.stdout()).toMatch(/: 401 in 0 ms\n$/)
    const codes: number[] = []
    for (let i = 0; i < 3; i++) codes.push((await runTrigger({type: 'payin.settled', url: r.url, secret: SECRET, timeoutSec: 5}, testContext().ctx).catch((e) => e)).exitCode)
    expect(codes).toEqual([4, 5, 1])

    const closed = createServer()
    await new Promise<void>((res) => closed.listen(0, '127.0.0.1', res))
    const port = (closed.address() as AddressInfo).port
    await new Promise((res) => closed.close(res))
    await expect(runTrigger({type: 'payin.settled', url: `http://127.0.0.1:${port}/`, secret: SECRET, timeoutSec: 2}, testContext().ctx)).rejects.toMatchObject({exitCode: 7})
  })

  it('usage errors before sending (exit 2)', async () => {
    const r = await receiver()
    const ok = {type: 'payin.settled', url: r.url, secret: SECRET, timeoutSec: 5}
    for (const bad of [{type: 'payin.refunded'}, {type: 'payin.settled,payin.failed'}, {url: 'ftp://x/'}, {secret: undefined}, {data: ['oops']}, {id: ' '}, {timestamp: 'soon'}]) {
      await expect(runTrigger({...ok, ...bad}, testContext().ctx), JSON.stringify(bad)).rejects.toMatchObject({exitCode: 2})
    }
    expect(r.got).toHaveLength(0)
  })
})

describe('runRotateSecret', () => {
  const BASE = 'http://127.0.0.1:9/'

  /** A webhooks API over a map of endpoints; 404 for an unknown id, as the service answers. */
  function fakeWebhooks(initial: Array<Partial<WebhookEndpoint> & {id: string}> = [{id: 'wh_old'}]) {
    const endpoints = new Map<string, WebhookEndpoint>()
    const endpoint = (e: Partial<WebhookEndpoint> & {id: string}): WebhookEndpoint =>
      ({url: 'https://example.test/hooks', event_types: ['payin.settled'], description: 'mine', is_active: true, created_at: '2026-11-01T00:00:00Z', updated_at: '2026-11-01T00:00:00Z', ...e})
    for (const e of initial) endpoints.set(e.id, endpoint(e))
    const calls: string[] = []
    let n = 0
    const notFound = (id: string) => new ApiError({status: 404, message: `Webhook endpoint ${id} not found`, errorCode: 'NOT_FOUND'})
    const webhooks = {
      get: async (id: string) => {
        calls.push(`get ${id}`)
        const e = endpoints.get(id)
        if (!e) throw notFound(id)
        return response(200, e)
      },
      create: async (input: WebhookCreateInput) => {
        const id = `wh_twin_${++n}`
        calls.push(`create ${id}`)
        const e = endpoint({id, ...input})
        endpoints.set(id, e)
        return response(201, {...e, secret: `whsec_fake_twin_secret_${n}`})
      },
      delete: async (id: string) => {
        calls.push(`delete ${id}`)
        const e = endpoints.get(id)
        if (!e) throw notFound(id)
        endpoints.delete(id)
        return response(200, e)
      },
      setActive: async (id: string, active: boolean) => {
        calls.push(`${active ? 'enable' : 'disable'} ${id}`)
        const e = {...endpoints.get(id)!, is_active: active}
        endpoints.set(id, e)
        return response(200, e)
      },
    } satisfies Partial<WebhooksApi>
    const api: ApiDouble = {client: {baseUrl: new URL(BASE)}, webhooks}
    return {api, endpoints, calls}
  }

  const pending = (dir: string) => {
    try {
      return JSON.parse(readFileSync(join(dir, ROTATIONS_FILE), 'utf8')).rotations
    } catch {
      return []
    }
  }

  it('fresh rotation without a terminal or --yes: the twin and its secret on stdout, the old endpoint kept, the rotation remembered', async () => {
    const dir = tempDir()
    const f = fakeWebhooks([{id: 'wh_old', is_active: false}])
    const t = testContext({api: f.api, configDir: dir})
    await runRotateSecret({id: 'wh_old'}, t.ctx)
    expect(JSON.parse(t.stdout())).toEqual({old_id: 'wh_old', new_id: 'wh_twin_1', url: 'https://example.test/hooks', secret: 'whsec_fake_twin_secret_1', old_deleted: false})
    expect(f.calls).toEqual(['get wh_old', 'create wh_twin_1', 'disable wh_twin_1'])
    expect(f.endpoints.get('wh_twin_1')).toMatchObject({description: 'mine', event_types: ['payin.settled'], is_active: false})
    expect(f.endpoints.has('wh_old')).toBe(true)
    expect(pending(dir)).toEqual([{base_url: BASE, old_id: 'wh_old', new_id: 'wh_twin_1', created_at: '2026-11-23T12:00:00.000Z'}])
    expect(readFileSync(join(dir, ROTATIONS_FILE), 'utf8')).not.toMatch(/whsec_/)
    expect(t.stderr()).toMatch(/store it now/)
    expect(t.stderr()).toMatch(/rotate-secret wh_old --yes/)
  })

  it('an interrupted rotation re-run with --yes reuses the twin (no second one), shows no secret, and deletes the old endpoint', async () => {
    const dir = tempDir()
    const f = fakeWebhooks()
    await runRotateSecret({id: 'wh_old'}, testContext({api: f.api, configDir: dir}).ctx)
    f.calls.length = 0
    const t = testContext({api: f.api, configDir: dir})
    await runRotateSecret({id: 'wh_old', yes: true}, t.ctx)
    expect(f.calls).toEqual(['get wh_old', 'get wh_twin_1', 'delete wh_old'])
    expect(JSON.parse(t.stdout())).toEqual({old_id: 'wh_old', new_id: 'wh_twin_1', url: 'https://example.test/hooks', secret: null, old_deleted: true})
    expect(t.stderr()).toMatch(/cannot be shown again/)
    expect(t.stderr()).toMatch(/Rotation complete: wh_old deleted; wh_twin_1 receives the events/)
    expectNoSecret(t, 'whsec_fake_twin_secret_1')
    expect(pending(dir)).toEqual([])
  })

  it('--replace-twin deletes the pending twin and makes a fresh one with a new secret', async () => {
    const dir = tempDir()
    const f = fakeWebhooks()
    await runRotateSecret({id: 'wh_old'}, testContext({api: f.api, configDir: dir}).ctx)
    f.calls.length = 0
    const t = testContext({api: f.api, configDir: dir})
    await runRotateSecret({id: 'wh_old', replaceTwin: true}, t.ctx)
    expect(f.calls).toEqual(['get wh_old', 'delete wh_twin_1', 'create wh_twin_2'])
    expect(JSON.parse(t.stdout())).toMatchObject({new_id: 'wh_twin_2', secret: 'whsec_fake_twin_secret_2', old_deleted: false})
    expect(t.stderr()).toMatch(/Deleted the twin wh_twin_1/)
    expect(pending(dir)).toMatchObject([{old_id: 'wh_old', new_id: 'wh_twin_2'}])
  })

  it('the old endpoint already deleted: with a pending rotation it is done (nothing sent but a get); without one it is exit 4', async () => {
    const dir = tempDir()
    const f = fakeWebhooks()
    await runRotateSecret({id: 'wh_old'}, testContext({api: f.api, configDir: dir}).ctx)
    f.endpoints.delete('wh_old')
    f.calls.length = 0
    const t = testContext({api: f.api, configDir: dir})
    await runRotateSecret({id: 'wh_old'}, t.ctx)
    expect(f.calls).toEqual(['get wh_old'])
    expect(JSON.parse(t.stdout())).toEqual({old_id: 'wh_old', new_id: 'wh_twin_1', url: null, secret: null, old_deleted: true})
    expect(t.stderr()).toMatch(/already deleted: the rotation finished earlier/)
    expect(pending(dir)).toEqual([])
    await expect(runRotateSecret({id: 'wh_old'}, testContext({api: f.api, configDir: dir}).ctx)).rejects.toMatchObject({exitCode: 4})
  })

  it('at a terminal the secret is shown before the question; no keeps the old endpoint, yes deletes it', async () => {
    const dir = tempDir()
    const f = fakeWebhooks()
    const no = testContext({api: f.api, configDir: dir, format: 'table', interactive: true, answers: ['n']})
    await runRotateSecret({id: 'wh_old'}, no.ctx)
    expect(no.stdout().split('\n')[0]).toBe('New signing secret of wh_twin_1: whsec_fake_twin_secret_1')
    expect(no.stdout()).toMatch(/OLD ENDPOINT\s+wh_old/)
    expect(no.stdout().match(/whsec_fake_twin_secret_1/g)).toHaveLength(1)
    expect(no.asked).toEqual(['Your receiver now accepts the new secret? Delete the old endpoint wh_old now?'])
    expect(f.endpoints.has('wh_old')).toBe(true)
    expect(no.stderr()).toMatch(/is kept/)

    const yes = testContext({api: f.api, configDir: dir, format: 'json', interactive: true, answers: ['y']})
    await runRotateSecret({id: 'wh_old'}, yes.ctx)
    expect(JSON.parse(yes.stdout())).toMatchObject({new_id: 'wh_twin_1', secret: null, old_deleted: true})
    expect(f.endpoints.has('wh_old')).toBe(false)
  })

  it('on a LIVE key without a terminal nothing is created (exit 3); --query shapes the result', async () => {
    const f = fakeWebhooks()
    await expect(runRotateSecret({id: 'wh_old'}, testContext({api: f.api, configDir: tempDir(), live: true}).ctx)).rejects.toMatchObject({exitCode: 3})
    expect(f.calls).toEqual(['get wh_old'])
    const q = testContext({api: f.api, configDir: tempDir(), query: 'new_id'})
    await runRotateSecret({id: 'wh_old', yes: true}, q.ctx)
    expect(q.stdout()).toBe('"wh_twin_1"\n')
  })
})
