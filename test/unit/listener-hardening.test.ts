import {execFileSync} from 'node:child_process'
import {createHmac} from 'node:crypto'
import {constants, writeFileSync} from 'node:fs'
import {open} from 'node:fs/promises'
import {createServer, type IncomingMessage, type Server, type ServerResponse} from 'node:http'
import {connect, type Socket} from 'node:net'
import {join} from 'node:path'
import {Readable} from 'node:stream'
import {afterEach, describe, expect, it} from 'vitest'
import {UsageError} from '../../src/errors.js'
import {ForwardQueue} from '../../src/webhooks/forward-queue.js'
import {readBounded} from '../../src/webhooks/input.js'
import {MAX_BODY_BYTES, MAX_EVENT_DEPTH} from '../../src/webhooks/limits.js'
import {RecentIds, WebhookListener, decide, formatSummary, type AcceptedEvent, type ListenerOptions} from '../../src/webhooks/listener.js'
import {SECRET_FLAG_NOTE, secretsFromFlags} from '../../src/webhooks/options.js'
import {escapeControls, jsonDepth} from '../../src/webhooks/safety.js'
import {tempDir} from '../support/env.js'
import {printer} from './listener-printer.js'

const SECRET = 'whsec_unit_hardening_secret_00001'
const now = () => Math.floor(Date.now() / 1000)

/** HMAC computed here, independently of the code under test. */
const sig = (body: string | Buffer, ts: number | string, secret = SECRET) => createHmac('sha256', secret).update(`${ts}.`).update(body).digest('hex')
const nested = (depth: number) => '['.repeat(depth) + ']'.repeat(depth)
const envelope = (id: string, dataJson = '{"payin_id":"p1"}', type = 'payin.settled') => `{"id":${JSON.stringify(id)},"type":${JSON.stringify(type)},"data":${dataJson}}`

const cleanups: Array<() => Promise<unknown> | unknown> = []
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c()
})

async function startListener(extra: Partial<ListenerOptions> = {}) {
  const logs: string[] = []
  const events: AcceptedEvent[] = []
  const l = new WebhookListener({host: '127.0.0.1', port: 0, path: '/', secrets: [SECRET], toleranceSec: 300, onEvent: (e) => events.push(e), log: (s) => logs.push(s), ...extra})
  const url = await l.start()
  cleanups.push(() => l.close(200))
  return {l, url, logs, events}
}

async function post(url: string, body: string | Buffer, headers: Record<string, string> = {}) {
  const res = await fetch(url, {method: 'POST', headers: {'content-type': 'application/json', ...headers}, body: typeof body === 'string' ? body : new Uint8Array(body)})
  return {status: res.status, headers: res.headers, body: await res.text()}
}

const signedPost = (url: string, body: string, ts = now()) => post(url, body, {'x-webhook-signature': sig(body, ts), 'x-webhook-timestamp': String(ts)})

/** A forward target that holds every request until released. */
async function slowTarget() {
  const got: string[] = []
  const held: ServerResponse[] = []
  let hold = true
  const server: Server = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      got.push(Buffer.concat(chunks).toString('utf8'))
      if (hold) held.push(res)
      else res.end('ok')
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  cleanups.push(() => new Promise((r) => (server.closeAllConnections(), server.close(r))))
  return {
    url: `http://127.0.0.1:${(server.address() as {port: number}).port}/in`,
    got,
    release() {
      hold = false
      for (const r of held.splice(0)) r.end('ok')
    },
  }
}

async function until(check: () => boolean, ms = 5_000) {
  const end = Date.now() + ms
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out')
    await new Promise((r) => setTimeout(r, 10))
  }
}

