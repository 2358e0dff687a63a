/**
 * payops behind a proxy, through a real one on loopback (written here: HTTP forwarding and CONNECT
 * tunnelling, optional Basic credentials, a refusal mode), and a TLS server whose certificate a
 * private CA signed (trusted only through the profile's ca-file or NODE_EXTRA_CA_CERTS).
 *
 * The proxy resolves every host name to 127.0.0.1 itself: `api.corp.test` stands for an API that
 * only the proxy can reach, as behind a corporate proxy (payops never resolves it).
 */
import {execFileSync} from 'node:child_process'
import {randomBytes} from 'node:crypto'
import {readFileSync, rmSync, writeFileSync} from 'node:fs'
import {createServer, request as httpRequest, type IncomingMessage, type Server} from 'node:http'
import {createServer as createHttpsServer, type Server as HttpsServer} from 'node:https'
import {connect, type AddressInfo, type Socket} from 'node:net'
import {join} from 'node:path'
import {afterAll, afterEach, beforeAll, describe, expect, it} from 'vitest'
import {knownSecrets, run as runCli, runAs as runCliAs, startCli as startCliRun, startEmulator, tempDir, type Emulator, type RunOptions} from '../support/index.js'
import {exportedTrail} from '../support/trail.js'

/** The machine's own proxy settings, if any, left out: each test names what it uses. */
const UNSET = {http_proxy: '', HTTP_PROXY: '', https_proxy: '', HTTPS_PROXY: '', no_proxy: '', NO_PROXY: '', NODE_EXTRA_CA_CERTS: ''}
const run = (args: string[], opts: RunOptions = {}) => runCli(args, {...opts, env: {...UNSET, ...opts.env}})
const runAs = (e: Emulator, key: 'test', args: string[], opts: RunOptions = {}) => runCliAs(e, key, args, {...opts, env: {...UNSET, ...opts.env}})
const startCli = (args: string[], opts: {env?: Record<string, string>} = {}) => startCliRun(args, {...opts, env: {...UNSET, ...opts.env}})

const dir = tempDir('payops-proxy-')
const PASSWORD = `pw-${randomBytes(9).toString('hex')}`
knownSecrets.add(PASSWORD)

interface Seen {
  kind: 'forward' | 'connect'
  target: string
  method: string
  auth?: string
}

/** A forwarding and tunnelling proxy on 127.0.0.1. */
class TestProxy {
  seen: Seen[] = []
  /** `Basic …` the proxy demands (407 otherwise), when set. */
  auth?: string
  /** Answer every request and tunnel with this status instead of passing it on. */
  refuse?: number
  private server = createServer()
  private sockets = new Set<Socket>()
  port = 0

  async start(): Promise<this> {
    this.server.on('connection', (s) => {
      this.sockets.add(s)
      s.on('close', () => this.sockets.delete(s))
    })
    this.server.on('request', (req, res) => this.forward(req, res))
    this.server.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => {
      this.seen.push({kind: 'connect', target: req.url ?? '', method: 'CONNECT', auth: req.headers['proxy-authorization']})
      const status = this.verdict(req)
      if (status) {
        client.end(`HTTP/1.1 ${status} Refused\r\nContent-Length: 0\r\n\r\n`)
        return
      }
      const port = Number((req.url ?? '').split(':').pop())
      const upstream = connect(port, '127.0.0.1', () => {
        client.write('HTTP/1.1 200 Connection Established\r\n\r\n')
        if (head.length) upstream.write(head)
        upstream.pipe(client)
        client.pipe(upstream)
      })
      this.sockets.add(upstream)
      upstream.on('close', () => this.sockets.delete(upstream))
      upstream.on('error', () => client.destroy())
      client.on('error', () => upstream.destroy())
    })
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r))
    this.port = (this.server.address() as AddressInfo).port
    return this
  }

  url(credentials = ''): string {
    return `http://${credentials}127.0.0.1:${this.port}`
  }

  private verdict(req: IncomingMessage): number | undefined {
    if (this.refuse) return this.refuse
    if (this.auth && req.headers['proxy-authorization'] !== this.auth) return 407
    return undefined
  }

  private forward(req: IncomingMessage, res: import('node:http').ServerResponse): void {
    this.seen.push({kind: 'forward', target: req.url ?? '', method: req.method ?? '', auth: req.headers['proxy-authorization']})
    const status = this.verdict(req)
    if (status) {
      res.writeHead(status, {'content-type': 'text/plain'})
      res.end('refused by the proxy')
      return
    }
    const target = new URL(req.url ?? '')
    const headers = {...req.headers}
    delete headers['proxy-authorization']
    delete headers['proxy-connection']
    const up = httpRequest({host: '127.0.0.1', port: Number(target.port) || 80, path: target.pathname + target.search, method: req.method, headers}, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers)
      answer.pipe(res)
    })
    up.on('error', () => {
      res.writeHead(502)
      res.end()
    })
    req.pipe(up)
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy()
    await new Promise<void>((r) => this.server.close(() => r()))
  }
}

