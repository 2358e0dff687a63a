/**
 * `webhooks listen`, `verify` and `trigger` under hostile or heavy input, run in-process: a deeply
 * nested signed event, control characters in event text, a slow --forward-to target under load
 * (503 with Retry-After, a bounded queue), slow and malformed connections, endless payloads for
 * verify, and secrets given without showing them in `ps`. What only a real process shows (its
 * memory under load, an endless stdin pipe, a real SIGTERM) is in test/smoke/listener.test.ts.
 */
import {execFileSync} from 'node:child_process'
import {createHmac} from 'node:crypto'
import {constants, writeFileSync} from 'node:fs'
import {open} from 'node:fs/promises'
import {createServer, type Server, type ServerResponse} from 'node:http'
import {connect} from 'node:net'
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {knownSecrets, run, runCli, startCli, tempDir, type RunningCli, until} from '../support/index.js'

/** autocannon ships no type declarations: what these tests use of it. */
const autocannon = (await import('autocannon' as string)).default as (opts: Record<string, unknown>) => Promise<{errors: number; statusCodeStats?: Record<string, {count: number}>}>

const SECRET = 'whsec_e2eHardeningSecretValue00000000000000001'
knownSecrets.add(SECRET)
const NOTE = /--secret is visible to other users in the process list/
const MB = 1024 * 1024

const running: Array<{cli: RunningCli; ended: () => boolean}> = []
const servers: Server[] = []
afterAll(async () => {
  // A listener a failed test left running: Ctrl-C, and wait for its end.
  for (const l of running) if (!l.ended()) l.cli.interrupt()
  await Promise.all(running.map((l) => l.cli.done.catch(() => undefined)))
  await Promise.all(servers.map((s) => new Promise((r) => (s.closeAllConnections(), s.close(r)))))
})

/** HMAC computed here, independently of the code under test. */
const hmac = (ts: number | string, body: string | Buffer) => createHmac('sha256', SECRET).update(`${ts}.`).update(body).digest('hex')
const now = () => Math.floor(Date.now() / 1000)
const signed = (body: string | Buffer, ts = now()) => ({'content-type': 'application/json', 'x-webhook-signature': hmac(ts, body), 'x-webhook-timestamp': String(ts)})
const post = (url: string, body: string) => fetch(url, {method: 'POST', headers: signed(body), body})

/** `payops webhooks listen --port 0 ARGS` in-process, once it listens. */
async function listen(args: string[], env: Record<string, string> = {PAYOPS_WEBHOOK_SECRET: SECRET}) {
  const cli = startCli(['webhooks', 'listen', '--port', '0', ...args], {env})
  let ended = false
  cli.done.then(
    () => (ended = true),
    () => (ended = true),
  )
  running.push({cli, ended: () => ended})
  const listening = () => /Listening on (\S+)/.exec(cli.stderr())
  await until(() => Boolean(listening()) || ended, () => `listener start: ${cli.stderr()}`, 20_000)
  if (!listening()) {
    const r = await cli.done
    throw new Error(`listener exited ${r.code}: ${r.stderr}`)
  }
  const url = listening()![1]
  return {
    url,
    port: Number(new URL(url).port),
    stdout: cli.stdout,
    stderr: cli.stderr,
    waitForLog: (re: RegExp, ms?: number) => until(() => re.test(cli.stderr()), () => `${re} in: ${cli.stderr()}`, ms),
    /** Ctrl-C; resolves with the run's end and the JSON summary (the run fails if a secret was printed). */
    async stop(): Promise<{code: number; stdout: string; stderr: string; summary: Record<string, any>}> {
      cli.interrupt()
      const {code, stdout, stderr} = await cli.done
      for (const s of knownSecrets) expect(stdout.includes(s) || stderr.includes(s), 'a secret was printed').toBe(false)
      const last = stderr.trim().split('\n').at(-1) ?? ''
      return {code, stdout, stderr, summary: last.startsWith('{') ? JSON.parse(last).summary : undefined}
    },
  }
}