describe('jsonDepth and escapeControls', () => {
  it('counts nesting without parsing, skipping brackets inside strings', () => {
    const d = (s: string) => jsonDepth(Buffer.from(s))
    expect(d('1')).toBe(0)
    expect(d('{}')).toBe(1)
    expect(d('{"a":[1,{"b":[]}]}')).toBe(4)
    expect(d('{"a":"[[[[{{{{"}')).toBe(1)
    expect(d('{"a":"\\"[[[["}')).toBe(1)
    expect(d('{"a":"\\\\"}')).toBe(1)
    expect(d(nested(5000))).toBe(5000)
    expect(jsonDepth(Buffer.from(nested(5000)), 64)).toBe(65)
    expect(d(']]]][[')).toBe(2)
  })

  it('makes control characters, ANSI escapes and bidi overrides visible', () => {
    expect(escapeControls('evt_\u001b[2J\u001b[31mred\u0007')).toBe('evt_\\x1b[2J\\x1b[31mred\\x07')
    expect(escapeControls('a\r\nb\u009bc\u202ed\u007f')).toBe('a\\x0d\\x0ab\\x9bc\\u202ed\\x7f')
    expect(escapeControls('plain évènement ✓')).toBe('plain évènement ✓')
  })

  it('the table line escapes event text; JSON lines stay exact', async () => {
    const accepted: AcceptedEvent = {event: {id: 'evt_\u001b]0;pwned\u0007', type: 'payin.settled\u001b[2K', data: {note: '\u009b31m\u202e'}}, timestamp: '1', secretIndex: 0, receivedAt: 'T'}
    const table = (await printer('table'))(accepted)
    expect(table).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202e]/)
    expect(table).toContain('evt_\\x1b]0;pwned\\x07')
    expect(table).toContain('payin.settled\\x1b[2K')
    const json = JSON.parse((await printer('ndjson'))(accepted))
    expect(json.id).toBe(accepted.event.id)
  })
})

describe('decide: depth and admission', () => {
  const opts = (extra = {}) => ({secrets: [SECRET], seen: new RecentIds(), ...extra})

  it(`rejects a signed event nested deeper than ${MAX_EVENT_DEPTH} levels with 400 too_deep, before parsing`, () => {
    const ts = String(now())
    const deep = envelope('evt_deep', `{"x":${nested(5000)}}`)
    expect(decide(sig(deep, ts), ts, Buffer.from(deep), opts())).toMatchObject({outcome: 'rejected', status: 400, reason: 'too_deep'})
    // At the limit: the envelope is level 1, data level 2.
    const edge = envelope('evt_edge', `{"x":${nested(MAX_EVENT_DEPTH - 2)}}`)
    expect(decide(sig(edge, ts), ts, Buffer.from(edge), opts()).outcome).toBe('accepted')
    const over = envelope('evt_over', `{"x":${nested(MAX_EVENT_DEPTH - 1)}}`)
    expect(decide(sig(over, ts), ts, Buffer.from(over), opts())).toMatchObject({reason: 'too_deep'})
    // An unsigned deep body is a bad signature: nothing of it is looked at.
    expect(decide('0'.repeat(64), ts, Buffer.from(deep), opts())).toMatchObject({reason: 'bad_signature'})
  })

  it('a refused admission is 503 queue_full and leaves the id unrecorded, so the retry is accepted', () => {
    const ts = String(now())
    const body = envelope('evt_retry')
    const seen = new RecentIds()
    expect(decide(sig(body, ts), ts, Buffer.from(body), opts({seen, admit: () => false}))).toMatchObject({status: 503, reason: 'queue_full'})
    expect(seen.has('evt_retry')).toBe(false)
    expect(decide(sig(body, ts), ts, Buffer.from(body), opts({seen, admit: () => true})).outcome).toBe('accepted')
    // Duplicates and filtered types need no room: they are answered 200 even when full.
    expect(decide(sig(body, ts), ts, Buffer.from(body), opts({seen, admit: () => false})).outcome).toBe('duplicate')
  })
})

describe('bounded by design', () => {
  it('remembers event ids within a byte budget: a long id is kept as its digest, the oldest go first', () => {
    const seen = new RecentIds(100_000, 10_000)
    const huge = (i: number) => `evt_${i}_${'x'.repeat(1024 * 1024)}`
    for (let i = 0; i < 50; i++) seen.add(huge(i))
    expect(seen.storedChars).toBeLessThanOrEqual(10_000)
    expect(seen.has(huge(49))).toBe(true)
    expect(seen.seen(huge(49))).toBe(true)
    for (let i = 0; i < 2000; i++) seen.add(`evt_short_${i}`)
    expect(seen.storedChars).toBeLessThanOrEqual(10_000)
    expect(seen.has('evt_short_1999')).toBe(true)
    expect(seen.has('evt_short_0')).toBe(false)
    expect(seen.has(huge(49))).toBe(false)
  })

  it('a flood of rejected requests logs one line a second per reason, with the count', async () => {
    const {url, logs, l} = await startListener()
    const body = envelope('evt_flood')
    const statuses: number[] = []
    for (let round = 0; round < 15; round++) {
      statuses.push(...(await Promise.all(Array.from({length: 20}, () => post(url, body, {'x-webhook-signature': '0'.repeat(64), 'x-webhook-timestamp': String(now())}).then((r) => r.status)))))
    }
    expect(new Set(statuses)).toEqual(new Set([401]))
    await l.close(200)
    const lines = logs.filter((line) => line.includes('bad_signature'))
    expect(lines.length).toBeGreaterThanOrEqual(1)
    expect(lines.length).toBeLessThanOrEqual(5)
    const counted = lines.reduce((n, line) => n + Number(/^(\d+) requests rejected/.exec(line)?.[1] ?? 1), 0)
    expect(counted).toBe(300)
    expect(lines.slice(1).every((line) => /^\d+ requests rejected \(bad_signature\) in the last second; the latest: rejected 401 bad_signature/.test(line))).toBe(true)
  })
})

