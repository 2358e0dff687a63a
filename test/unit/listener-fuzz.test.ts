/**
 * Property-based fuzzing of the webhook listener, in process on 127.0.0.1:0 with a --forward-to
 * target that records what it gets. Random bodies (JSON nested up to a few thousand levels, random
 * bytes up to a few MB, envelopes with hostile ids and types) with random headers (valid, forged,
 * malformed or missing signatures and timestamps) and random methods and paths, sent in small
 * concurrent batches. Properties: every request is answered 2XX, 4XX, or 503 (forward queue full);
 * nothing unverified is ever accepted or forwarded; the listener stays up and still accepts a
 * normal signed event at the end. Bounded: a few hundred runs, a few seconds.
 */
import {createHmac} from 'node:crypto'
import {Agent, createServer, request, type IncomingHttpHeaders, type Server} from 'node:http'
import {connect} from 'node:net'
import fc from 'fast-check'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {MAX_BODY_BYTES, MAX_EVENT_DEPTH} from '../../src/webhooks/limits.js'
import {WebhookListener, type AcceptedEvent} from '../../src/webhooks/listener.js'
import {printer} from './listener-printer.js'

const SECRET = 'whsec_unit_fuzz_secret_value_000000001'
const OTHER = 'whsec_unit_fuzz_secret_value_000000002'
const TOLERANCE = 300
const now = () => Math.floor(Date.now() / 1000)

/** HMAC computed here, independently of the code under test. */
const hmac = (secret: string, ts: string, body: Buffer) => createHmac('sha256', secret).update(`${ts}.`).update(body).digest('hex')

let listener: WebhookListener
let url: URL
let target: Server
const forwarded: Array<{headers: IncomingHttpHeaders; body: Buffer}> = []
/** Every body sent with a valid signature (base64), so a forwarded body can be traced to one. */
const sentSigned = new Set<string>()
const printed: string[] = []
const agent = new Agent({keepAlive: true, maxSockets: 8})

beforeAll(async () => {
  target = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      forwarded.push({headers: req.headers, body: Buffer.concat(chunks)})
      // Slow enough, now and then, for the small queue to fill.
      setTimeout(() => res.end('ok'), forwarded.length % 5 === 0 ? 60 : 5)
    })
  })
  await new Promise<void>((r) => target.listen(0, '127.0.0.1', r))
  const table = await printer('table')
  const ndjson = await printer('ndjson')
  listener = new WebhookListener({
    host: '127.0.0.1',
    port: 0,
    path: '/hooks',
    secrets: [SECRET],
    toleranceSec: TOLERANCE,
    forwardTo: `http://127.0.0.1:${(target.address() as {port: number}).port}/in`,
    forwardConcurrency: 2,
    forwardQueue: 3,
    onEvent: (e) => {
      // What the command prints, both ways; kept short.
      const line = table(e) + ndjson(e)
      if (printed.length < 50) printed.push(line)
    },
    log: () => undefined,
  })
  url = new URL(await listener.start())
})

afterAll(async () => {
  agent.destroy()
  await listener?.close(500)
  await new Promise((r) => (target.closeAllConnections(), target.close(r)))
})

/** Cheap deterministic bytes (xorshift), so multi-MB bodies cost little to generate. */
function bytes(size: number, seed: number): Buffer {
  const b = Buffer.allocUnsafe(size)
  let x = seed | 1
  for (let i = 0; i < size; i++) {
    x ^= x << 13
    x ^= x >>> 17
    x ^= x << 5
    b[i] = x & 0xff
  }
  return b
}

const nestedJson = (depth: number, leaf: string) => '['.repeat(depth) + leaf + ']'.repeat(depth)

type Body = {kind: string; body: Buffer; depth?: number}

const hostileText = fc.string({unit: 'binary', minLength: 0, maxLength: 24})
const envelopeBody: fc.Arbitrary<Body> = fc
  .record({
    id: fc.oneof(hostileText, fc.constantFrom('evt_a', 'evt_b', 'evt_\u001b[2J', 'evt_\u202e')),
    type: fc.oneof(fc.constantFrom('payin.settled', 'payout.failed'), hostileText),
    depth: fc.oneof({weight: 3, arbitrary: fc.integer({min: 0, max: MAX_EVENT_DEPTH + 2})}, {weight: 1, arbitrary: fc.integer({min: 0, max: 3000})}),
    leaf: fc.json({maxDepth: 2}),
  })
  .map(({id, type, depth, leaf}) => {
    const text = `{"id":${JSON.stringify(id)},"type":${JSON.stringify(type)},"data":{"x":${nestedJson(depth, leaf)}}}`
    // The envelope is level 1, data level 2, x's arrays from level 3; the leaf may nest further.
    return {kind: 'envelope', body: Buffer.from(text), depth}
  })
