import {createServer, type IncomingMessage, type Server} from 'node:http'
import type {AddressInfo} from 'node:net'
import {afterAll, afterEach, beforeAll, describe, expect, it} from 'vitest'
import {EventTypeEntry, WebhookEndpoint, WebhookEndpointWithSecret, verify} from './oracle.js'
import type {DeliveryAttempt} from '../src/webhooks/delivery.js'
import {startEmulator, type RunningEmulator} from '../src/index.js'
import {caller, type Res} from './helpers.js'

let em: RunningEmulator
/** Refuses connections at once: endpoints that must never reach the network. */
const NOWHERE = 'https://127.0.0.1:1'

const call = caller(() => em)

const control = (method: string, path: string, body?: unknown) => call(method, path, {body, key: 'none'})

interface Received {
  headers: IncomingMessage['headers']
  body: string
}

/** A receiver that answers with the next status of `statuses` (then 200). */
async function receiver(statuses: number[] = []): Promise<{url: string; got: Received[]; server: Server}> {
  const got: Received[] = []
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      got.push({headers: req.headers, body: Buffer.concat(chunks).toString('utf8')})
      res.writeHead(statuses.shift() ?? 200).end()
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  servers.push(server)
  return {url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`, got, server}
}

const servers: Server[] = []

async function until<T>(fn: () => T | Promise<T>, ok: (v: T) => boolean, ms = 5000): Promise<T> {
  const end = Date.now() + ms
  for (;;) {
    const v = await fn()
    if (ok(v)) return v
    if (Date.now() > end) throw new Error(`condition not met in ${ms} ms: ${JSON.stringify(v)}`)
    await new Promise((r) => setTimeout(r, 20))
  }
}

async function createHook(url: string, event_types: string[], key?: string): Promise<WebhookEndpointWithSecret> {
  const res = await call('POST', '/api/webhooks', {body: {url, event_types, description: 'unit'}, key})
  expect(res.status).toBe(201)
  return WebhookEndpointWithSecret.parse(res.body.data)
}

beforeAll(async () => {
  em = await startEmulator({port: 0, log: () => undefined})
})
afterEach(async () => {
  await control('POST', '/_emulator/webhooks/retry-policy', {base_delay_ms: 5000, max_attempts: 6, timeout_ms: 10_000})
})
afterAll(async () => {
  await em?.close()
  for (const s of servers) s.closeAllConnections(), s.close()
})

describe('webhook endpoints', () => {
  it('create returns the secret once; get, list and update never do', async () => {
    const hook = await createHook(`${NOWHERE}/a`, ['payin.settled', 'payin.failed', 'payin.settled'])
    expect(hook.secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/)
    expect(hook.event_types).toEqual(['payin.failed', 'payin.settled'])
    expect(hook.is_active).toBe(true)
    const got = await call('GET', `/api/webhooks/${hook.id}`)
    expect(got.status).toBe(200)
    expect(WebhookEndpoint.parse(got.body.data).id).toBe(hook.id)
    expect(JSON.stringify(got.body)).not.toContain(hook.secret)
    const list = await call('GET', '/api/webhooks?limit=500')
    expect(list.body.data.some((w: WebhookEndpoint) => w.id === hook.id)).toBe(true)
    expect(JSON.stringify(list.body)).not.toContain('whsec_')
    const upd = await call('PATCH', `/api/webhooks/${hook.id}`, {body: {event_types: ['subaccount.credit_received', 'payout.debited']}})
    expect(upd.status).toBe(200)
    expect(upd.body.data).toMatchObject({url: `${NOWHERE}/a`, description: 'unit', event_types: ['payout.debited', 'subaccount.credit_received']})
    expect(JSON.stringify(upd.body)).not.toContain('whsec_')
    const cleared = await call('PATCH', `/api/webhooks/${hook.id}`, {body: {description: ''}})
    expect(cleared.body.data.description).toBeNull()
  })

  it('validation: https only (loopback http allowed), catalog event types, non-empty list', async () => {
    const bad = [
      {url: 'http://example.com/', event_types: ['payin.settled']},
      {url: `${NOWHERE}/`, event_types: ['payin.refunded']},
      {url: `${NOWHERE}/`, event_types: []},
      {url: `${NOWHERE}/`},
      {event_types: ['payin.settled']},
    ]
    for (const body of bad) {
      const r = await call('POST', '/api/webhooks', {body})
      expect(r.status).toBe(400)
      expect(r.body.error_code).toBe('VALIDATION_ERROR')
    }
    for (const url of ['http://127.0.0.1:9/x', 'http://localhost/x', 'http://[::1]:9/']) expect((await call('POST', '/api/webhooks', {body: {url, event_types: ['payin.settled']}})).status).toBe(201)
    const hook = await createHook(`${NOWHERE}/v`, ['payin.settled'])
    expect((await call('PATCH', `/api/webhooks/${hook.id}`, {body: {url: 'http://example.com/'}})).status).toBe(400)
    expect((await call('PATCH', `/api/webhooks/${hook.id}`, {body: {event_types: []}})).status).toBe(400)
  })

  it('unknown ids and other entities\' ids are 404 on every route', async () => {
    const hook = await createHook(`${NOWHERE}/mine`, ['payin.settled'])
    for (const id of [hook.id, '00000000-0000-4000-8000-000000000000']) {
      const key = id === hook.id ? em.keys.test_other : undefined
      expect((await call('GET', `/api/webhooks/${id}`, {key})).status).toBe(404)
      expect((await call('PATCH', `/api/webhooks/${id}`, {key, body: {description: 'x'}})).status).toBe(404)
      expect((await call('DELETE', `/api/webhooks/${id}`, {key})).status).toBe(404)
      expect((await call('POST', `/api/webhooks/${id}/enable`, {key})).status).toBe(404)
      expect((await call('POST', `/api/webhooks/${id}/disable`, {key})).status).toBe(404)
    }
    const others = await call('GET', '/api/webhooks', {key: em.keys.test_other})
    expect(others.body.data.some((w: WebhookEndpoint) => w.id === hook.id)).toBe(false)
  })

  it('enable/disable toggle is_active idempotently; delete returns the endpoint, then 404', async () => {
    const hook = await createHook(`${NOWHERE}/t`, ['payin.settled'])
    expect((await call('POST', `/api/webhooks/${hook.id}/disable`)).body.data.is_active).toBe(false)
    expect((await call('POST', `/api/webhooks/${hook.id}/disable`)).body.data.is_active).toBe(false)
    expect((await call('POST', `/api/webhooks/${hook.id}/enable`)).body.data.is_active).toBe(true)
    const del = await call('DELETE', `/api/webhooks/${hook.id}`)
    expect(del.status).toBe(200)
    expect(del.body.data.id).toBe(hook.id)
    expect((await call('GET', `/api/webhooks/${hook.id}`)).status).toBe(404)
  })

  it('serves the event-type catalog', async () => {
    const r = await call('GET', '/api/webhooks/event-types')
    expect(r.status).toBe(200)
    expect(r.body.data.map((e: EventTypeEntry) => e.type)).toContain('subaccount.credit_received')
    expect(r.body.has_more).toBe(false)
    expect((await call('GET', '/api/webhooks/event-types', {key: 'test_bogus_key_0000000000'})).status).toBe(401)
  })

  it('paginates the list', async () => {
    const list = await call('GET', '/api/webhooks?limit=2&order=asc')
    expect(list.body.data).toHaveLength(2)
    expect(list.body.has_more).toBe(true)
    const next = await call('GET', `/api/webhooks?limit=2&order=asc&cursor=${list.body.next_cursor}`)
    expect(next.body.data[0].id).not.toBe(list.body.data[0].id)
    expect((await call('GET', '/api/webhooks?limit=0')).status).toBe(400)
  })
})

describe('deliveries', () => {
  beforeAll(async () => {
    expect((await control('POST', '/_emulator/reset', {})).status).toBe(200)
  })

  it('signs and sends the raw envelope to each active endpoint whose allowlist holds the type', async () => {
    const r1 = await receiver()
    const r2 = await receiver()
    const r3 = await receiver()
    const a = await createHook(r1.url, ['payin.settled'])
    const b = await createHook(r2.url, ['payin.settled', 'payin.failed'])
    const c = await createHook(r3.url, ['payin.failed'])
    const off = await createHook(r3.url, ['payin.settled'])
    await call('POST', `/api/webhooks/${off.id}/disable`)
    const other = await createHook(r3.url, ['payin.settled'], em.keys.test_other)
    const emitted = await control('POST', '/_emulator/events', {entity: 'test', type: 'payin.settled', data: {payin_id: 'p-1'}})
    expect(emitted.status).toBe(201)
    const evt = emitted.body.data
    await until(() => r1.got.length + r2.got.length, (n) => n === 2)
    for (const [r, hook] of [
      [r1, a],
      [r2, b],
    ] as const) {
      const got = r.got[0]
      expect(JSON.parse(got.body)).toEqual({id: evt.id, type: 'payin.settled', data: {payin_id: 'p-1'}})
      expect(got.headers['content-type']).toBe('application/json')
      const v = verify({secrets: [hook.secret], signature: got.headers['x-webhook-signature'] as string, timestamp: got.headers['x-webhook-timestamp'] as string, rawBody: got.body, toleranceSec: 60})
      expect(v).toEqual({ok: true, secretIndex: 0})
      // Signed with that endpoint's own secret, not another's.
      expect(verify({secrets: [c.secret], signature: got.headers['x-webhook-signature'] as string, timestamp: got.headers['x-webhook-timestamp'] as string, rawBody: got.body}).ok).toBe(false)
    }
    await new Promise((r) => setTimeout(r, 100))
    expect(r3.got).toHaveLength(0)
    const attempts = await control('GET', `/_emulator/webhook-deliveries?event_id=${evt.id}`)
    expect(attempts.body.data.map((x: DeliveryAttempt) => x.endpoint_id).sort()).toEqual([a.id, b.id].sort())
    expect(attempts.body.data.every((x: DeliveryAttempt) => x.status === 200 && x.attempt === 1 && x.ok)).toBe(true)
    expect(other.id).toBeDefined()
  })

  it('retries non-2XX and unreachable receivers with the same id and body, re-signed', async () => {
    await control('POST', '/_emulator/webhooks/retry-policy', {base_delay_ms: 30, max_attempts: 3})
    const r = await receiver([500, 503])
    const hook = await createHook(r.url, ['payout.failed'])
    const evt = (await control('POST', '/_emulator/events', {entity: 'test', type: 'payout.failed'})).body.data
    await until(() => r.got.length, (n) => n === 3)
    expect(new Set(r.got.map((g) => g.body)).size).toBe(1)
    expect(JSON.parse(r.got[0].body).id).toBe(evt.id)
    for (const g of r.got) {
      expect(verify({secrets: [hook.secret], signature: g.headers['x-webhook-signature'] as string, timestamp: g.headers['x-webhook-timestamp'] as string, rawBody: g.body}).ok).toBe(true)
    }
    const log = await until(
      () => control('GET', `/_emulator/webhook-deliveries?endpoint_id=${hook.id}`),
      (x) => x.body.data.length === 3,
    )
    expect(log.body.data.map((x: DeliveryAttempt) => [x.attempt, x.status])).toEqual([
      [1, 500],
      [2, 503],
      [3, 200],
    ])
    expect(log.body.data[0].next_attempt_at).toBeDefined()

    const dead = await createHook('http://127.0.0.1:1/nothing', ['payout.failed'])
    const evt2 = (await control('POST', '/_emulator/events', {entity: 'test', type: 'payout.failed'})).body.data
    const failed = await until(
      () => control('GET', `/_emulator/webhook-deliveries?endpoint_id=${dead.id}&event_id=${evt2.id}`),
      (x) => x.body.data.length === 3,
    )
    expect(failed.body.data.every((x: DeliveryAttempt) => typeof x.error === 'string' && x.ok === false)).toBe(true)
    await new Promise((res) => setTimeout(res, 200))
    expect((await control('GET', `/_emulator/webhook-deliveries?endpoint_id=${dead.id}`)).body.data).toHaveLength(3)
  })

  it('a deleted or disabled endpoint receives no further retries', async () => {
    await control('POST', '/_emulator/webhooks/retry-policy', {base_delay_ms: 150, max_attempts: 5})
    const r = await receiver([500, 500, 500, 500, 500])
    const hook = await createHook(r.url, ['payout.settled'])
    await control('POST', '/_emulator/events', {entity: 'test', type: 'payout.settled'})
    await until(() => r.got.length, (n) => n === 1)
    await call('DELETE', `/api/webhooks/${hook.id}`)
    await new Promise((res) => setTimeout(res, 600))
    expect(r.got).toHaveLength(1)
  })

  it('control routes validate their input', async () => {
    expect((await control('POST', '/_emulator/events', {entity: 'test', type: 'payin.refunded'})).status).toBe(400)
    expect((await control('POST', '/_emulator/events', {entity: 'nobody', type: 'payin.settled'})).status).toBe(400)
    expect((await control('POST', '/_emulator/webhooks/retry-policy', {max_attempts: 0})).status).toBe(400)
    expect((await control('GET', '/_emulator/webhooks/retry-policy')).body.data).toMatchObject({max_attempts: 6, base_delay_ms: 5000, timeout_ms: 10_000})
  })

  it('close() cancels pending retries and in-flight requests without hanging', async () => {
    const em2 = await startEmulator({port: 0, log: () => undefined})
    const hanging = createServer(() => undefined) // never answers
    await new Promise<void>((r) => hanging.listen(0, '127.0.0.1', r))
    servers.push(hanging)
    const url = `http://127.0.0.1:${(hanging.address() as AddressInfo).port}/`
    const failing = await receiver([500, 500, 500])
    const post = (path: string, body: unknown) =>
      fetch(em2.baseUrl + path, {method: 'POST', headers: {'x-api-key': em2.keys.test, 'content-type': 'application/json'}, body: JSON.stringify(body)})
    await post('/api/webhooks', {url, event_types: ['payin.failed']})
    await post('/api/webhooks', {url: failing.url, event_types: ['payin.failed']})
    await post('/_emulator/events', {entity: 'test', type: 'payin.failed'})
    await until(() => failing.got.length, (n) => n === 1)
    const started = Date.now()
    await em2.close()
    expect(Date.now() - started).toBeLessThan(2000)
  })
})