let emu: Emulator
let proxy: TestProxy
/** An HTTPS front of the emulator, its certificate signed by a private CA, for api.corp.test. */
let tls: HttpsServer
let tlsPort = 0
const caFile = join(dir.path, 'corp-ca.pem')
/** A port where nothing listens. */
let deadPort = 0

function makeCerts(): {cert: string; key: string} {
  const f = (name: string) => join(dir.path, name)
  const ssl = (args: string[]) => execFileSync('openssl', args, {stdio: 'pipe'})
  ssl(['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', f('ca.key'), '-out', caFile, '-days', '2', '-subj', '/CN=payops test corporate CA'])
  ssl(['req', '-newkey', 'rsa:2048', '-nodes', '-keyout', f('server.key'), '-out', f('server.csr'), '-subj', '/CN=api.corp.test'])
  writeFileSync(f('ext.cnf'), 'subjectAltName=DNS:api.corp.test\nbasicConstraints=CA:FALSE\n')
  ssl(['x509', '-req', '-in', f('server.csr'), '-CA', caFile, '-CAkey', f('ca.key'), '-CAcreateserial', '-out', f('server.pem'), '-days', '2', '-extfile', f('ext.cnf')])
  return {cert: readFileSync(f('server.pem'), 'utf8'), key: readFileSync(f('server.key'), 'utf8')}
}

beforeAll(async () => {
  emu = await startEmulator()
  proxy = await new TestProxy().start()
  const emuUrl = new URL(emu.baseUrl)
  tls = createHttpsServer(makeCerts(), (req, res) => {
    const up = httpRequest({host: '127.0.0.1', port: Number(emuUrl.port), path: req.url, method: req.method, headers: {...req.headers, host: emuUrl.host}}, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers)
      answer.pipe(res)
    })
    req.pipe(up)
  })
  await new Promise<void>((r) => tls.listen(0, '127.0.0.1', r))
  tlsPort = (tls.address() as AddressInfo).port
  const probe = createServer()
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r))
  deadPort = (probe.address() as AddressInfo).port
  await new Promise<void>((r) => probe.close(() => r()))
})

afterAll(async () => {
  await proxy.close()
  tls.closeAllConnections()
  await new Promise<void>((r) => tls.close(() => r()))
  dir.cleanup()
})

afterEach(() => {
  proxy.seen = []
  proxy.auth = undefined
  proxy.refuse = undefined
})

const corpUrl = () => `https://api.corp.test:${tlsPort}`
/** A config dir of its own, with profile `corp` (the TLS front through the proxy, or as given). */
async function corpProfile(settings: string[][] = []): Promise<string> {
  const cfg = tempDir('payops-proxy-cfg-').path
  const add = await run(['profiles', 'add', 'corp', '--base-url', corpUrl(), '--key-stdin', '--use'], {configDir: cfg, input: `${emu.keys.test}\n`})
  expect(add.code, add.stderr).toBe(0)
  for (const s of settings) {
    const r = await run(['profiles', 'set', 'corp', ...s], {configDir: cfg})
    expect(r.code, r.stderr).toBe(0)
  }
  return cfg
}