describe('a signed event cannot stop the listener', () => {
  it('an event nested 5,000 deep is refused with 400 and logged; the listener keeps serving and prints its summary', async () => {
    const l = await listen(['-o', 'ndjson'])
    const deep = `{"id":"evt_deep","type":"payin.settled","data":{"x":${'['.repeat(5000)}${']'.repeat(5000)}}}`
    expect(deep.length).toBeLessThan(11_000)
    const res = await post(l.url, deep)
    expect(res.status).toBe(400)
    expect(await res.json()).toMatchObject({error: 'too_deep'})
    await l.waitForLog(/rejected 400 too_deep: the event is nested deeper than 64 levels/)
    const ok = '{"id":"evt_after_deep","type":"payin.settled","data":{"payin_id":"p1"}}'
    expect((await post(l.url, ok)).status).toBe(200)
    await until(() => l.stdout().includes('evt_after_deep'), () => `the event line: ${l.stdout()}`)
    const done = await l.stop()
    expect(done.code).toBe(0)
    expect(done.stderr).not.toMatch(/RangeError|Maximum call stack/)
    expect(done.stdout.trim().split('\n').map((s) => JSON.parse(s).id)).toEqual(['evt_after_deep'])
    expect(done.summary).toMatchObject({received: 2, verified: 1, rejected: {too_deep: 1}})
  })

  it('control characters and ANSI escapes in a signed event are escaped in table output and log lines', async () => {
    const l = await listen(['-o', 'table', '--events', 'payin.settled'])
    const body = JSON.stringify({id: 'evt_\u001b[2J\u001b[31mred\u0007', type: 'payin.settled', data: {note: 'a\u009b31m\u202eb'}})
    expect((await post(l.url, body)).status).toBe(200)
    const other = JSON.stringify({id: 'evt_\u001b]0;title\u0007', type: 'payout.failed', data: {}})
    expect((await post(l.url, other)).status).toBe(200)
    await until(() => l.stdout().includes('evt_'), () => `the event line: ${l.stdout()}`)
    await l.waitForLog(/ignored evt_/)
    const done = await l.stop()
    const raw = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202e]/
    expect(done.stdout).not.toMatch(raw)
    expect(done.stderr).not.toMatch(raw)
    expect(done.stdout).toContain('evt_\\x1b[2J\\x1b[31mred\\x07')
    expect(done.stderr).toContain('ignored evt_\\x1b]0;title\\x07 (payout.failed)')
  })
})