const anyJson: fc.Arbitrary<Body> = fc.json({maxDepth: 6}).map((t) => ({kind: 'json', body: Buffer.from(t)}))
const deepJson: fc.Arbitrary<Body> = fc.record({d: fc.integer({min: 1, max: 4000}), open: fc.constantFrom('[', '{"a":')}).map(({d, open}) => ({
  kind: 'deep',
  body: Buffer.from(open === '[' ? nestedJson(d, '0') : open.repeat(d) + '0' + '}'.repeat(d)),
}))
const randomBytes: fc.Arbitrary<Body> = fc
  .record({size: fc.oneof({weight: 6, arbitrary: fc.integer({min: 0, max: 4096})}, {weight: 1, arbitrary: fc.integer({min: 0, max: 3 * 1024 * 1024})}), seed: fc.integer()})
  .map(({size, seed}) => ({kind: 'bytes', body: bytes(size, seed)}))
const bigEnvelope: fc.Arbitrary<Body> = fc.integer({min: MAX_BODY_BYTES - 2048, max: MAX_BODY_BYTES + 2048}).map((n) => {
  const head = '{"id":"evt_big_' + n + '","type":"payin.settled","data":{"pad":"'
  return {kind: 'big', body: Buffer.from(head + 'x'.repeat(Math.max(0, n - head.length - 3)) + '"}}')}
})
const bodyArb = fc.oneof({weight: 6, arbitrary: envelopeBody}, {weight: 2, arbitrary: anyJson}, {weight: 2, arbitrary: deepJson}, {weight: 2, arbitrary: randomBytes}, {weight: 1, arbitrary: bigEnvelope})

type SigMode = 'valid' | 'other_secret' | 'random_hex' | 'garbage' | 'missing_sig' | 'stale' | 'future' | 'bad_ts' | 'missing_ts' | 'upper_hex' | 'wrong_ts'
const printable = fc.string({unit: 'binary-ascii', maxLength: 80}).map((s) => s.replace(/[^\x20-\x7e]/g, ''))
const sigArb = fc.record({
  mode: fc.oneof({weight: 10, arbitrary: fc.constant<SigMode>('valid')}, {weight: 1, arbitrary: fc.constantFrom<SigMode>('other_secret', 'random_hex', 'garbage', 'missing_sig', 'stale', 'future', 'bad_ts', 'missing_ts', 'upper_hex', 'wrong_ts')}),
  hex: fc.stringMatching(/^[0-9a-f]{64}$/),
  junk: printable,
})
const extraHeaders = fc.dictionary(fc.stringMatching(/^x-fuzz-[a-z0-9]{1,10}$/), printable, {maxKeys: 4})
const methodArb = fc.oneof({weight: 12, arbitrary: fc.constant('POST')}, {weight: 1, arbitrary: fc.constantFrom('PUT', 'GET', 'DELETE', 'PATCH')})
const pathArb = fc.oneof({weight: 12, arbitrary: fc.constant('/hooks')}, {weight: 1, arbitrary: fc.constantFrom('/', '/hooks/', '/hooks?x=1', '/other', '/%00', '/hooks#x')})
const requestArb = fc.record({body: bodyArb, sig: sigArb, headers: extraHeaders, method: methodArb, path: pathArb, contentType: fc.constantFrom('application/json', 'text/plain', '')})
type Req = typeof requestArb extends fc.Arbitrary<infer T> ? T : never

function headersFor(r: Req): {headers: Record<string, string>; signed: boolean} {
  const ts = String(now())
  const h: Record<string, string> = {...r.headers}
  if (r.contentType) h['content-type'] = r.contentType
  const m = r.sig.mode
  const tsUsed = m === 'stale' ? String(now() - TOLERANCE - 60) : m === 'future' ? String(now() + TOLERANCE + 60) : ts
  let signature: string | undefined = hmac(m === 'other_secret' ? OTHER : SECRET, tsUsed, r.body.body)
  if (m === 'random_hex') signature = r.sig.hex
  if (m === 'garbage') signature = r.sig.junk
  if (m === 'upper_hex') signature = signature.toUpperCase()
  if (m === 'missing_sig') signature = undefined
  let timestamp: string | undefined = tsUsed
  if (m === 'bad_ts') timestamp = r.sig.junk
  if (m === 'missing_ts') timestamp = undefined
  if (m === 'wrong_ts') timestamp = String(Number(tsUsed) - 1)
  if (signature !== undefined) h['x-webhook-signature'] = signature
  if (timestamp !== undefined) h['x-webhook-timestamp'] = timestamp
  const signed = m === 'valid' || (m === 'random_hex' && signature === hmac(SECRET, tsUsed, r.body.body))
  return {headers: h, signed}
}

