/**
 * `webhooks listen` under a slow-connection flood, on loopback: hundreds of sockets that send half
 * a request header and stall (from another address, from many, and from the sender's own address),
 * over HTTP and HTTPS. A signed delivery sent while they are open is still answered and handed on,
 * and the flood's sockets are closed: by the connection limits at once, or by Node's header
 * timeout. Loopback has a whole /8, so other senders are 127.0.0.2 and up.
 */
import {execFileSync} from 'node:child_process'
import {createHmac} from 'node:crypto'
import {readFileSync} from 'node:fs'
import {request as httpsRequest} from 'node:https'
import {connect, type Socket} from 'node:net'
import {join} from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'
import {DEFAULT_MAX_CONNECTIONS, DEFAULT_MAX_CONNECTIONS_PER_ADDRESS} from '../../src/webhooks/limits.js'
import {WebhookListener, type AcceptedEvent, type ListenerOptions} from '../../src/webhooks/listener.js'
import {tempDir} from '../support/env.js'

const SECRET = 'whsec_unit_flood_secret_0000000001'
const FLOOD = 500
const HALF_HEADER = 'POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Webhook-Timestamp: 17'

const now = () => Math.floor(Date.now() / 1000)
/** HMAC computed here, independently of the code under test. */
const sig = (body: string, ts: number) => createHmac('sha256', SECRET).update(`${ts}.`).update(body).digest('hex')
const envelope = (id: string) => JSON.stringify({id, type: 'payin.settled', data: {payin_id: 'p1'}})
const signedHeaders = (body: string) => {
  const ts = now()
  return {'content-type': 'application/json', 'x-webhook-signature': sig(body, ts), 'x-webhook-timestamp': String(ts)}
}

const cleanups: Array<() => Promise<unknown> | unknown> = []
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c()
})