describe('forwarding back-pressure', () => {
  /**
   * A forward target that holds every request until `release()`: while it holds, no forward
   * finishes, so how many events the listener admits depends on its queue alone, not on timing.
   */
  async function heldTarget() {
    let got = 0
    let hold = true
    const held: ServerResponse[] = []
    const server = createServer((req, res) => {
      req.resume()
      req.on('end', () => {
        got++
        if (hold) held.push(res)
        else res.end('ok')
      })
    })
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
    servers.push(server)
    return {
      url: `http://127.0.0.1:${(server.address() as {port: number}).port}/in`,
      got: () => got,
      release() {
        hold = false
        for (const r of held.splice(0)) r.end('ok')
      },
    }
  }

  it('a full forward queue answers 503 with Retry-After, counted in the summary', async () => {
    const target = await heldTarget()
    const l = await listen(['-o', 'ndjson', '--forward-to', target.url, '--forward-concurrency', '2', '--forward-queue', '3'])
    const answers = await Promise.all(Array.from({length: 12}, (_, i) => post(l.url, JSON.stringify({id: `evt_bp_${i}`, type: 'payin.settled', data: {}}))))
    const statuses = answers.map((r) => r.status)
    expect(statuses.filter((s) => s === 200)).toHaveLength(5)
    expect(statuses.filter((s) => s === 503)).toHaveLength(7)
    for (const r of answers.filter((a) => a.status === 503)) expect(Number(r.headers.get('retry-after'))).toBeGreaterThanOrEqual(1)
    await l.waitForLog(/rejected 503 queue_full/)
    // Two forwards in flight reached the target; the three queued wait for a slot.
    await until(() => target.got() === 2, () => `2 forwards in flight, got ${target.got()}`)
    target.release()
    await until(() => target.got() === 5, () => `5 forwards, got ${target.got()}`)
    await l.waitForLog(/forwarded evt_bp_\d+ .*: 200/)
    const done = await l.stop()
    expect(done.code).toBe(0)
    expect(done.summary.rejected).toEqual({queue_full: 7})
    expect(done.summary.forwarded).toBe(5)
    expect(done.stderr).toMatch(/forwarded 5 \(refused 7 with 503: queue full\)/)
    // Only the 5 accepted events were printed.
    expect(done.stdout.trim().split('\n')).toHaveLength(5)
  })

  it('under load against a slow target, the queue stays bounded and every delivery is answered 200 or 503', async () => {
    // The listener's memory under load (a real process's high-water mark): test/smoke/listener.test.ts.
    const target = await heldTarget()
    const l = await listen(['-o', 'ndjson', '--forward-to', target.url])
    const pad = 'x'.repeat(100 * 1024)
    let n = 0
    const result = await autocannon({
      url: l.url,
      connections: 10,
      amount: 400,
      requests: [
        {
          method: 'POST',
          setupRequest: (req: Record<string, unknown>) => {
            const body = `{"id":"evt_load_${n++}","type":"payin.settled","data":{"pad":"${pad}"}}`
            return {...req, body, headers: signed(body)}
          },
        },
      ],
    })
    expect(result.errors).toBe(0)
    const stats = result.statusCodeStats ?? {}
    const codes = Object.keys(stats).sort()
    expect(codes.every((c) => c === '200' || c === '503')).toBe(true)
    expect(codes).toContain('503')
    // The defaults: 8 forwards in flight and 64 queued are admitted before the first 503.
    const accepted = stats['200']?.count ?? 0
    expect(accepted).toBeGreaterThanOrEqual(8 + 64)
    expect(accepted + stats['503'].count).toBe(400)
    // While the target holds, at most 8 forwards reach it.
    expect(target.got()).toBeLessThanOrEqual(8)
    target.release()
    const done = await l.stop()
    expect(done.code).toBe(0)
    expect(done.summary.rejected.queue_full).toBeGreaterThan(0)
    expect(done.summary.rejected.queue_full).toBe(stats['503'].count)
    expect(done.summary.verified).toBe(accepted)
    // Every admitted event is forwarded or counted as failed; none is lost, none beyond the queue.
    expect(done.summary.forwarded + done.summary.forward_failed).toBe(accepted)
    expect(done.summary.forwarded + done.summary.forward_failed).toBeLessThanOrEqual(8 + 64)
  })
})