/** stderr without the JSON error line that machine output adds. */
const humanLines = (stderr: string) => stderr.trim().split('\n').filter((l) => !l.startsWith('{'))

const noCredentials = (text: string) => {
  expect(text).not.toContain(PASSWORD)
  expect(text).not.toContain(Buffer.from(`alice:${PASSWORD}`).toString('base64'))
}

describe('HTTP forwarding (an http:// base URL) and the precedence of proxies', () => {
  it('--proxy: one-shot (fetch) and --all (the pool) requests are forwarded through the proxy', async () => {
    const one = await runAs(emu, 'test', ['treasury', 'accounts', 'list', '--proxy', proxy.url(), '-o', 'json'])
    expect(one.code, one.stderr).toBe(0)
    expect(one.json().length).toBeGreaterThan(0)
    expect(proxy.seen).toEqual([expect.objectContaining({kind: 'forward', method: 'GET', target: expect.stringMatching(new RegExp(`^${emu.baseUrl}/api/treasury/accounts`))})])
    proxy.seen = []
    const all = await runAs(emu, 'test', ['treasury', 'accounts', 'list', '--all', '--proxy', proxy.url(), '-o', 'json'])
    expect(all.code, all.stderr).toBe(0)
    expect(all.json()).toEqual(one.json())
    expect(proxy.seen.length).toBeGreaterThan(0)
    expect(proxy.seen.every((s) => s.kind === 'forward' && s.target.startsWith(`${emu.baseUrl}/api/treasury/accounts`))).toBe(true)
  })

  it('a proxy on loopback from HTTP_PROXY serves a loopback base URL; --proxy none and NO_PROXY send it direct', async () => {
    const viaEnv = await runAs(emu, 'test', ['treasury', 'accounts', 'list', '-o', 'json'], {env: {HTTP_PROXY: proxy.url()}})
    expect(viaEnv.code, viaEnv.stderr).toBe(0)
    expect(proxy.seen).toHaveLength(1)
    proxy.seen = []
    const none = await runAs(emu, 'test', ['treasury', 'accounts', 'list', '--proxy', 'none', '-o', 'json'], {env: {HTTP_PROXY: proxy.url()}})
    expect(none.code, none.stderr).toBe(0)
    const noProxy = await runAs(emu, 'test', ['treasury', 'accounts', 'list', '--proxy', proxy.url(), '--debug', '-o', 'json'], {env: {NO_PROXY: 'example.com, 127.0.0.1'}})
    expect(noProxy.code, noProxy.stderr).toBe(0)
    expect(noProxy.stderr).toContain(`connection to ${emu.baseUrl}: direct (127.0.0.1 is in NO_PROXY)`)
    const lower = await runAs(emu, 'test', ['treasury', 'accounts', 'list', '-o', 'json'], {env: {http_proxy: proxy.url(), no_proxy: `127.0.0.1:${new URL(emu.baseUrl).port}`}})
    expect(lower.code, lower.stderr).toBe(0)
    expect(proxy.seen).toEqual([])
  })

  it('a proxy elsewhere (from the environment) is never used for loopback: the emulator is reached direct', async () => {
    const r = await runAs(emu, 'test', ['treasury', 'accounts', 'list', '--debug', '-o', 'json'], {env: {HTTP_PROXY: 'http://proxy.invalid:3128', HTTPS_PROXY: 'http://proxy.invalid:3128'}})
    expect(r.code, r.stderr).toBe(0)
    expect(r.stderr).toContain(`direct (127.0.0.1 is loopback: the proxy http://proxy.invalid:3128 from HTTP_PROXY could not reach it)`)
  })

  it('--proxy wins over the environment: a dead --proxy fails although HTTP_PROXY works (exit 7, one line)', async () => {
    const r = await runAs(emu, 'test', ['treasury', 'accounts', 'list', '--proxy', `http://127.0.0.1:${deadPort}`, '--max-retries', '0'], {env: {HTTP_PROXY: proxy.url()}})
    expect(r.code, r.stderr).toBe(7)
    expect(humanLines(r.stderr)).toEqual([`Error: GET /api/treasury/accounts: could not reach the proxy http://127.0.0.1:${deadPort} (ECONNREFUSED) to reach ${emu.baseUrl}.`])
    expect(proxy.seen).toEqual([])
  })
})