describe('ForwardQueue', () => {
  it('runs at most `concurrency` jobs, queues at most `capacity`, refuses the rest, and drains', async () => {
    let running = 0
    let peak = 0
    const release: Array<() => void> = []
    const q = new ForwardQueue<number>(2, 3, async () => {
      running++
      peak = Math.max(peak, running)
      await new Promise<void>((r) => release.push(r))
      running--
    })
    const taken = Array.from({length: 10}, (_, i) => q.offer(i))
    expect(taken).toEqual([true, true, true, true, true, false, false, false, false, false])
    expect(q.inFlight).toBe(2)
    expect(q.queued).toBe(3)
    expect(q.hasRoom).toBe(false)
    expect(q.retryAfterSeconds()).toBeGreaterThanOrEqual(1)
    expect(q.retryAfterSeconds()).toBeLessThanOrEqual(60)
    while (q.inFlight + q.queued > 0) {
      release.splice(0).forEach((r) => r())
      await new Promise((r) => setTimeout(r, 5))
    }
    expect(peak).toBe(2)
    expect(await q.drain(100)).toBe(true)
  })

  it('a job that throws does not stop the queue; stop() drops the waiting jobs', async () => {
    const done: number[] = []
    const q = new ForwardQueue<number>(1, 5, async (n) => {
      if (n === 0) throw new Error('boom')
      done.push(n)
    })
    q.offer(0)
    q.offer(1)
    expect(await q.drain(1_000)).toBe(true)
    expect(done).toEqual([1])
    const stuck = new ForwardQueue<number>(1, 5, () => new Promise(() => undefined))
    for (let i = 0; i < 4; i++) stuck.offer(i)
    expect(stuck.stop()).toBe(3)
    expect(stuck.offer(9)).toBe(false)
  })
})

