/**
 * Property-based fuzzing of the emulator's HTTP surface: random methods, documented and junk
 * paths, headers, and bodies (field-shaped JSON, deeply nested JSON, random bytes, oversized
 * bodies), with and without valid keys. Every request gets a 2xx or 4xx answer on an intact
 * connection (5xx or a reset only right after a write to /_emulator/faults, which injects them),
 * and the server still answers normally at the end.
 */
import {request} from 'node:http'
import fc from 'fast-check'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {Faults, RequestLog, Router, startEmulator, type RunningEmulator} from '../src/index.js'
import {EventBus} from '../src/webhooks/events.js'
import {TransportFaults} from '../src/faults/transport.js'
import {MAX_JSON_DEPTH, nestsDeeperThan} from '../src/server/http.js'
import {registerRoutes} from '../src/routes/index.js'
import {createSeededStore} from '../src/store/seed.js'

let em: RunningEmulator
let host: string
let port: number
let readOnlyKey: string
const ids: string[] = []
/** How many of `ids` come from the seed (never evicted). */
let SEEDED_IDS = 0
const logged: string[] = []

/** Every documented route, as `METHOD /pattern/:param`. */
const ROUTES = registerRoutes(new Router(), {
  store: createSeededStore(),
  requests: new RequestLog(), faults: new Faults(),
  events: new EventBus(),
  transport: new TransportFaults(),
  log: () => undefined,
  onClose: [],
}).list()

interface Answer {
  status: number
  dropped?: string
}

function send(method: string, path: string, headers: Record<string, string>, body?: Buffer): Promise<Answer> {
  return new Promise((resolve) => {
    let req
    try {
      req = request({host: '127.0.0.1', port, method, path, headers, agent: false, setHost: false, timeout: 15_000})
    } catch (err) {
      // The client refused to build the request (invalid characters): nothing reached the server.
      resolve({status: -1, dropped: `client: ${(err as Error).message}`})
      return
    }
    req.on('response', (res) => {
      const chunks: Buffer[] = []
      res.on('data', (d: Buffer) => chunks.push(d))
      res.on('end', () => {
        harvest(res.statusCode ?? 0, Buffer.concat(chunks))
        resolve({status: res.statusCode ?? 0})
      })
      res.on('error', (err) => resolve({status: res.statusCode ?? 0, dropped: err.message}))
    })
    req.on('timeout', () => req.destroy(new Error('timed out')))
    req.on('error', (err) => resolve({status: 0, dropped: err.message}))
    req.end(body)
  })
}

/** Ids of what successful requests created or listed join the pool that paths and bodies draw from. */
function harvest(status: number, body: Buffer): void {
  if (status < 200 || status >= 300 || body.length === 0 || body.length > 1_000_000) return
  let parsed: unknown
  try {
    parsed = JSON.parse(body.toString('utf8'))
  } catch {
    return
  }
  const data = typeof parsed === 'object' && parsed !== null && 'data' in parsed ? parsed.data : undefined
  const items: unknown[] = Array.isArray(data) ? data.slice(0, 5) : [data]
  for (const item of items) {
    const id = typeof item === 'object' && item !== null && 'id' in item ? item.id : undefined
    if (typeof id === 'string' && !ids.includes(id)) {
      if (ids.length >= 400) ids.splice(SEEDED_IDS, 1)
      ids.push(id)
    }
  }
}

// ---- arbitraries ----

const FIELDS = [
  'name', 'from_subaccount_id', 'to_subaccount_id', 'amount_in_minor_units', 'amount_in_cents', 'currency_code', 'auto_approve',
  'client_metadata', 'idempotency_key', 'label', 'rail', 'sender_info', 'subaccount_id', 'transaction_date', 'from_account_id',
  'to_account_id', 'scheduled_date', 'url', 'event_types', 'description', 'enabled', 'payee_id', 'payer_id', 'party_id', 'party_type',
  'entity', 'read_only', 'count', 'status', 'type', 'data', 'records', 'base_delay_ms', 'max_attempts', 'timeout_ms', 'rate', 'kinds',
  'phases', 'seed', 'latency_ms', 'delay_ms', 'methods', 'retry_after', 'email', '__proto__', 'constructor',
] as const