describe('connections and malformed requests', () => {
  it('idle connections are closed by the listener (408), malformed requests get 400; both are logged and counted', async () => {
    const l = await listen(['-o', 'ndjson', '--max-connections', '8'])
    /** A connection that never ends its side: only the listener closes it. */
    const open = (send?: string) =>
      new Promise<{got: string}>((resolve) => {
        const s = connect(l.port, '127.0.0.1', () => send && s.write(send))
        let got = ''
        s.on('data', (d) => (got += d))
        s.on('error', () => undefined)
        s.on('close', () => resolve({got}))
      })
    const garbage = await open('GARBAGE\x00\r\n\r\n')
    expect(garbage.got).toMatch(/^HTTP\/1\.1 400 Bad Request/)
    await l.waitForLog(/rejected 400 malformed_request: the HTTP parser rejected the request/)
    // Slowloris: 10 connections that send half a request head, against a cap of 8. Each one is
    // closed by the listener: answered 408 when its headers time out, or closed unanswered when over the cap.
    const slow = await Promise.all(Array.from({length: 10}, () => open('POST / HTTP/1.1\r\nHost: x\r\n')))
    const timedOut = slow.filter((r) => r.got.startsWith('HTTP/1.1 408'))
    const dropped = slow.filter((r) => r.got === '')
    expect(timedOut.length + dropped.length, `answers: ${JSON.stringify(slow.map((r) => r.got.slice(0, 20)))}`).toBe(10)
    expect(timedOut.length).toBeGreaterThanOrEqual(1)
    expect(dropped.length).toBeGreaterThanOrEqual(1)
    for (const r of timedOut) expect(r.got).toContain('"error":"request_timeout"')
    await l.waitForLog(/rejected 408 request_timeout/)
    await l.waitForLog(/rejected too_many_connections: closed \d+ connection/)
    // Still serving.
    const ok = '{"id":"evt_after_slow","type":"payin.settled","data":{}}'
    expect((await post(l.url, ok)).status).toBe(200)
    await until(() => l.stdout().includes('evt_after_slow'), () => `the event line: ${l.stdout()}`)
    const done = await l.stop()
    expect(done.summary.rejected.malformed_request).toBe(1)
    expect(done.summary.rejected.request_timeout).toBeGreaterThanOrEqual(1)
    expect(done.summary.rejected.too_many_connections).toBeGreaterThanOrEqual(1)
    // Each closed connection counted once, under the reason it was closed for.
    expect(done.summary.rejected.request_timeout).toBe(timedOut.length)
    expect(done.summary.rejected.too_many_connections).toBe(dropped.length)
    expect(done.summary.verified).toBe(1)
    expect(done.stderr).toMatch(/Summary: received \d+, verified 1, rejected \d+ \(malformed_request 1/)
  }, 30_000)
})

describe('a slow-connection flood', () => {
  it('500 sockets stalled mid-header from the sender\'s own address: the signed delivery is still printed, the flood closed and counted', async () => {
    const l = await listen(['-o', 'ndjson'])
    let closed = 0
    const sockets = Array.from({length: 500}, () => {
      const s = connect(l.port, '127.0.0.1', () => s.write('POST / HTTP/1.1\r\nHost: x\r\nX-Half: '))
      s.on('error', () => undefined)
      s.on('close', () => closed++)
      return s
    })
    try {
      // Over the 64 a single address may hold, the longest-waiting are closed at once.
      await until(() => closed >= 500 - 64, () => `flood sockets closed: ${closed}`)
      const body = '{"id":"evt_in_flood","type":"payin.settled","data":{}}'
      expect((await post(l.url, body)).status).toBe(200)
      await until(() => l.stdout().includes('evt_in_flood'), () => `the event line: ${l.stdout()}`)
      // The flood was still open (the header timeout is 5 s) when the delivery was printed.
      expect(sockets.filter((s) => !s.destroyed).length).toBeGreaterThan(0)
    } finally {
      for (const s of sockets) s.destroy()
    }
    const done = await l.stop()
    expect(done.summary.verified).toBe(1)
    expect(done.summary.rejected.too_many_connections).toBeGreaterThanOrEqual(500 - 64)
    expect(done.stdout.trim().split('\n').map((x) => JSON.parse(x).id)).toEqual(['evt_in_flood'])
    // Throttled: a few lines with counts, not one per connection.
    expect(done.stderr.split('\n').filter((x) => x.includes('too_many_connections')).length).toBeLessThan(10)
  }, 30_000)
})

describe('verify reads a bounded payload; secrets stay out of ps', () => {
  const body = '{"id":"evt_v","type":"payin.settled","data":{}}'
  const ts = now()
  const base = ['webhooks', 'verify', '--timestamp', String(ts), '--signature', hmac(ts, body)]

  /** Writes to the FIFO at `path` until its reader goes away: how much it took, and the error that ended it. */
  async function feedEndlessly(path: string): Promise<{written: number; error?: string}> {
    // Opening a FIFO for writing waits for its reader.
    const fh = await open(path, 'w')
    const chunk = Buffer.alloc(64 * 1024, 0x78)
    let written = 0
    try {
      for (;;) written += (await fh.write(chunk)).bytesWritten
    } catch (err) {
      return {written, error: (err as NodeJS.ErrnoException).code}
    } finally {
      await fh.close()
    }
  }

  it('verify --payload-file /dev/zero stops at 1 MB with a one-line usage error (exit 2); so do an endless FIFO and a huge stdin', async () => {
    const zero = await run([...base, '--payload-file', '/dev/zero'], {env: {PAYOPS_WEBHOOK_SECRET: SECRET}})
    expect(zero.code).toBe(2)
    expect(zero.stderr.trim().split('\n')[0]).toMatch(/--payload-file \/dev\/zero: more than 1 MB, the largest body `webhooks listen` accepts/)

    // An endless writer: the command reads just past 1 MB, stops, and closes its end (the writer gets EPIPE).
    const dir = tempDir()
    const fifo = join(dir.path, 'endless')
    execFileSync('mkfifo', [fifo])
    const feeding = feedEndlessly(fifo)
    const endless = await run([...base, '--payload-file', fifo], {env: {PAYOPS_WEBHOOK_SECRET: SECRET}})
    // Should the command not have opened the FIFO, open and close its reading end so the writer is not left waiting.
    await open(fifo, constants.O_RDONLY | constants.O_NONBLOCK).then((fh) => fh.close())
    const fed = await feeding
    expect(endless.code, endless.stderr).toBe(2)
    expect(endless.stderr.trim().split('\n')[0]).toMatch(/--payload-file \S+endless: more than 1 MB, the largest body `webhooks listen` accepts/)
    expect(fed.error).toBe('EPIPE')
    expect(fed.written).toBeGreaterThan(MB)
    // What it read plus what the pipe holds: nowhere near endless.
    expect(fed.written).toBeLessThan(3 * MB)
    dir.cleanup()

    // A stdin larger than 1 MB (an endless one, through a real pipe: test/smoke/listener.test.ts).
    const huge = await runCli(base, {env: {PAYOPS_WEBHOOK_SECRET: SECRET}, stdin: Buffer.alloc(3 * MB, 0x78)})
    expect(huge.code).toBe(2)
    expect(huge.stderr).toMatch(/stdin: more than 1 MB/)
  })

  it('--secret prints a note on stderr; PAYOPS_WEBHOOK_SECRET and --secret-file do not, on verify, trigger and listen', async () => {
    const dir = tempDir()
    const file = join(dir.path, 'webhook.secret')
    writeFileSync(file, `${SECRET}\n`)
    const payload = join(dir.path, 'body.json')
    writeFileSync(payload, body)

    const byFlag = await run([...base, '--payload-file', payload, '--secret', SECRET, '-o', 'table'])
    expect(byFlag.code).toBe(0)
    expect(byFlag.stderr).toMatch(NOTE)
    const byFile = await run([...base, '--payload-file', payload, '--secret-file', file, '-o', 'table'])
    expect(byFile.code, byFile.stderr).toBe(0)
    expect(byFile.stdout).toBe('valid\n')
    expect(byFile.stderr).not.toMatch(NOTE)
    const byStdin = await run([...base, '--payload-file', payload, '--secret-file', '-', '-o', 'table'], {input: `${SECRET}\n`})
    expect(byStdin.code, byStdin.stderr).toBe(0)
    expect((await run([...base, '--secret-file', '-'], {input: body})).code).toBe(2)
    const byEnv = await run([...base, '--payload-file', payload, '-o', 'table'], {env: {PAYOPS_WEBHOOK_SECRET: SECRET}})
    expect(byEnv.code).toBe(0)
    expect(byEnv.stderr).toBe('')

    const l = await listen(['-o', 'ndjson', '--secret-file', file], {})
    expect(l.stderr()).not.toMatch(NOTE)
    const trig = await run(['webhooks', 'trigger', 'payin.settled', '--url', l.url, '--secret-file', '-', '-o', 'json'], {input: SECRET})
    expect(trig.code, trig.stderr).toBe(0)
    expect(trig.stderr).not.toMatch(NOTE)
    const trigFlag = await run(['webhooks', 'trigger', 'payin.failed', '--url', l.url, '--secret', SECRET, '-o', 'json'])
    expect(trigFlag.code).toBe(0)
    expect(trigFlag.stderr).toMatch(NOTE)
    await until(() => l.stdout().trim().split('\n').length === 2, () => `two events: ${l.stdout()}`)
    expect((await l.stop()).code).toBe(0)
    const flagListener = await listen(['-o', 'ndjson', '--secret', SECRET], {})
    expect(flagListener.stderr()).toMatch(NOTE)
    expect((await flagListener.stop()).code).toBe(0)
    dir.cleanup()
  })
})