describe('WebhookListener hardening (in-process)', () => {
  it('a deeply nested signed event is refused with 400 and a log line; the listener keeps serving', async () => {
    const print = await printer('ndjson')
    const lines: string[] = []
    const {l, url, logs} = await startListener({onEvent: (e) => lines.push(print(e))})
    const deep = envelope('evt_deep', `{"x":${nested(5000)}}`)
    expect(deep.length).toBeLessThan(11_000)
    expect((await signedPost(url, deep)).status).toBe(400)
    expect(logs.some((s) => /rejected 400 too_deep/.test(s))).toBe(true)
    expect((await signedPost(url, envelope('evt_after'))).status).toBe(200)
    expect(lines.map((s) => JSON.parse(s).id)).toEqual(['evt_after'])
    expect(l.stats.rejected).toEqual({too_deep: 1})
  })

  it('an event printer that throws is logged; the event is still answered 200 and later ones printed', async () => {
    let calls = 0
    const {url, logs} = await startListener({
      onEvent: () => {
        calls++
        if (calls === 1) throw new RangeError('Maximum call stack size exceeded')
      },
    })
    expect((await signedPost(url, envelope('evt_p1'))).status).toBe(200)
    expect((await signedPost(url, envelope('evt_p2'))).status).toBe(200)
    expect(calls).toBe(2)
    expect(logs.some((s) => /could not print evt_p1 \(payin.settled\): Maximum call stack/.test(s))).toBe(true)
  })

  it('log lines escape control characters from the event', async () => {
    const {url, logs} = await startListener({events: new Set(['payin.failed'])})
    const body = envelope('evt_\u001b[2Jx', '{}', 'payin.settled')
    expect((await signedPost(url, body)).status).toBe(200)
    expect(logs.find((s) => s.startsWith('ignored'))).toBe('ignored evt_\\x1b[2Jx (payin.settled): not in --events')
  })

  it('a full forward queue answers 503 with Retry-After, counts it, keeps memory bounded, and accepts the retry', async () => {
    const target = await slowTarget()
    const {l, url, logs} = await startListener({forwardTo: target.url, forwardConcurrency: 1, forwardQueue: 2})
    const results = await Promise.all(Array.from({length: 8}, (_, i) => signedPost(url, envelope(`evt_q${i}`))))
    const statuses = results.map((r) => r.status).sort()
    expect(statuses).toEqual([200, 200, 200, 503, 503, 503, 503, 503])
    const refused = results.filter((r) => r.status === 503)
    for (const r of refused) {
      expect(Number(r.headers.get('retry-after'))).toBeGreaterThanOrEqual(1)
      expect(JSON.parse(r.body)).toMatchObject({error: 'queue_full'})
    }
    expect(l.forwardLoad).toEqual({inFlight: 1, queued: 2})
    expect(l.stats.rejected.queue_full).toBe(5)
    expect(logs.some((s) => /rejected 503 queue_full/.test(s))).toBe(true)
    target.release()
    await until(() => l.stats.forwarded === 3)
    // The sender's retry of a refused event is processed, not dropped as a duplicate.
    const refusedId = results.findIndex((r) => r.status === 503)
    expect((await signedPost(url, envelope(`evt_q${refusedId}`))).status).toBe(200)
    await until(() => l.stats.forwarded === 4)
    expect(formatSummary(l.stats, true)).toMatch(/rejected 5 \(queue_full 5\).*forwarded 4 \(refused 5 with 503: queue full\)/)
  })

  /** A connection that never ends its side: only the listener closes it. */
  function openConnection(port: number, send?: string) {
    let got = ''
    let isClosed = false
    const socket: Socket = connect(port, '127.0.0.1', () => send && socket.write(send))
    socket.on('data', (d) => (got += d))
    socket.on('error', () => undefined)
    const closed = new Promise<{got: string}>((resolve) =>
      socket.on('close', () => {
        isClosed = true
        resolve({got})
      }),
    )
    cleanups.push(() => socket.destroy())
    return {socket, closed, isClosed: () => isClosed}
  }

  it('slow and idle connections time out with 408, malformed requests get 400, both logged and counted', async () => {
    // The request timeout is a minute: within this test only the headers timeout can close them.
    const {l, url, logs} = await startListener({headersTimeoutMs: 300, requestTimeoutMs: 60_000})
    const port = Number(new URL(url).port)
    const [idle, partial] = await Promise.all([openConnection(port).closed, openConnection(port, 'POST / HTTP/1.1\r\nHost: x\r\n').closed])
    for (const r of [idle, partial]) if (r.got) expect(r.got).toMatch(/^HTTP\/1\.1 408 /)
    const garbage = await openConnection(port, 'HELLO WORLD\r\n\r\n').closed
    expect(garbage.got).toMatch(/^HTTP\/1\.1 400 Bad Request/)
    expect(garbage.got).toContain('"error":"malformed_request"')
    expect(l.stats.rejected.request_timeout).toBeGreaterThanOrEqual(2)
    expect(l.stats.rejected.malformed_request).toBe(1)
    expect(logs.some((s) => /^rejected 400 malformed_request: the HTTP parser rejected the request \(HPE_INVALID_METHOD\)/.test(s))).toBe(true)
    expect(logs.some((s) => /^rejected 408 request_timeout/.test(s))).toBe(true)
    // Still serving.
    expect((await signedPost(url, envelope('evt_alive'))).status).toBe(200)
  }, 20_000)

  it('connections over the cap are closed at once, without an answer, while the others stay open', async () => {
    // Timeouts of a minute: nothing but the cap can close a connection within this test.
    const {l, url, logs} = await startListener({headersTimeoutMs: 60_000, requestTimeoutMs: 60_000, maxConnections: 3})
    const port = Number(new URL(url).port)
    const conns = [openConnection(port), openConnection(port, 'POST / HTTP/1.1\r\nHost: x\r\n'), openConnection(port), openConnection(port)]
    const first = await Promise.race(conns.map((c) => c.closed))
    // One connection was over the cap (three slots): closed unanswered; the three others are still open.
    expect(first.got).toBe('')
    expect(conns.filter((c) => c.isClosed())).toHaveLength(1)
    expect(l.stats.rejected.too_many_connections).toBe(1)
    expect(l.stats.rejected.request_timeout).toBeUndefined()
    expect(logs.some((s) => /^rejected too_many_connections: closed 1 connection over the limit of 3 open at once/.test(s))).toBe(true)
    for (const c of conns) c.socket.destroy()
  })
})