const id = fc.oneof(
  // Real ids, read once the emulator runs (the arbitrary is only sampled in the test).
  fc.nat().map((i) => ids[i % ids.length]),
  fc.uuid(),
  fc.string({maxLength: 40}),
)

const scalar = fc.oneof(
  fc.integer({min: -5, max: 100_000}),
  fc.double(),
  fc.constantFrom('USD', 'EUR', 'JPY', 'wire', 'standard_ach', 'test', 'live', 'test_other', 'payer', 'payee', 'settled', 'failed', 'approved', '', true, false, null),
  fc.string({maxLength: 30}),
  id,
)

const value = fc.oneof({weight: 4, arbitrary: scalar}, {weight: 1, arbitrary: fc.jsonValue({maxDepth: 3})}, {weight: 1, arbitrary: fc.array(scalar, {maxLength: 4})})

const date = fc.oneof(fc.date({min: new Date('2020-01-01'), max: new Date('2030-12-31'), noInvalidDate: true}).map((d) => d.toISOString().slice(0, 10)), fc.string({maxLength: 12}))

/** A plausible value per request field, so that many requests get past validation. */
const plausible: Record<string, fc.Arbitrary<unknown>> = {
  name: fc.string({minLength: 1, maxLength: 20}),
  from_subaccount_id: id,
  to_subaccount_id: id,
  subaccount_id: id,
  from_account_id: id,
  to_account_id: id,
  payee_id: id,
  payer_id: id,
  party_id: id,
  amount_in_minor_units: fc.integer({min: 1, max: 100_000}),
  amount_in_cents: fc.integer({min: 1, max: 100_000}),
  currency_code: fc.constantFrom('USD', 'USD', 'EUR', 'GBP', 'INR', 'JPY'),
  auto_approve: fc.boolean(),
  client_metadata: fc.dictionary(fc.string({maxLength: 8}), fc.string({maxLength: 8}), {maxKeys: 3}),
  idempotency_key: fc.string({maxLength: 20}),
  label: fc.string({minLength: 1, maxLength: 20}),
  rail: fc.constantFrom('standard_ach', 'same_day_ach', 'wire', 'rtp', 'swift'),
  sender_info: fc.string({maxLength: 20}),
  transaction_date: date,
  scheduled_date: date,
  // Deliveries go to a closed loopback port: refused at once, never to the outside.
  url: fc.constantFrom('http://127.0.0.1:9/hook', 'http://localhost:9/', 'https://127.0.0.1:9/x'),
  event_types: fc.array(fc.constantFrom('payin.settled', 'payin.failed', 'payout.settled', 'payout.failed', 'move.settled', 'bogus'), {minLength: 1, maxLength: 3}),
  description: fc.string({maxLength: 20}),
  enabled: fc.boolean(),
  party_type: fc.constantFrom('payer', 'payee', 'external'),
  entity: fc.constantFrom('test', 'test', 'test_other', 'live'),
  read_only: fc.boolean(),
  count: fc.integer({min: -1, max: 20}),
  status: fc.constantFrom('approved', 'initiated', 'settled', 'failed', 'canceled', 'returned', 'created'),
  type: fc.constantFrom('payin.settled', 'payin.failed', 'payout.settled', 'payout.failed'),
  data: fc.dictionary(fc.string({maxLength: 8}), scalar, {maxKeys: 3}),
  records: fc.array(fc.record({name: fc.string({maxLength: 10}), email: fc.constantFrom('a@example.com', 'nope'), has_default: fc.boolean()}), {maxLength: 3}),
  base_delay_ms: fc.integer({min: 0, max: 50}),
  max_attempts: fc.integer({min: 1, max: 3}),
  timeout_ms: fc.integer({min: 1, max: 200}),
  rate: fc.double({min: 0, max: 1, noNaN: true}),
  kinds: fc.subarray(['500', '502', '503', '504', '429', 'reset', 'latency']),
  phases: fc.subarray(['before', 'after']),
  seed: fc.integer(),
  latency_ms: fc.integer({min: 0, max: 20}),
  delay_ms: fc.integer({min: 0, max: 50}),
  methods: fc.subarray(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']),
  retry_after: fc.integer({min: 0, max: 2}),
  email: fc.constantFrom('payer@example.com', 'x'),
}

/** Every field with a plausible value, then some dropped and some replaced by random values. */
const fieldObject = fc
  .tuple(fc.record(plausible, {requiredKeys: []}), fc.dictionary(fc.constantFrom(...FIELDS), value, {maxKeys: 3}))
  .map(([base, noise]) => {
    const out: Record<string, unknown> = {}
    for (const [k, v] of [...Object.entries(base), ...Object.entries(noise)]) Object.defineProperty(out, k, {value: v, enumerable: true, writable: true, configurable: true})
    return out
  })

/** A body with JSON nested `depth` levels deep, alone or as one field of a plausible body (built as text). */
const deepJson = fc
  .record({
    depth: fc.oneof({weight: 6, arbitrary: fc.integer({min: 1, max: 5000})}, {weight: 1, arbitrary: fc.integer({min: 5000, max: 400_000})}),
    kind: fc.constantFrom('array', 'object', 'field'),
    field: fc.constantFrom('data', 'data', 'client_metadata', 'records', ...FIELDS),
    base: fieldObject,
  })
  .map(({depth, kind, field, base}) => {
    const inner = kind === 'object' ? '{"a":'.repeat(Math.min(depth, 150_000)) + '1' + '}'.repeat(Math.min(depth, 150_000)) : '['.repeat(depth) + ']'.repeat(depth)
    if (kind !== 'field') return Buffer.from(inner)
    return Buffer.from(JSON.stringify({...base, [field]: 0}).replace(`"${field}":0`, `"${field}":${inner}`))
  })

const oversized = fc.record({size: fc.integer({min: 1024 * 1024 - 64, max: 3 * 1024 * 1024}), json: fc.boolean()}).map(({size, json}) => {
  if (!json) return Buffer.alloc(size, 0x61)
  return Buffer.from(`{"name":"${'x'.repeat(Math.max(0, size - 11))}"}`)
})

const body = fc.oneof(
  {weight: 4, arbitrary: fc.constant(undefined)},
  {
    weight: 10,
    arbitrary: fc.tuple(fieldObject, fc.constantFrom('', '', '', '"__proto__":{"polluted":true},', '"constructor":{"prototype":{"polluted":true}},')).map(([o, pre]) => {
      const text = JSON.stringify(o)
      return Buffer.from(pre && text.length > 2 ? `{${pre}${text.slice(1)}` : text)
    }),
  },
  {weight: 2, arbitrary: fc.jsonValue({maxDepth: 4}).map((v) => Buffer.from(JSON.stringify(v) ?? ''))},
  {weight: 2, arbitrary: deepJson},
  {weight: 2, arbitrary: fc.uint8Array({maxLength: 2048}).map((a) => Buffer.from(a))},
  {weight: 1, arbitrary: oversized},
)

const segment = fc.oneof(
  fc.constantFrom('..', '.', '', '%', '%2F', '%00', '%ZZ', '%E0%A4%A', 'move', 'approve', '_emulator', 'api', '~', '*'),
  fc.string({maxLength: 12}).map(encodeURIComponent),
  fc.string({unit: 'binary', maxLength: 8}).map((s) => encodeURIComponent(s).replace(/%2F/g, '/')),
)

const method = fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS', 'TRACE', 'PURGE')

/** A documented route with its parameters filled (mostly with its own method), or junk. */
const target = fc.oneof(
  {
    weight: 8,
    arbitrary: fc.constantFrom(...ROUTES).chain((route) => {
      const [own, pattern] = route.split(' ')
      const params = pattern.split('/').filter((s) => s.startsWith(':')).length
      const param = fc.oneof({weight: 4, arbitrary: id.map(encodeURIComponent)}, {weight: 1, arbitrary: segment})
      return fc
        .tuple(fc.oneof({weight: 6, arbitrary: fc.constant(own)}, {weight: 1, arbitrary: method}), fc.array(param, {minLength: params, maxLength: params}), fc.constantFrom('', '', '/'))
        .map(([m, vals, slash]) => {
          let i = 0
          return {method: m, path: pattern.replace(/:[^/]+/g, () => vals[i++] || 'x') + slash}
        })
    }),
  },
  {weight: 2, arbitrary: fc.tuple(method, fc.array(segment, {maxLength: 6})).map(([m, segs]) => ({method: m, path: '/' + segs.join('/')}))},
  {weight: 1, arbitrary: fc.tuple(method, fc.array(segment, {maxLength: 4})).map(([m, segs]) => ({method: m, path: '/_emulator/' + segs.join('/')}))},
  {weight: 1, arbitrary: fc.tuple(method, fc.array(segment, {maxLength: 4})).map(([m, segs]) => ({method: m, path: '/api/' + segs.join('/')}))},
)

const query = fc.oneof(
  {weight: 3, arbitrary: fc.constant('')},
  {
    weight: 2,
    arbitrary: fc
      .array(fc.tuple(fc.constantFrom('limit', 'cursor', 'order', 'status', 'rail', 'account', 'entity', 'amount_in_minor_units_gte', 'created_at_lte', 'transaction_date_gte', 'event_id', 'endpoint_id', 'x'), fc.oneof(scalar.map(String), segment)), {maxLength: 4})
      .map((pairs) => '?' + pairs.map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('&')),
  },
)

const printable = fc.string({maxLength: 40}).map((s) => s.replace(/[^\x20-\x7e]/g, ''))

const sometimes = <T>(arb: fc.Arbitrary<T>, weight = 8) => fc.oneof({weight, arbitrary: fc.constant(undefined)}, {weight: 1, arbitrary: arb})

const headers = fc.record({
  key: fc.oneof({weight: 6, arbitrary: fc.constant('test' as const)}, {weight: 1, arbitrary: fc.constantFrom('test_other', 'live', 'read_only', 'junk', 'none')}),
  contentType: fc.oneof(
    {weight: 8, arbitrary: fc.constant('application/json')},
    {weight: 2, arbitrary: fc.constantFrom('application/json; charset=utf-8', 'text/plain', 'application/x-www-form-urlencoded', 'none', 'junk/; ;')},
  ),
  idempotency: sometimes(printable, 3),
  origin: sometimes(fc.constantFrom('http://evil.example', 'null', 'http://127.0.0.1:3000', 'http://localhost')),
  badHost: sometimes(fc.constantFrom('evil.example', '', 'localhost:99999x', '[::1', 'localhost')),
  extra: sometimes(fc.tuple(fc.constantFrom('x-request-id', 'accept', 'transfer-encoding', 'expect', 'if-none-match', 'range'), printable), 3),
})

type HeaderChoice = typeof headers extends fc.Arbitrary<infer T> ? T : never

function buildHeaders(h: HeaderChoice, hasBody: boolean): Record<string, string> {
  const out: Record<string, string> = {host: h.badHost ?? host}
  if (h.key !== 'none') out['x-api-key'] = h.key === 'junk' ? 'test_junk' : h.key === 'read_only' ? readOnlyKey : em.keys[h.key]
  if (h.contentType !== 'none') out['content-type'] = h.contentType
  if (h.idempotency !== undefined) out['idempotency-key'] = h.idempotency
  if (h.origin !== undefined) out.origin = h.origin
  if (h.extra) {
    const [name, v] = h.extra
    // Framing headers with made-up values would only test the client; keep them well-formed.
    if (name === 'transfer-encoding') {
      if (hasBody) out[name] = 'chunked'
    } else if (name === 'expect') {
      out[name] = '100-continue'
    } else {
      out[name] = v
    }
  }
  return out
}

beforeAll(async () => {
  em = await startEmulator({port: 0, log: (l) => logged.push(l)})
  const url = new URL(em.baseUrl)
  host = url.host
  port = Number(url.port)
  const ents = await fetch(`${em.baseUrl}/_emulator/entities`).then((r) => r.json() as Promise<{data: Array<{id: string; subaccount_ids: string[]; treasury_account_ids: string[]}>}>)
  for (const e of ents.data) ids.push(e.id, ...e.subaccount_ids, ...e.treasury_account_ids)
  for (const list of ['/api/payees', '/api/payers', '/api/payins']) {
    const r = await fetch(`${em.baseUrl}${list}?limit=5`, {headers: {'x-api-key': em.keys.test}})
    harvest(r.status, Buffer.from(await r.arrayBuffer()))
  }
  SEEDED_IDS = ids.length
  const ro = await fetch(`${em.baseUrl}/_emulator/keys`, {method: 'POST', headers: {'content-type': 'application/json'}, body: JSON.stringify({entity: 'test', read_only: true})})
  readOnlyKey = ((await ro.json()) as {key: string}).key
})

afterAll(async () => {
  await em?.close()
})

/** Nesting depth of a JSON value (0 for a scalar). */
function depthOf(v: unknown): number {
  if (v === null || typeof v !== 'object') return 0
  const kids = Array.isArray(v) ? v : Object.values(v)
  return 1 + Math.max(0, ...kids.map(depthOf))
}

describe('body nesting limit', () => {
  it('measures nesting like JSON does (strings and escapes included)', () => {
    fc.assert(
      fc.property(fc.jsonValue({maxDepth: 8}), fc.integer({min: 0, max: 10}), (v, max) => {
        const text = JSON.stringify(v)
        expect(nestsDeeperThan(text, max)).toBe(depthOf(v) > max)
      }),
      {numRuns: 300},
    )
    expect(nestsDeeperThan('{"a":"[[[[{{\\\\\\"[["}', 1)).toBe(false)
  })

  // Found by fuzzing: a body nested ~400,000 levels deep (under 1 MB) parsed fine, but the event
  // built from it could not be serialised: 500 INTERNAL_ERROR.
  it('answers 400 to a deeply nested body on a route that stores it, and keeps working', async () => {
    const deep = 400_000
    const body = `{"entity":"test","type":"payin.settled","data":{"a":${'['.repeat(deep)}${']'.repeat(deep)}}}`
    const res = await send('POST', '/_emulator/events', {host, 'content-type': 'application/json'}, Buffer.from(body))
    expect(res).toEqual({status: 400})
    const shallow = `{"entity":"test","type":"payin.settled","data":{"a":${'['.repeat(MAX_JSON_DEPTH - 2)}${']'.repeat(MAX_JSON_DEPTH - 2)}}}`
    expect(await send('POST', '/_emulator/events', {host, 'content-type': 'application/json'}, Buffer.from(shallow))).toEqual({status: 201})
    expect(logged.filter((l) => /internal error/.test(l))).toEqual([])
  })
})

describe('emulator HTTP fuzz', () => {
  it('answers every request with 2xx or 4xx on an intact connection, and keeps serving', async () => {
    await fc.assert(
      fc.asyncProperty(target, query, headers, body, async ({method: m, path: p}, q, h, b) => {
        const hasBody = b !== undefined && m !== 'GET' && m !== 'HEAD'
        const reqHeaders = buildHeaders(h, hasBody)
        const answer = await send(m, p + q, reqHeaders, hasBody ? b : undefined)
        if (answer.status === -1) return // the client would not send it
        const armsFaults = p.replace(/\/+$/, '') === '/_emulator/faults' && m !== 'GET' && m !== 'HEAD' && answer.status < 300
        if (armsFaults) {
          // Transport faults may now be armed; disarm them for the next run.
          const off = await send('DELETE', '/_emulator/faults', {host, 'content-type': 'application/json'})
          expect(off.status).toBe(200)
        }
        expect(answer.dropped, `${m} ${p}${q}`).toBeUndefined()
        expect(answer.status >= 200 && answer.status < 500, `${m} ${p}${q} -> ${answer.status}`).toBe(true)
      }),
      {numRuns: 300, interruptAfterTimeLimit: 25_000},
    )
    expect(logged.filter((l) => /internal error|failed to answer/.test(l))).toEqual([])
    const ok = await send('GET', '/api/treasury/accounts', {host, 'x-api-key': em.keys.test})
    expect(ok.status).toBe(200)
  }, 60_000)
})
