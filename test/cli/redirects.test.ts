/**
 * The real CLI against a server that redirects elsewhere: payops never follows (one-shot commands
 * on fetch, `--all` on the pooled transport), and the server redirected to receives nothing.
 * Also: an unreachable API names the connection error, and a fresh config directory is 0700.
 */
import {randomBytes} from 'node:crypto'
import {statSync} from 'node:fs'
import {createServer, type Server} from 'node:http'
import {createServer as createNetServer, type AddressInfo} from 'node:net'
import {join} from 'node:path'
import {afterAll, afterEach, beforeAll, describe, expect, it} from 'vitest'
import {expectNothingSent, knownSecrets, run, startEmulator, tempDir} from '../support/index.js'

const apiKey = `test_${randomBytes(12).toString('hex')}`
knownSecrets.add(apiKey)

const dir = tempDir('payops-redirects-')
let target: Server
let redirector: Server
let targetPort = 0
let redirectorPort = 0
let targetHits = 0
let redirectorHits = 0
let answer: {status: number; host: string; port?: number} = {status: 307, host: '0.0.0.0'}

const listen = (s: Server) => new Promise<number>((r) => s.listen(0, '127.0.0.1', () => r((s.address() as AddressInfo).port)))
const close = (s: Server) => new Promise<void>((r) => s.close(() => r()))

beforeAll(async () => {
  target = createServer((req, res) => {
    targetHits++
    req.resume()
    res.writeHead(200, {'content-type': 'application/json'})
    res.end(JSON.stringify({data: {id: 'sub_stolen', name: 'not the API'}}))
  })
  redirector = createServer((req, res) => {
    redirectorHits++
    req.resume()
    res.writeHead(answer.status, {location: `http://${answer.host}:${answer.port ?? targetPort}${req.url}`})
    res.end()
  })
  targetPort = await listen(target)
  redirectorPort = await listen(redirector)
})

afterAll(async () => {
  await close(redirector)
  await close(target)
  dir.cleanup()
})

afterEach(() => {
  targetHits = 0
  redirectorHits = 0
  answer = {status: 307, host: '0.0.0.0'}
})

const cli = (args: string[], baseUrl = `http://127.0.0.1:${redirectorPort}`) =>
  run(args, {configDir: dir.path, env: {PAYOPS_BASE_URL: baseUrl, PAYOPS_API_KEY: apiKey}})

describe('payops does not follow redirects', () => {
  it('subaccounts get: exit 7, one attempt, the message names status and Location', async () => {
    const r = await cli(['subaccounts', 'get', 'sub_1', '--debug'])
    expect(r.code, r.stderr).toBe(7)
    expect(r.stdout).not.toContain('stolen')
    expect(r.stderr).toContain(
      `GET /api/subaccounts/sub_1: the server answered 307 redirecting to http://0.0.0.0:${targetPort}/api/subaccounts/sub_1; payops does not follow redirects (the API key is only sent to the configured base URL). Check --base-url.`,
    )
    expect(r.stderr).toContain('attempt 1/3')
    expect(r.stderr).not.toContain('attempt 2/3')
    expect(redirectorHits).toBe(1)
    expect(targetHits).toBe(0)
  })

  it('api POST with a body: refused the same way (302 to localhost)', async () => {
    answer = {status: 302, host: 'localhost'}
    const r = await cli(['api', 'POST', '/api/subaccounts', '-f', 'name=x', '--yes'])
    expect(r.code, r.stderr).toBe(7)
    expect(r.stdout).not.toContain('stolen')
    expect(r.stderr).toContain(`POST /api/subaccounts: the server answered 302 redirecting to http://localhost:${targetPort}/api/subaccounts;`)
    expect(redirectorHits).toBe(1)
    expect(targetHits).toBe(0)
  })

  it('a --all list (the pooled transport): refused the same way', async () => {
    const r = await cli(['payees', 'list', '--all'])
    expect(r.code, r.stderr).toBe(7)
    expect(r.stderr).toContain('the server answered 307 redirecting to http://0.0.0.0:')
    expect(r.stderr).toContain('payops does not follow redirects')
    expect(redirectorHits).toBe(1)
    expect(targetHits).toBe(0)
  })

  it('a redirect to a real API that knows the key (the emulator) is refused too: it receives nothing', async () => {
    const emu = await startEmulator()
    const sub = (await run(['subaccounts', 'create', '--name', 'Target'], {configDir: dir.path, env: {PAYOPS_BASE_URL: emu.baseUrl, PAYOPS_API_KEY: emu.keys.test}})).json().id
    answer = {status: 308, host: 'localhost', port: Number(new URL(emu.baseUrl).port)}
    const env = {PAYOPS_BASE_URL: `http://127.0.0.1:${redirectorPort}`, PAYOPS_API_KEY: emu.keys.test}
    // The request went to the base URL (the redirector; a POST is audited as sent there); the emulator gets nothing.
    const get = await expectNothingSent(emu, () => run(['subaccounts', 'get', sub], {configDir: dir.path, env}))
    expect(get.code, get.stderr).toBe(7)
    expect(get.stdout).toBe('')
    expect(get.stderr).toContain(`GET /api/subaccounts/${sub}: the server answered 308 redirecting to ${emu.baseUrl.replace('127.0.0.1', 'localhost')}/api/subaccounts/${sub};`)
    const post = await expectNothingSent(emu, () => run(['api', 'POST', '/api/subaccounts', '-f', 'name=Redirected', '--yes'], {configDir: dir.path, env}))
    expect(post.code, post.stderr).toBe(7)
    expect(redirectorHits).toBe(2)
    expect(targetHits).toBe(0)
  })
})

describe('an unreachable API', () => {
  it('names ECONNREFUSED on port 1 (one-shot) and on a closed port (--all)', async () => {
    const one = await cli(['subaccounts', 'get', 'X', '--max-retries', '0'], 'http://127.0.0.1:1')
    expect(one.code, one.stderr).toBe(7)
    expect(one.stderr).toContain('could not reach http://127.0.0.1:1 (ECONNREFUSED)')

    const s = createNetServer()
    const port = await new Promise<number>((r) => s.listen(0, '127.0.0.1', () => r((s.address() as AddressInfo).port)))
    await new Promise<void>((r) => s.close(() => r()))
    const all = await cli(['payees', 'list', '--all', '--max-retries', '0'], `http://127.0.0.1:${port}`)
    expect(all.code, all.stderr).toBe(7)
    expect(all.stderr).toContain(`could not reach http://127.0.0.1:${port} (ECONNREFUSED)`)
  })
})

describe('the config directory', () => {
  it('is 0700 after profiles add creates it', async () => {
    const fresh = join(dir.path, 'fresh-config')
    const r = await run(['profiles', 'add', 'sandbox', '--base-url', 'http://127.0.0.1:4010', '--key-stdin'], {configDir: fresh, input: `${apiKey}\n`})
    expect(r.code, r.stderr).toBe(0)
    expect(statSync(fresh).mode & 0o777).toBe(0o700)
    expect(statSync(join(fresh, 'config.json')).mode & 0o777).toBe(0o600)
  })
})