describe('CONNECT tunnelling to an https:// API, its certificate signed by a private CA', () => {
  it('HTTPS_PROXY and the profile ca-file: the request is tunnelled and TLS trusts the private CA', async () => {
    const cfg = await corpProfile([['ca-file', caFile]])
    const r = await run(['treasury', 'accounts', 'list', '-o', 'json'], {configDir: cfg, env: {HTTPS_PROXY: proxy.url()}})
    expect(r.code, r.stderr).toBe(0)
    expect(r.json().length).toBeGreaterThan(0)
    expect(proxy.seen).toEqual([expect.objectContaining({kind: 'connect', target: `api.corp.test:${tlsPort}`})])
    const pooled = await run(['treasury', 'accounts', 'list', '--all', '-o', 'json'], {configDir: cfg, env: {HTTPS_PROXY: proxy.url()}})
    expect(pooled.code, pooled.stderr).toBe(0)
    expect(pooled.json()).toEqual(r.json())
  })

  it('without the CA the certificate is refused: exit 7, not retried, naming the ca-file setting; NODE_EXTRA_CA_CERTS also trusts it', async () => {
    const cfg = await corpProfile()
    const r = await run(['treasury', 'accounts', 'list'], {configDir: cfg, env: {HTTPS_PROXY: proxy.url()}})
    expect(r.code, r.stderr).toBe(7)
    expect(r.stderr).toMatch(/\((UNABLE_TO_VERIFY_LEAF_SIGNATURE|SELF_SIGNED_CERT_IN_CHAIN); if TLS/)
    expect(r.stderr).toContain(`could not reach ${corpUrl()} through the proxy ${proxy.url()} (`)
    expect(r.stderr).toContain("; if TLS is inspected on this network, trust its CA with `payops profiles set NAME ca-file FILE.pem` or NODE_EXTRA_CA_CERTS).")
    expect(proxy.seen).toHaveLength(1)
    const extra = await run(['treasury', 'accounts', 'list', '-o', 'json'], {configDir: cfg, env: {HTTPS_PROXY: proxy.url(), NODE_EXTRA_CA_CERTS: caFile}})
    expect(extra.code, extra.stderr).toBe(0)
  })

  it('the profile proxy is above the environment, --proxy above the profile', async () => {
    const cfg = await corpProfile([['ca-file', caFile], ['proxy', proxy.url()]])
    const r = await run(['treasury', 'accounts', 'list', '-o', 'json'], {configDir: cfg, env: {HTTPS_PROXY: `http://127.0.0.1:${deadPort}`}})
    expect(r.code, r.stderr).toBe(0)
    expect(proxy.seen).toHaveLength(1)
    const flag = await run(['treasury', 'accounts', 'list', '--proxy', `http://127.0.0.1:${deadPort}`, '--max-retries', '0'], {configDir: cfg})
    expect(flag.code, flag.stderr).toBe(7)
    expect(flag.stderr).toContain(`could not reach the proxy http://127.0.0.1:${deadPort} (ECONNREFUSED)`)
    const shown = await run(['profiles', 'show', '-o', 'json'], {configDir: cfg, env: {HTTPS_PROXY: `http://127.0.0.1:${deadPort}`}})
    expect(shown.json()).toMatchObject({proxy: proxy.url(), proxy_source: 'profile "corp"', ca_file: caFile})
  })

  it('a proxy that refuses the tunnel: exit 7, one clear line, one attempt, nothing reached the API', async () => {
    const cfg = await corpProfile([['ca-file', caFile]])
    proxy.refuse = 403
    const r = await run(['treasury', 'accounts', 'list'], {configDir: cfg, env: {HTTPS_PROXY: proxy.url()}})
    expect(r.code, r.stderr).toBe(7)
    expect(humanLines(r.stderr)).toEqual([
      `Error: GET /api/treasury/accounts: the proxy ${proxy.url()} refused to pass the request to api.corp.test:${tlsPort} (it answered 403).`,
    ])
    expect(r.stderr).toContain(`GET /api/treasury/accounts: the proxy ${proxy.url()} refused to pass the request to api.corp.test:${tlsPort} (it answered 403).`)
    expect(proxy.seen).toHaveLength(1)
  })
})

describe('proxy credentials: sent to the proxy, never shown', () => {
  it('a proxy that demands credentials gets them from the URL; errors, --debug, profiles show and the audit trail never show them', async () => {
    const withAuth = proxy.url(`alice:${PASSWORD}@`)
    proxy.auth = `Basic ${Buffer.from(`alice:${PASSWORD}`).toString('base64')}`
    const cfg = await corpProfile([['ca-file', caFile], ['proxy', withAuth]])
    const ok = await run(['subaccounts', 'create', '--name', 'Through the proxy', '--debug', '-o', 'json'], {configDir: cfg})
    expect(ok.code, ok.stderr).toBe(0)
    expect(proxy.seen.map((s) => s.auth)).toEqual([proxy.auth])
    expect(ok.stderr).toContain(`through the proxy http://…@127.0.0.1:${proxy.port} (from profile "corp")`)
    noCredentials(ok.stdout + ok.stderr)

    const shown = await run(['profiles', 'show', 'corp', '-o', 'json'], {configDir: cfg})
    expect(shown.json().proxy).toBe(`http://…@127.0.0.1:${proxy.port}`)
    const table = await run(['profiles', 'show', '-o', 'table'], {configDir: cfg})
    expect(table.stdout).toContain(`http://…@127.0.0.1:${proxy.port}`)
    noCredentials(shown.stdout + table.stdout + table.stderr)

    // Wrong credentials: 407, one line naming the cause; the mutation's audit records show no secret.
    proxy.auth = 'Basic nope'
    const denied = await run(['subaccounts', 'create', '--name', 'Denied', '--debug'], {configDir: cfg})
    expect(denied.code, denied.stderr).toBe(7)
    expect(denied.stderr).toContain(`the proxy http://…@127.0.0.1:${proxy.port} refused to pass the request to api.corp.test:${tlsPort} (it answered 407: proxy authentication required; check the credentials in the proxy URL)`)
    noCredentials(denied.stdout + denied.stderr)
    const audit = exportedTrail(cfg)
    expect(audit).toContain('PROXY_REFUSED')
    noCredentials(audit)
  })

  it('--proxy and HTTP_PROXY with credentials: a forwarded 407 and a dead proxy are reported without them', async () => {
    proxy.auth = 'Basic nope'
    const r = await runAs(emu, 'test', ['treasury', 'accounts', 'list', '--proxy', proxy.url(`alice:${PASSWORD}@`), '--debug'])
    expect(r.code, r.stderr).toBe(7)
    expect(r.stderr).toContain(`the proxy http://…@127.0.0.1:${proxy.port} refused to pass the request`)
    expect(r.stderr).toContain('credentials in --proxy are visible to other users in the process list')
    noCredentials(r.stderr + r.stdout)
    const dead = await runAs(emu, 'test', ['treasury', 'accounts', 'list', '--max-retries', '0'], {env: {HTTP_PROXY: `http://alice:${PASSWORD}@127.0.0.1:${deadPort}`}})
    expect(dead.code, dead.stderr).toBe(7)
    expect(dead.stderr).toContain(`could not reach the proxy http://…@127.0.0.1:${deadPort} (ECONNREFUSED)`)
    noCredentials(dead.stderr + dead.stdout)
  })

  it('profiles set: a bad proxy URL or ca-file is exit 2 and changes nothing; set and unset say what they did', async () => {
    const cfg = await corpProfile()
    const bad = await run(['profiles', 'set', 'corp', 'proxy', `socks5://alice:${PASSWORD}@127.0.0.1:1080`], {configDir: cfg})
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain('payops speaks to http:// and https:// proxies only')
    noCredentials(bad.stderr)
    const path = await run(['profiles', 'set', 'corp', 'proxy', 'http://proxy:3128/some/path'], {configDir: cfg})
    expect(path.code).toBe(2)
    const notPem = join(dir.path, 'not.pem')
    writeFileSync(notPem, 'hello\n')
    const ca = await run(['profiles', 'set', 'corp', 'ca-file', notPem], {configDir: cfg})
    expect(ca.code).toBe(2)
    expect(ca.stderr).toContain('holds no PEM certificate')
    const missing = await run(['profiles', 'set', 'corp', 'ca-file', join(dir.path, 'none.pem')], {configDir: cfg})
    expect(missing.code).toBe(2)
    expect(JSON.parse(readFileSync(join(cfg, 'config.json'), 'utf8')).profiles.corp).not.toHaveProperty('proxy')
    const set = await run(['profiles', 'set', 'corp', 'proxy', `alice:${PASSWORD}@proxy.corp.test:3128`], {configDir: cfg})
    expect(set.code, set.stderr).toBe(0)
    expect(set.stderr).toContain('every request of this profile goes through http://…@proxy.corp.test:3128')
    noCredentials(set.stdout + set.stderr)
    const unset = await run(['profiles', 'unset', 'corp', 'proxy'], {configDir: cfg})
    expect(unset.code, unset.stderr).toBe(0)
    expect((await run(['profiles', 'unset', 'corp', 'proxy'], {configDir: cfg})).code).toBe(2)
    // A ca-file gone since it was set: exit 2 naming it, before any request.
    const gone = join(dir.path, 'gone-ca.pem')
    writeFileSync(gone, readFileSync(caFile))
    expect((await run(['profiles', 'set', 'corp', 'ca-file', gone], {configDir: cfg})).code).toBe(0)
    rmSync(gone)
    const unreadable = await run(['treasury', 'accounts', 'list'], {configDir: cfg, env: {HTTPS_PROXY: proxy.url()}})
    expect(unreadable.code, unreadable.stderr).toBe(2)
    expect(unreadable.stderr).toContain(`The ca-file of profile "corp" ${gone} cannot be read (ENOENT).`)
    expect(proxy.seen).toEqual([])
    const badFlag = await runAs(emu, 'test', ['treasury', 'accounts', 'list', '--proxy', `ftp://alice:${PASSWORD}@x`])
    expect(badFlag.code).toBe(2)
    noCredentials(badFlag.stderr)
  })
})

describe('requests outside the API client', () => {
  it('webhooks trigger and listen --forward-to go through a proxy on loopback (HTTP_PROXY), NO_PROXY bypasses it', async () => {
    const secret = `whsec_${randomBytes(16).toString('hex')}`
    knownSecrets.add(secret)
    const received: string[] = []
    const receiver = createServer((req, res) => {
      received.push(`${req.method} ${req.url}`)
      req.resume()
      res.end('ok')
    })
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r))
    const target = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`
    try {
      const env = {HTTP_PROXY: proxy.url(), PAYOPS_WEBHOOK_SECRET: secret}
      const t = await run(['webhooks', 'trigger', 'payin.settled', '--url', target, '--secret', secret, '-o', 'json'], {env})
      expect(t.code, t.stderr).toBe(0)
      expect(proxy.seen).toEqual([expect.objectContaining({kind: 'forward', method: 'POST', target})])
      expect(received).toEqual(['POST /hook'])

      proxy.seen = []
      const bypass = await run(['webhooks', 'trigger', 'payin.settled', '--url', target, '--secret', secret, '-o', 'json'], {env: {...env, NO_PROXY: 'localhost,127.0.0.1'}})
      expect(bypass.code, bypass.stderr).toBe(0)
      expect(proxy.seen).toEqual([])

      const l = startCli(['webhooks', 'listen', '--port', '0', '-o', 'ndjson', '--forward-to', target], {env})
      const listening = await waitFor(() => /Listening on (\S+)/.exec(l.stderr())?.[1])
      const sent = await run(['webhooks', 'trigger', 'payin.failed', '--url', listening, '--secret', secret, '-o', 'json'], {env: {PAYOPS_WEBHOOK_SECRET: secret, NO_PROXY: '127.0.0.1'}})
      expect(sent.code, sent.stderr).toBe(0)
      await waitFor(() => (received.length === 3 ? true : undefined))
      l.interrupt()
      await l.done
      expect(proxy.seen.filter((s) => s.target === target).map((s) => s.method)).toEqual(['POST'])
    } finally {
      await new Promise<void>((r) => receiver.close(() => r()))
    }
  })
})

describe('webhooks events resend', () => {
  it('goes through the proxy every other request takes (HTTP_PROXY), NO_PROXY bypasses it', async () => {
    const cfg = tempDir('payops-proxy-resend-').path
    const secret = `whsec_${randomBytes(16).toString('hex')}`
    knownSecrets.add(secret)
    const received: string[] = []
    const receiver = createServer((req, res) => {
      received.push(`${req.method} ${req.url}`)
      req.resume()
      res.end('ok')
    })
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r))
    const target = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`
    try {
      const l = startCliRun(['webhooks', 'listen', '--port', '0', '-o', 'ndjson', '--secret', secret], {configDir: cfg, env: UNSET})
      const listening = await waitFor(() => /Listening on (\S+)/.exec(l.stderr())?.[1])
      const sent = await run(['webhooks', 'trigger', 'payin.settled', '--url', listening, '--secret', secret, '-o', 'json'], {configDir: cfg, env: {PAYOPS_WEBHOOK_SECRET: secret}})
      expect(sent.code, sent.stderr).toBe(0)
      const id = await waitFor(() => /"id":"([^"]+)"/.exec(l.stdout())?.[1])
      l.interrupt()
      await l.done
      proxy.seen = []
      const resent = await run(['webhooks', 'events', 'resend', id, '--original-headers', '--forward-to', target, '-o', 'json'], {configDir: cfg, env: {HTTP_PROXY: proxy.url()}})
      expect(resent.code, resent.stderr).toBe(0)
      expect(proxy.seen).toEqual([expect.objectContaining({kind: 'forward', method: 'POST', target})])
      expect(received).toEqual(['POST /hook'])
      proxy.seen = []
      const direct = await run(['webhooks', 'events', 'resend', id, '--original-headers', '--forward-to', target, '-o', 'json'], {configDir: cfg, env: {HTTP_PROXY: proxy.url(), NO_PROXY: '127.0.0.1'}})
      expect(direct.code, direct.stderr).toBe(0)
      expect(proxy.seen).toEqual([])
      expect(received).toHaveLength(2)
    } finally {
      await new Promise<void>((r) => receiver.close(() => r()))
    }
  })
})