function send(r: Req): Promise<{status: number; body: string}> {
  const {headers, signed} = headersFor(r)
  if (signed) sentSigned.add(r.body.body.toString('base64'))
  return new Promise((resolve, reject) => {
    const req = request({host: '127.0.0.1', port: url.port, path: r.path, method: r.method, headers: {...headers, 'content-length': String(r.body.body.length)}, agent}, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('end', () => resolve({status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8')}))
      res.on('error', reject)
    })
    req.on('error', reject)
    req.end(r.body.body)
  })
}

describe('listener fuzz', () => {
  it('answers every request 2XX, 4XX or 503, accepts and forwards only verified events, and stays up', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(requestArb, {minLength: 1, maxLength: 6}), async (batch) => {
        const answers = await Promise.all(batch.map((r) => send(r)))
        answers.forEach((a, i) => {
          const r = batch[i]
          const {signed} = headersFor(r)
          const ok = (a.status >= 200 && a.status < 300) || (a.status >= 400 && a.status < 500) || a.status === 503
          expect(ok, `status ${a.status} for a ${r.body.kind} body`).toBe(true)
          if (a.status === 503) expect(JSON.parse(a.body).error).toBe('queue_full')
          if (a.status < 300) {
            // Only a verified POST on the path is accepted.
            expect(signed, `a ${r.sig.mode} ${r.body.kind} request was answered ${a.status}`).toBe(true)
            expect(r.method).toBe('POST')
            expect(r.body.body.length).toBeLessThanOrEqual(MAX_BODY_BYTES)
          }
          if (signed && r.method === 'POST' && r.path.startsWith('/hooks') && !r.path.startsWith('/hooks/') && !r.path.startsWith('/hooks#') && r.body.kind === 'envelope' && (r.body.depth ?? 0) + 2 > MAX_EVENT_DEPTH) {
            expect(a.status).toBe(400)
          }
        })
      }),
      {numRuns: 250, interruptAfterTimeLimit: 25_000},
    )
    // Raw bytes on a socket: the HTTP parser's rejections are answered 400 (or the socket closed).
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({minLength: 1, maxLength: 512}), async (raw) => {
        const got = await new Promise<string>((resolve) => {
          const s = connect(Number(url.port), '127.0.0.1', () => s.end(Buffer.from(raw)))
          let text = ''
          s.on('data', (d) => (text += d))
          s.on('error', () => undefined)
          s.on('close', () => resolve(text))
        })
        if (got) expect(got).toMatch(/^HTTP\/1\.1 (4\d\d|503) /)
      }),
      {numRuns: 60, interruptAfterTimeLimit: 5_000},
    )

    // Still up: a normal signed event is accepted and forwarded.
    const body = Buffer.from('{"id":"evt_fuzz_final","type":"payin.settled","data":{"payin_id":"p"}}')
    let final = await send({body: {kind: 'envelope', body}, sig: {mode: 'valid', hex: '', junk: ''}, headers: {}, method: 'POST', path: '/hooks', contentType: 'application/json'})
    for (let i = 0; final.status === 503 && i < 50; i++) {
      await new Promise((r) => setTimeout(r, 50))
      final = await send({body: {kind: 'envelope', body}, sig: {mode: 'valid', hex: '', junk: ''}, headers: {}, method: 'POST', path: '/hooks', contentType: 'application/json'})
    }
    expect(final.status).toBe(200)
    const end = Date.now() + 5_000
    while (!forwarded.some((f) => f.body.equals(body)) && Date.now() < end) await new Promise((r) => setTimeout(r, 20))
    expect(forwarded.some((f) => f.body.equals(body))).toBe(true)

    // Nothing unverified was ever forwarded: each forwarded body carries a valid, fresh signature
    // and is byte for byte one that was sent validly signed.
    expect(forwarded.length).toBeGreaterThan(0)
    for (const f of forwarded) {
      const ts = f.headers['x-webhook-timestamp'] as string
      expect(f.headers['x-webhook-signature']).toBe(hmac(SECRET, ts, f.body))
      expect(Math.abs(now() - Number(ts))).toBeLessThanOrEqual(TOLERANCE)
      expect(sentSigned.has(f.body.toString('base64'))).toBe(true)
    }
    const s = listener.stats
    const rejected = Object.values(s.rejected).reduce((a, b) => a + (b ?? 0), 0)
    expect(s.received).toBeGreaterThanOrEqual(s.verified + rejected)
    expect(s.forwarded + s.forward_failed).toBeLessThanOrEqual(s.verified)
  }, 60_000)
})