describe('bounded reads and secret input', () => {
  it('readBounded stops at the limit: /dev/zero is a usage error after at most the limit', async () => {
    await expect(readBounded('/dev/zero', '--payload-file', MAX_BODY_BYTES, 'the largest body')).rejects.toThrow(UsageError)
    await expect(readBounded('/dev/zero', '--payload-file', MAX_BODY_BYTES, 'the largest body')).rejects.toThrow(/--payload-file \/dev\/zero: more than 1 MB, the largest body\./)
    await expect(readBounded('/nonexistent/x', '--payload-file', 10, 'x')).rejects.toThrow(/no such file/)
  })

  it('readBounded takes at most the limit (and one read) from an endless stream or file, then lets go of it', async () => {
    const CHUNK = 64 * 1024
    // An endless stdin: counts what is pulled from it.
    let produced = 0
    const endless = new Readable({
      read() {
        produced += CHUNK
        this.push(Buffer.alloc(CHUNK, 0x78))
      },
    })
    await expect(readBounded(undefined, '--payload-file', MAX_BODY_BYTES, 'the largest body', endless)).rejects.toThrow(/^stdin: more than 1 MB, the largest body\.$/)
    expect(endless.destroyed).toBe(true)
    expect(produced).toBeGreaterThan(MAX_BODY_BYTES)
    expect(produced).toBeLessThanOrEqual(MAX_BODY_BYTES + 3 * CHUNK)

    // An endless file (a FIFO with a writer that never stops): the reader closes it, the writer gets EPIPE.
    const dir = tempDir()
    const fifo = join(dir.path, 'endless')
    execFileSync('mkfifo', [fifo])
    const feeding = (async () => {
      const fh = await open(fifo, 'w')
      let written = 0
      try {
        for (;;) written += (await fh.write(Buffer.alloc(CHUNK, 0x78))).bytesWritten
      } catch (err) {
        return {written, error: (err as NodeJS.ErrnoException).code}
      } finally {
        await fh.close()
      }
    })()
    await expect(readBounded(fifo, '--payload-file', MAX_BODY_BYTES, 'the largest body')).rejects.toThrow(/--payload-file \S+endless: more than 1 MB/)
    // Should the reader not have opened it, open and close the FIFO's reading end so the writer is not left waiting.
    await open(fifo, constants.O_RDONLY | constants.O_NONBLOCK).then((fh) => fh.close())
    const fed = await feeding
    expect(fed.error).toBe('EPIPE')
    expect(fed.written).toBeGreaterThan(MAX_BODY_BYTES)
    // What it read plus what the pipe holds (at most 1 MB on Linux): nowhere near endless.
    expect(fed.written).toBeLessThanOrEqual(2 * MAX_BODY_BYTES + 2 * CHUNK)
    dir.cleanup()
  })

  it('--secret-file: one secret per line, comments skipped, flags noted as visible in ps', async () => {
    const dir = tempDir('payops-hardening-')
    cleanups.push(() => dir.cleanup())
    const file = join(dir.path, 'secrets')
    writeFileSync(file, `# rotation\n${SECRET}\n\nwhsec_unit_hardening_secret_00002\n`)
    const notes: string[] = []
    expect(await secretsFromFlags({'secret-file': [file]}, (n) => notes.push(n), {})).toEqual([SECRET, 'whsec_unit_hardening_secret_00002'])
    expect(notes).toEqual([])
    expect(await secretsFromFlags({secret: [SECRET]}, (n) => notes.push(n), {})).toEqual([SECRET])
    expect(notes).toEqual([SECRET_FLAG_NOTE])
    expect(SECRET_FLAG_NOTE).toMatch(/visible to other users in the process list/)
    writeFileSync(file, '\n# nothing\n')
    await expect(secretsFromFlags({'secret-file': [file]}, () => undefined, {})).rejects.toThrow(/holds no secret/)
    await expect(secretsFromFlags({'secret-file': ['-', '-']}, () => undefined, {})).rejects.toThrow(UsageError)
  })
})