describe('a proxy that answers 401 or 407', () => {
  it('forwarding (an http:// base URL): the proxy\'s 401 or 407 is its refusal (exit 7, naming it), not a bad API key; one attempt', async () => {
    for (const status of [401, 407]) {
      proxy.seen = []
      proxy.refuse = status
      const r = await runAs(emu, 'test', ['subaccounts', 'get', '00000000-0000-4000-8000-000000000000', '--proxy', proxy.url()])
      expect(r.code, r.stderr).toBe(7)
      expect(humanLines(r.stderr)).toEqual([
        `Error: GET /api/subaccounts/00000000-0000-4000-8000-000000000000: the proxy ${proxy.url()} refused to pass the request to ${new URL(emu.baseUrl).host} (it answered ${status}: proxy authentication required; check the credentials in the proxy URL).`,
      ])
      expect(r.stderr).not.toMatch(/API key|AUTHENTICATION_ERROR/)
      expect(proxy.seen).toHaveLength(1)
    }
    // A money request the proxy refuses: nothing reached the API, so nothing is unknown.
    proxy.refuse = 401
    const made = await runAs(emu, 'test', ['subaccounts', 'create', '--name', 'Refused', '--proxy', proxy.url()])
    expect(made.code, made.stderr).toBe(7)
    // The API's own 401 through the same proxy is still a bad key: exit 3.
    proxy.refuse = undefined
    const bad = await runCliAs(emu, 'test_0000000000000000000000000000beef', ['subaccounts', 'get', '00000000-0000-4000-8000-000000000000', '--proxy', proxy.url()], {env: UNSET})
    expect(bad.code, bad.stderr).toBe(3)
  })

  it('tunnelling (an https:// API): a 401 to the CONNECT is the proxy\'s refusal, exit 7', async () => {
    const cfg = await corpProfile([['ca-file', caFile]])
    proxy.refuse = 401
    const r = await run(['treasury', 'accounts', 'list'], {configDir: cfg, env: {HTTPS_PROXY: proxy.url()}})
    expect(r.code, r.stderr).toBe(7)
    expect(humanLines(r.stderr)).toEqual([
      `Error: GET /api/treasury/accounts: the proxy ${proxy.url()} refused to pass the request to api.corp.test:${tlsPort} (it answered 401: proxy authentication required; check the credentials in the proxy URL).`,
    ])
  })
})