async function until(check: () => boolean, what: () => string, ms = 20_000): Promise<void> {
  const end = Date.now() + ms
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what()}`)
    await new Promise((r) => setTimeout(r, 10))
  }
}

async function startListener(extra: Partial<ListenerOptions> = {}) {
  const logs: string[] = []
  const events: AcceptedEvent[] = []
  const l = new WebhookListener({host: '127.0.0.1', port: 0, path: '/', secrets: [SECRET], toleranceSec: 300, onEvent: (e) => events.push(e), log: (s) => logs.push(s), ...extra})
  const url = await l.start()
  cleanups.push(() => l.close(200))
  return {l, url, port: Number(new URL(url).port), logs, events}
}

interface Flood {
  sockets: Socket[]
  closed(): number
  open(): number
  /** What the server wrote to the flood's sockets (a 408 when the header timeout closed one). */
  answers: string[]
}

/** `count` sockets, spread over `addresses`, each sending `first` (if any) and then nothing. */
function flood(port: number, addresses: string[], count = FLOOD, first: string | undefined = HALF_HEADER): Flood {
  let closed = 0
  const answers: string[] = []
  const sockets: Socket[] = []
  for (let i = 0; i < count; i++) {
    const s = connect({port, host: '127.0.0.1', localAddress: addresses[i % addresses.length]})
    if (first !== undefined) s.once('connect', () => s.write(first))
    let got = ''
    s.on('data', (d: Buffer) => (got += d.toString('latin1')))
    s.on('error', () => undefined)
    s.once('close', () => {
      closed++
      if (got) answers.push(got)
    })
    sockets.push(s)
  }
  cleanups.push(() => sockets.forEach((s) => s.destroy()))
  return {sockets, answers, closed: () => closed, open: () => count - closed}
}

const tooMany = (logs: string[]) => logs.filter((s) => s.includes('too_many_connections'))

describe('a slow-connection flood does not starve signed deliveries', () => {
  it(`${FLOOD} stalled sockets from one other address: ${DEFAULT_MAX_CONNECTIONS_PER_ADDRESS} kept, the rest closed at once; a delivery is served while they are open`, async () => {
    // Timeouts of a minute: within this test only the limits can close a connection.
    const {l, url, port, logs, events} = await startListener({headersTimeoutMs: 60_000, requestTimeoutMs: 60_000})
    const f = flood(port, ['127.0.0.2'])
    const kept = DEFAULT_MAX_CONNECTIONS_PER_ADDRESS
    await until(() => f.closed() === FLOOD - kept && l.openConnections === kept, () => `${FLOOD - kept} closed (got ${f.closed()}), ${kept} open (got ${l.openConnections})`)
    // Closed unanswered: nothing was read from them.
    expect(f.answers).toEqual([])

    const body = envelope('evt_during_flood')
    const res = await fetch(url, {method: 'POST', headers: signedHeaders(body), body})
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({received: true})
    expect(events.map((e) => e.event.id)).toEqual(['evt_during_flood'])
    // The flood was still open while the delivery was served.
    expect(f.open()).toBe(kept)
    expect(l.stats.rejected.too_many_connections).toBe(FLOOD - kept)
    // Logged a line a second with the count, not a line per connection.
    expect(tooMany(logs).length).toBeGreaterThan(0)
    expect(tooMany(logs).length).toBeLessThan(10)
    expect(tooMany(logs)[0]).toMatch(/^rejected too_many_connections: closed \d+ connections? over the limit of 256 open at once and 64 per address/)
  }, 60_000)

  it(`${FLOOD} stalled sockets from ten addresses: the overall cap of ${DEFAULT_MAX_CONNECTIONS} makes room for the delivery by closing the longest-waiting`, async () => {
    const {l, url, port, events} = await startListener({headersTimeoutMs: 60_000, requestTimeoutMs: 60_000})
    const addresses = Array.from({length: 10}, (_, i) => `127.0.0.${i + 2}`)
    const f = flood(port, addresses)
    await until(() => f.closed() === FLOOD - DEFAULT_MAX_CONNECTIONS && l.openConnections === DEFAULT_MAX_CONNECTIONS, () => `${DEFAULT_MAX_CONNECTIONS} open (got ${l.openConnections}, ${f.closed()} closed)`)
    // The first sockets of the flood waited longest: they were the ones closed.
    expect(f.sockets.slice(0, FLOOD - DEFAULT_MAX_CONNECTIONS).every((s) => s.destroyed)).toBe(true)
    expect(f.sockets.slice(FLOOD - DEFAULT_MAX_CONNECTIONS).some((s) => s.destroyed)).toBe(false)

    const body = envelope('evt_overall_cap')
    const res = await fetch(url, {method: 'POST', headers: signedHeaders(body), body})
    expect(res.status).toBe(200)
    expect(events.map((e) => e.event.id)).toEqual(['evt_overall_cap'])
    // One more flood socket made room for the delivery's connection.
    await until(() => f.open() === DEFAULT_MAX_CONNECTIONS - 1, () => `${DEFAULT_MAX_CONNECTIONS - 1} flood sockets open (got ${f.open()})`)
    expect(l.stats.rejected.too_many_connections).toBe(FLOOD - DEFAULT_MAX_CONNECTIONS + 1)
  }, 60_000)

  it("from the sender's own address, with Node's header timeout: the delivery is served and every flood socket is closed (at once, or with 408)", async () => {
    const {l, url, port, logs, events} = await startListener({headersTimeoutMs: 1_000, requestTimeoutMs: 60_000})
    const f = flood(port, ['127.0.0.1'])
    const body = envelope('evt_same_address')
    const res = await fetch(url, {method: 'POST', headers: signedHeaders(body), body})
    expect(res.status).toBe(200)
    expect(events.map((e) => e.event.id)).toEqual(['evt_same_address'])

    await until(() => f.closed() === FLOOD, () => `every flood socket closed (got ${f.closed()})`)
    // Those the limit did not close, the header timeout did, with an answer.
    const timedOut = l.stats.rejected.request_timeout ?? 0
    expect(timedOut).toBeGreaterThan(0)
    expect((l.stats.rejected.too_many_connections ?? 0) + timedOut).toBe(FLOOD)
    expect(f.answers.length).toBe(timedOut)
    for (const a of f.answers) expect(a).toMatch(/^HTTP\/1\.1 408 Request Timeout/)
    expect(logs.filter((s) => s.includes('request_timeout')).length).toBeLessThan(10)
    expect(tooMany(logs).length).toBeLessThan(10)
    // And it still serves.
    const again = envelope('evt_after_flood')
    expect((await fetch(url, {method: 'POST', headers: signedHeaders(again), body: again})).status).toBe(200)
    expect(events.map((e) => e.event.id)).toEqual(['evt_same_address', 'evt_after_flood'])
  }, 60_000)

  it('over HTTPS: sockets that never finish the TLS handshake do not shut out a delivery', async () => {
    const dir = tempDir()
    cleanups.push(() => dir.cleanup())
    const key = join(dir.path, 'key.pem')
    const cert = join(dir.path, 'cert.pem')
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'], {stdio: 'pipe'})
    const {l, url, port, events} = await startListener({headersTimeoutMs: 60_000, requestTimeoutMs: 60_000, tls: {cert: readFileSync(cert), key: readFileSync(key)}})
    // Half a TLS record header, then nothing: the handshake never completes.
    const f = flood(port, ['127.0.0.1'], FLOOD, '\u0016\u0003\u0001')
    const kept = DEFAULT_MAX_CONNECTIONS_PER_ADDRESS
    await until(() => f.closed() === FLOOD - kept && l.openConnections === kept, () => `${kept} open (got ${l.openConnections}, ${f.closed()} closed)`)

    const body = envelope('evt_tls_flood')
    const status = await new Promise<number>((resolve, reject) => {
      const req = httpsRequest(url, {method: 'POST', headers: signedHeaders(body), ca: readFileSync(cert), agent: false}, (res) => {
        res.resume()
        res.on('end', () => resolve(res.statusCode ?? 0))
      })
      req.on('error', reject)
      req.end(body)
    })
    expect(status).toBe(200)
    expect(events.map((e) => e.event.id)).toEqual(['evt_tls_flood'])
    // The delivery's connection took the place of the longest-waiting flood socket.
    expect(f.open()).toBeLessThan(kept)
  }, 60_000)
})
