/**
 * `webhooks listen` and `verify` as real processes, for what only a process shows: the signals
 * themselves (SIGTERM and SIGINT from outside), the listener process's memory under load, and an
 * endless stdin pipe. Everything else about them runs in-process: test/cli/webhooks-listen.test.ts
 * and test/cli/listener-hardening.test.ts.
 */
import {spawn, type ChildProcess} from 'node:child_process'
import {createHmac} from 'node:crypto'
import {readFileSync} from 'node:fs'
import {createServer, type Server, type ServerResponse} from 'node:http'
import {afterAll, describe, expect, it} from 'vitest'
import {BIN, cleanEnv, knownSecrets, tempDir} from './process.js'
import {until} from '../support/index.js'

/** autocannon ships no type declarations: what these tests use of it. */
const autocannon = (await import('autocannon' as string)).default as (opts: Record<string, unknown>) => Promise<{errors: number; statusCodeStats?: Record<string, {count: number}>}>

const SECRET = 'whsec_smokeListenerSecretValue0000000000000001'
knownSecrets.add(SECRET)
const configDir = tempDir().path

const procs: ChildProcess[] = []
const servers: Server[] = []
afterAll(async () => {
  for (const p of procs) if (p.exitCode === null && p.signalCode === null) p.kill('SIGKILL')
  await Promise.all(servers.map((s) => new Promise((r) => (s.closeAllConnections(), s.close(r)))))
})

/** HMAC computed here, independently of the code under test. */
const hmac = (ts: number | string, body: string | Buffer) => createHmac('sha256', SECRET).update(`${ts}.`).update(body).digest('hex')
const now = () => Math.floor(Date.now() / 1000)
const signed = (body: string | Buffer, ts = now()) => ({'content-type': 'application/json', 'x-webhook-signature': hmac(ts, body), 'x-webhook-timestamp': String(ts)})

/** `bin/run.js webhooks listen --port 0 ARGS` with the secret in the environment, once it listens. */
async function listen(args: string[]) {
  const proc = spawn(process.execPath, [BIN, 'webhooks', 'listen', '--port', '0', ...args], {
    env: cleanEnv({PAYOPS_WEBHOOK_SECRET: SECRET, PAYOPS_CONFIG_DIR: configDir}),
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  procs.push(proc)
  let stdout = ''
  let stderr = ''
  proc.stdout!.on('data', (d) => (stdout += d))
  proc.stderr!.on('data', (d) => (stderr += d))
  await until(() => /Listening on (\S+)/.test(stderr) || proc.exitCode !== null, () => `listener start: ${stderr}`, 20_000)
  if (proc.exitCode !== null) throw new Error(`listener exited ${proc.exitCode}: ${stderr}`)
  const url = /Listening on (\S+)/.exec(stderr)![1]
  return {
    proc,
    url,
    stdout: () => stdout,
    stop: (signal: NodeJS.Signals) =>
      new Promise<{code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string; summary: Record<string, any>}>((resolve) => {
        const done = () => {
          for (const s of knownSecrets) expect(stdout.includes(s) || stderr.includes(s), 'a secret was printed').toBe(false)
          const last = stderr.trim().split('\n').at(-1) ?? ''
          resolve({code: proc.exitCode, signal: proc.signalCode, stdout, stderr, summary: last.startsWith('{') ? JSON.parse(last).summary : undefined})
        }
        if (proc.exitCode !== null) return done()
        proc.once('exit', done)
        proc.kill(signal)
      }),
  }
}

describe('signals', () => {
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`a real ${signal} stops the listener: summary on stderr, exit 0`, async () => {
      const l = await listen(['-o', 'ndjson'])
      const body = `{"id":"evt_${signal}","type":"payin.settled","data":{}}`
      expect((await fetch(l.url, {method: 'POST', headers: signed(body), body})).status).toBe(200)
      await until(() => l.stdout().includes(`evt_${signal}`), () => `the event line: ${l.stdout()}`)
      const done = await l.stop(signal)
      expect(done.signal).toBeNull()
      expect(done.code).toBe(0)
      expect(done.stdout.trim().split('\n').map((s) => JSON.parse(s).id)).toEqual([`evt_${signal}`])
      expect(done.stderr).toMatch(/Summary: received 1, verified 1, rejected 0/)
      expect(done.summary).toMatchObject({received: 1, verified: 1})
    })
  }
})

describe('the listener process under load', () => {
  it('against a slow target, its memory stays bounded and every delivery is answered 200 or 503', async () => {
    // A target that holds every forward until released: the queue fills whatever the machine's speed.
    const held: ServerResponse[] = []
    let hold = true
    const server = createServer((req, res) => {
      req.resume()
      req.on('end', () => (hold ? held.push(res) : res.end('ok')))
    })
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
    servers.push(server)
    const target = `http://127.0.0.1:${(server.address() as {port: number}).port}/in`
    const l = await listen(['-o', 'ndjson', '--forward-to', target])
    const pad = 'x'.repeat(100 * 1024)
    let n = 0
    const result = await autocannon({
      url: l.url,
      connections: 10,
      duration: 2,
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
    const hwm = Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${l.proc.pid}/status`, 'utf8'))![1]) * 1024
    expect(result.errors).toBe(0)
    const codes = Object.keys(result.statusCodeStats ?? {}).sort()
    expect(codes.every((c) => c === '200' || c === '503')).toBe(true)
    expect(codes).toContain('503')
    expect(hwm).toBeLessThan(400 * 1024 * 1024)
    hold = false
    for (const r of held.splice(0)) r.end('ok')
    const done = await l.stop('SIGINT')
    expect(done.code).toBe(0)
    expect(done.summary.rejected.queue_full).toBeGreaterThan(0)
    expect(done.summary.forwarded + done.summary.forward_failed).toBeLessThanOrEqual(8 + 64)
  }, 60_000)
})

describe('verify and an endless stdin', () => {
  it('stops reading past 1 MB and exits 2 with a usage error while the writer is still writing', async () => {
    const body = '{"id":"evt_v","type":"payin.settled","data":{}}'
    const ts = now()
    const proc = spawn(process.execPath, [BIN, 'webhooks', 'verify', '--timestamp', String(ts), '--signature', hmac(ts, body)], {
      env: cleanEnv({PAYOPS_WEBHOOK_SECRET: SECRET, PAYOPS_CONFIG_DIR: configDir}),
      stdio: ['pipe', 'pipe', 'pipe'],
    })
    procs.push(proc)
    let stderr = ''
    proc.stderr!.on('data', (d) => (stderr += d))
    let pipeError: string | undefined
    proc.stdin!.on('error', (err: NodeJS.ErrnoException) => (pipeError = err.code))
    const chunk = Buffer.alloc(64 * 1024, 0x78)
    let written = 0
    const feed = () => {
      while (proc.exitCode === null && proc.stdin!.writable) {
        written += chunk.length
        if (!proc.stdin!.write(chunk)) break
      }
    }
    proc.stdin!.on('drain', feed)
    feed()
    const code = await new Promise<number | null>((resolve) => proc.once('exit', resolve))
    expect(code).toBe(2)
    expect(stderr).toMatch(/stdin: more than 1 MB/)
    expect(stderr).not.toContain(SECRET)
    // The writer never stopped on its own: the command went away while it still had data to give.
    expect(written).toBeGreaterThan(1024 * 1024)
    if (pipeError) expect(pipeError).toBe('EPIPE')
  })
})