describe('watch --post', () => {
  it('the alert is posted through --proxy, as the API requests of the watch are', async () => {
    const cfg = tempDir('payops-proxy-watch-').path
    const cli = (args: string[], opts: {input?: string; env?: Record<string, string>} = {}) => run(args, {configDir: cfg, ...opts})
    expect((await cli(['profiles', 'add', 'ops', '--base-url', emu.baseUrl, '--key-stdin', '--use'], {input: emu.keys.test})).code).toBe(0)
    const sub = (await cli(['subaccounts', 'create', '--name', 'Watched float', '-o', 'json'])).json().id as string
    expect((await cli(['profiles', 'set', 'ops', 'watch', 'min-balance', sub, '1000000.00', 'USD'])).code).toBe(0)
    const received: string[] = []
    const receiver = createServer((req, res) => {
      received.push(`${req.method} ${req.url}`)
      req.resume()
      res.end('ok')
    })
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r))
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/alerts`
    try {
      const r = await cli(['watch', '--once', '-o', 'json', '--post', url, '--proxy', proxy.url()], {env: {PAYOPS_WATCH_SECRET: 'whsec_proxytestsecret0123456789'}})
      expect(r.code, r.stderr).toBe(9)
      expect(received).toEqual(['POST /alerts'])
      expect(proxy.seen.filter((s) => s.target === url).map((s) => s.method)).toEqual(['POST'])
      expect(proxy.seen.some((s) => s.target.startsWith(`${emu.baseUrl}/api/`))).toBe(true)
    } finally {
      await new Promise<void>((r) => receiver.close(() => r()))
    }
  })
})

async function waitFor<T>(fn: () => T | undefined, ms = 5000): Promise<T> {
  const end = Date.now() + ms
  for (;;) {
    const v = fn()
    if (v !== undefined && v !== false) return v
    if (Date.now() > end) throw new Error('timed out waiting')
    await new Promise((r) => setTimeout(r, 25))
  }
}
