import {randomBytes} from 'node:crypto'
import {createServer, type IncomingMessage, type Server} from 'node:http'
import {createServer as createNetServer} from 'node:net'
import type {AddressInfo} from 'node:net'
import {afterAll, afterEach, beforeAll, describe, expect, it} from 'vitest'
import {ApiClient} from '../../src/api/client.js'
import {wireError} from '../../src/api/transport.js'
import {NetworkError} from '../../src/errors.js'

interface Seen {
  method: string
  url: string
  apiKey?: string
  body: string
}

function listen(handler: (req: IncomingMessage, body: string, res: import('node:http').ServerResponse) => void): Promise<{server: Server; port: number}> {
  const server = createServer((req, res) => {
    let body = ''
    req.on('data', (d) => (body += d))
    req.on('end', () => handler(req, body, res))
  })
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({server, port: (server.address() as AddressInfo).port})))
}

const close = (s: Server) => new Promise<void>((r) => s.close(() => r()))

/** A port nothing listens on: bound once, then released. */
async function closedPort(): Promise<number> {
  const s = createNetServer()
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()))
  const port = (s.address() as AddressInfo).port
  await new Promise<void>((r) => s.close(() => r()))
  return port
}

// A throwaway key made up for this test; it never leaves the test's own loopback servers.
const apiKey = `test_${randomBytes(12).toString('hex')}`

let target: {server: Server; port: number}
let redirector: {server: Server; port: number}
const received: Seen[] = []
let redirectorHits = 0
let answer: {status: number; location: (port: number) => string | undefined} = {status: 307, location: (p) => `http://0.0.0.0:${p}/steal`}

beforeAll(async () => {
  target = await listen((req, body, res) => {
    received.push({method: req.method!, url: req.url!, apiKey: req.headers['x-api-key'] as string | undefined, body})
    res.writeHead(200, {'content-type': 'application/json'})
    res.end(JSON.stringify({data: {id: 'stolen', name: 'not the API'}}))
  })
  redirector = await listen((_req, _body, res) => {
    redirectorHits++
    const location = answer.location(target.port)
    res.writeHead(answer.status, location === undefined ? {} : {location})
    res.end()
  })
})

afterAll(async () => {
  await close(redirector.server)
  await close(target.server)
})

afterEach(() => {
  received.length = 0
  redirectorHits = 0
  answer = {status: 307, location: (p) => `http://0.0.0.0:${p}/steal`}
})

function client(transport: 'http' | 'pool', baseUrl = `http://127.0.0.1:${redirector.port}`): ApiClient {
  return new ApiClient({baseUrl, apiKey, transport, maxRetries: 2, sleep: async () => undefined, timeoutMs: 10_000})
}

async function failure(p: Promise<unknown>): Promise<NetworkError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  )
  expect(err).toBeInstanceOf(NetworkError)
  return err as NetworkError
}

describe.each(['http', 'pool'] as const)('redirects are refused (%s transport)', (transport) => {
  it('a 307 to another origin on GET: exit 7, names status and Location, sends nothing there, no retry', async () => {
    const c = client(transport)
    try {
      const err = await failure(c.request({method: 'GET', path: '/api/subaccounts/X'}))
      expect(err.exitCode).toBe(7)
      expect(err.code).toBe('REDIRECT')
      expect(err.message).toBe(
        `GET /api/subaccounts/X: the server answered 307 redirecting to http://0.0.0.0:${target.port}/steal; payops does not follow redirects (the API key is only sent to the configured base URL). Check --base-url.`,
      )
      expect(err.message).not.toContain(apiKey)
      expect(redirectorHits).toBe(1)
      expect(received).toEqual([])
    } finally {
      await c.close()
    }
  })

  it('a 302 to localhost on a POST with a body and an Idempotency-Key: refused, not retried', async () => {
    answer = {status: 302, location: (p) => `http://localhost:${p}/api/subaccounts`}
    const c = client(transport)
    try {
      const err = await failure(c.request({method: 'POST', path: '/api/subaccounts', body: {name: 'x'}, idempotencyKey: 'k-1'}))
      expect(err.exitCode).toBe(7)
      expect(err.message).toContain(`POST /api/subaccounts: the server answered 302 redirecting to http://localhost:${target.port}/api/subaccounts;`)
      expect(redirectorHits).toBe(1)
      expect(received).toEqual([])
    } finally {
      await c.close()
    }
  })

  it('a relative Location is shown resolved; a 3xx without Location says so', async () => {
    answer = {status: 308, location: () => '/elsewhere'}
    const c = client(transport)
    try {
      const err = await failure(c.request({method: 'GET', path: '/api/payees'}))
      expect(err.message).toContain(`answered 308 redirecting to http://127.0.0.1:${redirector.port}/elsewhere;`)
      answer = {status: 301, location: () => undefined}
      const bare = await failure(c.request({method: 'GET', path: '/api/payees'}))
      expect(bare.message).toContain('answered 301 (a redirect without a Location); payops does not follow redirects')
      expect(received).toEqual([])
    } finally {
      await c.close()
    }
  })
})

describe.each(['http', 'pool'] as const)('unreachable API (%s transport)', (transport) => {
  it('names the connection error, not "Error"', async () => {
    const port = await closedPort()
    const c = client(transport, `http://127.0.0.1:${port}`)
    try {
      const err = await failure(c.request({method: 'GET', path: '/api/subaccounts/X'}))
      expect(err.exitCode).toBe(7)
      expect(err.code).toBe('ECONNREFUSED')
      expect(err.message).toBe(`GET /api/subaccounts/X: could not reach http://127.0.0.1:${port} (ECONNREFUSED) after 3 attempts.`)
    } finally {
      await c.close()
    }
  })

  it('port 1 (a port fetch itself refuses to use) is tried and reported as ECONNREFUSED', async () => {
    const c = client(transport, 'http://127.0.0.1:1')
    try {
      const err = await failure(c.request({method: 'GET', path: '/api/subaccounts/X'}))
      expect(err.code).toBe('ECONNREFUSED')
      expect(err.message).toContain('could not reach http://127.0.0.1:1 (ECONNREFUSED)')
    } finally {
      await c.close()
    }
  })
})

describe('wireError', () => {
  it('digs the code out of fetch\'s cause and out of AggregateError members', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), {code: 'ECONNREFUSED'})
    expect(wireError(new TypeError('fetch failed', {cause: refused})).code).toBe('ECONNREFUSED')
    const aggregate = new AggregateError([Object.assign(new Error('a'), {code: 'ECONNREFUSED'}), Object.assign(new Error('b'), {code: 'ECONNREFUSED'})])
    expect(wireError(new TypeError('fetch failed', {cause: aggregate})).code).toBe('ECONNREFUSED')
    const reset = Object.assign(new Error('other side closed'), {code: 'UND_ERR_SOCKET', cause: Object.assign(new Error('read ECONNRESET'), {code: 'ECONNRESET'})})
    expect(wireError(reset).code).toBe('ECONNRESET')
  })

  it('a timeout is ETIMEDOUT; with no code at all it names the cause, never a bare "Error"', () => {
    expect(wireError(new DOMException('The operation was aborted due to timeout', 'TimeoutError')).code).toBe('ETIMEDOUT')
    expect(wireError(new TypeError('fetch failed', {cause: new Error('unknown scheme')})).code).toBe('unknown scheme')
    expect(wireError(new Error('')).code).toBe('ERROR')
  })
})
