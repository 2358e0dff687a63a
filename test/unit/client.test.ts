import {createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse} from 'node:http'
import type {AddressInfo} from 'node:net'
import {afterAll, afterEach, beforeAll, beforeEach, describe, expect, it} from 'vitest'
import {z} from 'zod'
import {ApiClient, buildQuery, isLoopbackHost, oneLine, p, type ClientOptions} from '../../src/api/client.js'
import {Move} from '../../src/api/schemas/moves.js'
import {ApiError, NetworkError, ResponseError, UsageError} from '../../src/errors.js'

interface Hit {
  method: string
  url: string
  headers: IncomingHttpHeaders
  body: string
}

type Handler = (req: IncomingMessage, res: ServerResponse, hit: Hit) => void

let server: Server
let baseUrl: string
let handler: Handler
const hits: Hit[] = []
const clients: ApiClient[] = []

const KEY = 'test_Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2'
const KEY_SHOWN = 'test_…3Lk2'

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = typeof body === 'string' ? body : JSON.stringify(body)
  res.writeHead(status, {'content-type': 'application/json', ...headers})
  res.end(text)
}

/** Answers each hit in turn from the list (the last answer repeats). */
function sequence(...answers: Array<(res: ServerResponse) => void>): Handler {
  return (_req, res) => {
    const answer = answers[Math.min(hits.length - 1, answers.length - 1)]
    answer(res)
  }
}

function client(opts: Partial<ClientOptions> & {delays?: number[]} = {}): ApiClient {
  const delays = opts.delays
  const c = new ApiClient({
    baseUrl,
    apiKey: KEY,
    random: () => 0.5,
    sleep: async (ms) => {
      delays?.push(ms)
    },
    ...opts,
  })
  clients.push(c)
  return c
}

async function caught(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise
  } catch (err) {
    return err
  }
  throw new Error('expected the request to fail')
}

const A = '3f1c2a9e-6b7d-4c8e-9f01-23456789abcd'
const B = '7a2b3c4d-5e6f-4a1b-8c9d-0e1f2a3b4c5d'
const MOVE = {id: 'mv_1', from_subaccount_id: A, to_subaccount_id: B, amount_in_minor_units: 1234, status: 'settled'}

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const hit = {method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8')}
      hits.push(hit)
      handler(req, res, hit)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})

afterAll(async () => {
  server.closeAllConnections()
  await new Promise<void>((resolve) => server.close(() => resolve()))
})

beforeEach(() => {
  hits.length = 0
  handler = (_req, res) => send(res, 500, {error_code: 'NO_HANDLER', message: 'no handler'})
})

afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()))
})

describe('ApiClient success responses', () => {
  it('parses the envelope data with the schema and sends the key and JSON headers', async () => {
    handler = (_req, res) => send(res, 200, {data: {...MOVE, status: 'SETTLED', source_subaccount_id: 'ignored', extra: 1}}, {'x-request-id': 'req_abc'})
    const res = await client().request({method: 'GET', path: '/api/moves/mv_1', query: {expand: ['a', 'b'], skip: undefined}, schema: Move})
    expect(res.status).toBe(200)
    expect(res.data.status).toBe('settled')
    expect(res.data.from_subaccount_id).toBe(A)
    expect((res.data as Record<string, unknown>).extra).toBe(1)
    expect(res.requestId).toBe('req_abc')
    expect(res.warning).toBeUndefined()
    expect(hits).toHaveLength(1)
    expect(hits[0].method).toBe('GET')
    expect(hits[0].url).toBe('/api/moves/mv_1?expand=a&expand=b')
    expect(hits[0].headers['x-api-key']).toBe(KEY)
    expect(hits[0].headers.accept).toBe('application/json')
    expect(hits[0].headers['content-type']).toBeUndefined()
  })

  it('sends a JSON body with content-type and the idempotency key', async () => {
    handler = (_req, res) => send(res, 201, {data: MOVE})
    const res = await client().request({movement: true, method: 'POST', path: '/api/subaccounts/move', body: {amount_in_minor_units: 5}, idempotencyKey: 'idem-1', schema: Move})
    expect(res.status).toBe(201)
    expect(hits[0].headers['content-type']).toBe('application/json')
    expect(hits[0].headers['idempotency-key']).toBe('idem-1')
    expect(JSON.parse(hits[0].body)).toEqual({amount_in_minor_units: 5})
  })

  it('returns 207 with the warning surfaced', async () => {
    handler = (_req, res) => send(res, 207, {data: {...MOVE, status: 'APPROVED'}, warning: 'settlement failed'})
    const res = await client().request({movement: true, method: 'POST', path: '/api/subaccounts/move/mv_1/approve', body: {}, schema: Move})
    expect(res.status).toBe(207)
    expect(res.warning).toBe('settlement failed')
    expect(res.data.status).toBe('approved')
  })

  it('returns the whole body with bare', async () => {
    handler = (_req, res) => send(res, 200, {anything: [1, 2]})
    const res = await client().request({method: 'GET', path: '/x', bare: true})
    expect(res.data).toEqual({anything: [1, 2]})
  })

  it('accepts an empty body', async () => {
    handler = (_req, res) => {
      res.writeHead(204)
      res.end()
    }
    const res = await client().request({movement: true, method: 'DELETE', path: '/api/subaccounts/move/mv_1'})
    expect(res.status).toBe(204)
    expect(res.data).toBeUndefined()
  })

  it('sends rawBody unchanged', async () => {
    handler = (_req, res) => send(res, 200, {data: {}})
    await client().request({method: 'POST', path: '/raw', rawBody: '{"a":  1}', headers: {'Content-Type': 'application/merge-patch+json'}})
    expect(hits[0].body).toBe('{"a":  1}')
    expect(hits[0].headers['content-type']).toBe('application/merge-patch+json')
  })
})

describe('ApiClient error responses', () => {
  it.each([
    [400, 'VALIDATION_ERROR', 8],
    [401, 'AUTHENTICATION_ERROR', 3],
    [403, 'AUTHORIZATION_ERROR', 3],
    [404, 'NOT_FOUND', 4],
    [409, 'IDEMPOTENCY_KEY_CONFLICT', 5],
  ])('maps %d %s to exit code %d', async (status, code, exitCode) => {
    handler = (_req, res) => send(res, status, {error_code: code, message: `it failed\nwith ${code}`}, {'x-request-id': 'req_42'})
    const err = (await caught(client().request({method: 'GET', path: '/api/x'}))) as ApiError
    expect(err).toBeInstanceOf(ApiError)
    expect(err.status).toBe(status)
    expect(err.errorCode).toBe(code)
    expect(err.message).toBe(`it failed with ${code}`)
    expect(err.requestId).toBe('req_42')
    expect(err.exitCode).toBe(exitCode)
    expect(err.describe()).toBe(`${status} ${code}: it failed with ${code} (request req_42)`)
    expect(hits).toHaveLength(1)
  })

  it('maps 500 to exit 1 after the retries', async () => {
    const delays: number[] = []
    handler = (_req, res) => send(res, 500, {error: {code: 'INTERNAL', message: 'boom'}})
    const err = (await caught(client({delays}).request({method: 'GET', path: '/api/x'}))) as ApiError
    expect(err).toBeInstanceOf(ApiError)
    expect(err.status).toBe(500)
    expect(err.errorCode).toBe('INTERNAL')
    expect(err.exitCode).toBe(1)
    expect(hits).toHaveLength(3)
    expect(delays).toHaveLength(2)
  })

  it('takes the request id from the body when the header is absent', async () => {
    handler = (_req, res) => send(res, 404, {error_code: 'NOT_FOUND', message: 'gone', request_id: 'req_body'})
    const err = (await caught(client().request({method: 'GET', path: '/api/x'}))) as ApiError
    expect(err.requestId).toBe('req_body')
  })

  it('turns an HTML error page into a one-line ApiError', async () => {
    handler = (_req, res) => {
      res.writeHead(502, {'content-type': 'text/html; charset=utf-8'})
      res.end('<html>\n<head><title>502 Bad Gateway</title></head>\n<body>\n<h1>Bad   Gateway</h1>\n<p>nginx</p></body></html>')
    }
    const err = (await caught(client({maxRetries: 0}).request({method: 'GET', path: '/api/x'}))) as ApiError
    expect(err).toBeInstanceOf(ApiError)
    expect(err.status).toBe(502)
    expect(err.exitCode).toBe(1)
    expect(err.message).not.toMatch(/[\n<>]/)
    expect(err.message).toContain('HTTP 502 from GET /api/x')
    expect(err.message).toContain('text/html')
    expect(err.message).toContain('Bad Gateway')
  })

  it('raises a ResponseError (exit 1) for a 200 whose body is not JSON', async () => {
    handler = (_req, res) => {
      res.writeHead(200, {'content-type': 'text/plain'})
      res.end('OK\nall good')
    }
    const err = (await caught(client().request({method: 'GET', path: '/api/x', schema: Move}))) as ResponseError
    expect(err).toBeInstanceOf(ResponseError)
    expect(err.exitCode).toBe(1)
    expect(err.status).toBe(200)
    expect(err.message).toContain('not JSON')
    expect(err.message).not.toContain('\n')
  })

  it('raises a ResponseError when the envelope has no data', async () => {
    handler = (_req, res) => send(res, 200, {result: MOVE})
    const err = (await caught(client().request({method: 'GET', path: '/api/x', schema: Move}))) as ResponseError
    expect(err).toBeInstanceOf(ResponseError)
    expect(err.message).toContain('"data" field is missing')
  })

  it('raises a ResponseError naming a missing required field', async () => {
    const {status: _s, ...noStatus} = MOVE
    handler = (_req, res) => send(res, 200, {data: noStatus}, {'x-request-id': 'req_9'})
    const err = (await caught(client().request({method: 'GET', path: '/api/x', schema: Move}))) as ResponseError
    expect(err).toBeInstanceOf(ResponseError)
    expect(err.exitCode).toBe(1)
    expect(err.message).toContain('data.status')
    expect(err.requestId).toBe('req_9')
  })

  it('raises a ResponseError for a JSON body that is not an object', async () => {
    handler = (_req, res) => send(res, 200, [1, 2])
    const err = await caught(client().request({method: 'GET', path: '/api/x', schema: Move}))
    expect(err).toBeInstanceOf(ResponseError)
  })
})

describe('ApiClient retries', () => {
  it('retries a GET on 503 up to maxRetries, with backoff, then fails', async () => {
    const delays: number[] = []
    handler = (_req, res) => send(res, 503, {error_code: 'UNAVAILABLE', message: 'try later'})
    const err = (await caught(client({delays, maxRetries: 3}).request({method: 'GET', path: '/api/x'}))) as ApiError
    expect(err).toBeInstanceOf(ApiError)
    expect(err.status).toBe(503)
    expect(hits).toHaveLength(4)
    expect(delays).toEqual([100, 200, 400])
  })

  it('succeeds when a retry succeeds', async () => {
    const delays: number[] = []
    handler = sequence(
      (res) => send(res, 502, 'bad gateway'),
      (res) => send(res, 200, {data: MOVE}),
    )
    const res = await client({delays}).request({method: 'GET', path: '/api/x', schema: Move})
    expect(res.status).toBe(200)
    expect(hits).toHaveLength(2)
    expect(delays).toHaveLength(1)
  })

  it('honours Retry-After', async () => {
    const delays: number[] = []
    handler = sequence(
      (res) => send(res, 503, {message: 'busy'}, {'retry-after': '2'}),
      (res) => send(res, 429, {message: 'slow down'}, {'retry-after': '0.5'}),
      (res) => send(res, 200, {data: MOVE}),
    )
    const res = await client({delays}).request({method: 'GET', path: '/api/x', schema: Move})
    expect(res.status).toBe(200)
    expect(delays).toEqual([2000, 500])
    expect(hits).toHaveLength(3)
  })

  it('does not wait past the overall timeout for a long Retry-After', async () => {
    const delays: number[] = []
    handler = (_req, res) => send(res, 503, {message: 'busy'}, {'retry-after': '60'})
    const err = (await caught(client({delays, timeoutMs: 5000}).request({method: 'GET', path: '/api/x'}))) as ApiError
    expect(err.status).toBe(503)
    expect(hits).toHaveLength(1)
    expect(delays).toEqual([])
  })

  it('does not retry a POST without an idempotency key', async () => {
    const delays: number[] = []
    handler = (_req, res) => send(res, 503, {message: 'busy'})
    const err = (await caught(client({delays}).request({movement: true, method: 'POST', path: '/api/subaccounts/move', body: {}}))) as ApiError
    expect(err.status).toBe(503)
    expect(hits).toHaveLength(1)
    expect(delays).toEqual([])
  })

  it('re-sends a request the spec makes idempotent (move create with its key), with the same key and body each time', async () => {
    handler = sequence(
      (res) => send(res, 503, {message: 'busy'}),
      (res) => send(res, 201, {data: MOVE}),
    )
    const res = await client({delays: []}).request({movement: true, method: 'POST', path: '/api/subaccounts/move', body: {a: 1}, idempotencyKey: 'k-1', idempotent: true, schema: Move})
    expect(res.status).toBe(201)
    expect(res.earlierAttemptUncertain).toBe(true)
    expect(hits.map((h) => h.headers['idempotency-key'])).toEqual(['k-1', 'k-1'])
    expect(hits.map((h) => h.body)).toEqual(['{"a":1}', '{"a":1}'])
  })

  it.each([500, 503, 429, 408])('does not re-send a keyed write the spec makes no promise for after a %i (it may come after the commit)', async (status) => {
    const delays: number[] = []
    handler = sequence(
      (res) => send(res, status, {message: 'oops'}),
      (res) => send(res, 201, {data: MOVE}),
    )
    const err = (await caught(client({delays}).request({movement: true, method: 'POST', path: '/api/treasury/account-transfers', body: {}, headers: {'Idempotency-Key': 'h-1'}}))) as ApiError
    expect(err.status).toBe(status)
    expect(hits).toHaveLength(1)
    expect(delays).toEqual([])
  })

  it('does not re-send a DELETE (a move cancel) after a 503', async () => {
    handler = (_req, res) => send(res, 503, {message: 'busy'})
    const err = (await caught(client({delays: []}).request({movement: true, method: 'DELETE', path: '/api/subaccounts/move/mv_1'}))) as ApiError
    expect(err.status).toBe(503)
    expect(hits).toHaveLength(1)
  })

  it('does not re-send a write after a reset (the server may have acted)', async () => {
    handler = (req) => req.socket.destroy()
    const err = (await caught(client({delays: []}).request({movement: true, method: 'POST', path: '/api/subaccounts/move/mv_1/approve', body: {}}))) as NetworkError
    expect(err).toBeInstanceOf(NetworkError)
    expect(hits).toHaveLength(1)
  })

  it('does not retry 4xx answers', async () => {
    handler = (_req, res) => send(res, 400, {error_code: 'VALIDATION_ERROR', message: 'no'})
    await caught(client({delays: []}).request({method: 'GET', path: '/api/x'}))
    expect(hits).toHaveLength(1)
  })
})

describe('ApiClient network failures', () => {
  it('reports connection refused as a NetworkError (exit 7) after the retries', async () => {
    const closed = createServer()
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve))
    const port = (closed.address() as AddressInfo).port
    await new Promise<void>((resolve) => closed.close(() => resolve()))
    const delays: number[] = []
    const err = (await caught(client({baseUrl: `http://127.0.0.1:${port}`, delays}).request({method: 'GET', path: '/api/x'}))) as NetworkError
    expect(err).toBeInstanceOf(NetworkError)
    expect(err.exitCode).toBe(7)
    expect(err.code).toBe('ECONNREFUSED')
    expect(err.message).toContain('could not reach')
    expect(err.message).toContain('after 3 attempts')
    expect(delays).toHaveLength(2)
  })

  it('tries a write again when the connection was refused (nothing was sent), and says so in the trace', async () => {
    const closed = createServer()
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve))
    const port = (closed.address() as AddressInfo).port
    await new Promise<void>((resolve) => closed.close(() => resolve()))
    const delays: number[] = []
    const lines: string[] = []
    const c = client({baseUrl: `http://127.0.0.1:${port}`, delays, trace: (l) => lines.push(l)})
    const err = (await caught(c.request({movement: true, method: 'DELETE', path: '/api/subaccounts/move/mv_1'}))) as NetworkError
    expect(err.code).toBe('ECONNREFUSED')
    expect(err.message).toContain('after 3 attempts')
    expect(delays).toHaveLength(2)
    expect((err as {earlierAttemptUncertain?: boolean}).earlierAttemptUncertain).toBeUndefined()
    expect(lines.filter((l) => l.startsWith('→')).map((l) => l.replace(/ \[.*$/, ''))).toEqual([
      '→ DELETE /api/subaccounts/move/mv_1 attempt 1/1',
      '→ DELETE /api/subaccounts/move/mv_1 attempt 2/3',
      '→ DELETE /api/subaccounts/move/mv_1 attempt 3/3',
    ])
  })

  it('reports a timeout as a NetworkError (exit 7)', async () => {
    handler = () => undefined
    const started = Date.now()
    const err = (await caught(client({timeoutMs: 300, delays: []}).request({method: 'GET', path: '/api/hang'}))) as NetworkError
    expect(err).toBeInstanceOf(NetworkError)
    expect(err.exitCode).toBe(7)
    expect(err.message).toContain('timed out')
    expect(Date.now() - started).toBeLessThan(5000)
    expect(hits.length).toBeGreaterThanOrEqual(1)
  })

  it('reports a timeout of a POST without retries as a NetworkError too', async () => {
    handler = () => undefined
    const err = (await caught(client({timeoutMs: 300}).request({method: 'POST', path: '/api/hang', body: {}}))) as NetworkError
    expect(err).toBeInstanceOf(NetworkError)
    expect(err.message).toContain('timed out')
    expect(hits).toHaveLength(1)
  })
})

describe('ApiClient construction', () => {
  it.each(['http://api.example.com', 'http://10.0.0.1:8080', 'http://127.0.0.1.evil.com', 'http://localhost.evil.com'])(
    'refuses to send a key over plain http to %s',
    (url) => {
      expect(() => new ApiClient({baseUrl: url, apiKey: KEY})).toThrow(UsageError)
    },
  )

  it.each(['http://localhost:4010', 'http://127.0.0.1:1', 'http://127.1.2.3', 'http://[::1]:8080', 'https://api.example.com'])('accepts %s with a key', (url) => {
    expect(new ApiClient({baseUrl: url, apiKey: KEY}).baseUrl.href).toContain(new URL(url).host)
  })

  it('allows plain http to anywhere without a key', () => {
    expect(() => new ApiClient({baseUrl: 'http://api.example.com'})).not.toThrow()
  })

  it.each(['not a url', 'ftp://example.com', ''])('rejects the base URL %j', (url) => {
    const err = (() => {
      try {
        new ApiClient({baseUrl: url})
      } catch (e) {
        return e
      }
    })() as UsageError
    expect(err).toBeInstanceOf(UsageError)
    expect(err.exitCode).toBe(2)
  })

  it('isLoopbackHost knows the loopback names', () => {
    expect(isLoopbackHost('localhost')).toBe(true)
    expect(isLoopbackHost('127.0.0.1')).toBe(true)
    expect(isLoopbackHost('[::1]')).toBe(true)
    expect(isLoopbackHost('128.0.0.1')).toBe(false)
    expect(isLoopbackHost('example.com')).toBe(false)
  })

  it('joins the base path and the request path', () => {
    const c = new ApiClient({baseUrl: 'https://h.example/base/'})
    expect(c.url('/api/x', {a: 1})).toBe('https://h.example/base/api/x?a=1')
    expect(c.url('api/x')).toBe('https://h.example/base/api/x')
  })

  it('only the movement pipeline reaches a money endpoint: the path judged is the base URL path joined with the request path', async () => {
    const audit = {intents: 0, intent: async () => void audit.intents++, outcome: async () => undefined}
    const under = (path: string) => client({baseUrl: `${baseUrl}${path}`, audit})
    for (const [base, path, method] of [
      ['/api/subaccounts', '/move', 'POST'],
      ['/api/subaccounts/move', '/', 'POST'],
      ['/api', '/subaccounts/move/mv_1/approve', 'POST'],
      ['/api/subaccounts/move', '/mv_1', 'DELETE'],
      ['/api/treasury', '/account-transfers', 'POST'],
      ['/gw/api/treasury/accounts', '/acc/simulate-inbound-credit', 'POST'],
      ['', '/API/Subaccounts/move.', 'POST'],
      ['/api/subaccounts', '/mo%76e', 'POST'],
    ] as const) {
      const err = await caught(under(base).request({method, path, body: {}}))
      expect(err, `${base} ${path}`).toBeInstanceOf(UsageError)
      expect((err as Error).message).toMatch(/an endpoint that moves money, outside payops' money checks/)
    }
    expect(hits).toHaveLength(0)
    expect(audit.intents).toBe(0)
    // A read, another endpoint, and the pipeline's own request go out.
    handler = (_req, res) => send(res, 200, {data: MOVE})
    await under('/api/subaccounts').request({method: 'GET', path: '/move'})
    await under('/api').request({method: 'POST', path: '/subaccounts', body: {name: 'x'}})
    await under('/api/subaccounts').request({method: 'POST', path: '/move', body: {}, movement: true})
    expect(hits.map((h) => `${h.method} ${h.url}`)).toEqual(['GET /api/subaccounts/move', 'POST /api/subaccounts', 'POST /api/subaccounts/move'])
  })

  it('refuses a base URL with a query or fragment, which would swallow the request path', () => {
    for (const url of ['https://h.example/api/subaccounts/move?', 'https://h.example/api/subaccounts/move?x=1', 'https://h.example/api/subaccounts/move#']) {
      expect(() => new ApiClient({baseUrl: url}), url).toThrow(/has a query or fragment/)
    }
  })
})

describe('ApiClient trace', () => {
  it('traces method, path, status and attempt, never the key', async () => {
    const lines: string[] = []
    handler = sequence(
      (res) => send(res, 503, {message: `echo ${KEY}`}),
      (res) => send(res, 200, {data: MOVE}, {'x-request-id': 'req_t'}),
    )
    await client({trace: (l) => lines.push(l), delays: []}).request({method: 'GET', path: '/api/things', query: {x: 1}})
    const all = lines.join('\n')
    expect(all).not.toContain(KEY)
    expect(all).toContain(KEY_SHOWN)
    expect(all).toContain('→ GET /api/things?x=1 attempt 1/3')
    expect(all).toContain('→ GET /api/things?x=1 attempt 2/3')
    expect(all).toMatch(/← 503 GET \/api\/things\?x=1 in \d+ms \(attempt 1\/3\)/)
    expect(all).toMatch(/← 200 GET \/api\/things\?x=1 in \d+ms \(attempt 2\/3\) request req_t/)
    expect(all).toContain('retrying in')
    expect(all).toContain(`x-api-key: ${KEY_SHOWN}`)
  })

  it('keeps the key out of error messages that echo it', async () => {
    handler = (_req, res) => send(res, 401, {error_code: 'AUTHENTICATION_ERROR', message: `bad key ${KEY}`})
    const err = (await caught(client().request({method: 'GET', path: '/api/x'}))) as ApiError
    expect(err.message).not.toContain(KEY)
    expect(err.message).toContain(KEY_SHOWN)
  })
})

describe('ApiClient.page', () => {
  const Item = z.looseObject({id: z.string(), amount_in_minor_units: z.int()})

  it('parses a list envelope with its page fields', async () => {
    handler = (_req, res) => send(res, 200, {data: [{id: 'a', amount_in_minor_units: 1}, {id: 'b', amount_in_minor_units: 2, x: true}], has_more: true, next_cursor: 'cur_2', total_count: 7})
    const page = await client().page('/api/list', {limit: 2, cursor: undefined}, Item)
    expect(hits[0].url).toBe('/api/list?limit=2')
    expect(page.items).toEqual([{id: 'a', amount_in_minor_units: 1}, {id: 'b', amount_in_minor_units: 2, x: true}])
    expect(page.hasMore).toBe(true)
    expect(page.nextCursor).toBe('cur_2')
    expect(page.totalCount).toBe(7)
  })

  it('infers has_more from a cursor when the flag is missing, and defaults the rest', async () => {
    handler = sequence(
      (res) => send(res, 200, {data: [], next_cursor: 'c'}),
      (res) => send(res, 200, {data: []}),
    )
    const c = client()
    expect(await c.page('/l', {}, Item)).toEqual({items: [], hasMore: true, nextCursor: 'c', previousCursor: null, totalCount: null})
    expect(await c.page('/l', {}, Item)).toEqual({items: [], hasMore: false, nextCursor: null, previousCursor: null, totalCount: null})
  })

  it('names the index of a bad item', async () => {
    handler = (_req, res) => send(res, 200, {data: [{id: 'a', amount_in_minor_units: 1}, {id: 'b', amount_in_minor_units: 1.5}], has_more: false})
    const err = (await caught(client().page('/api/list', {}, Item))) as ResponseError
    expect(err).toBeInstanceOf(ResponseError)
    expect(err.message).toContain('data[1].amount_in_minor_units')
  })

  it('rejects a list whose data is not an array', async () => {
    handler = (_req, res) => send(res, 200, {data: {id: 'a'}})
    const err = (await caught(client().page('/api/list', {}, Item))) as ResponseError
    expect(err).toBeInstanceOf(ResponseError)
    expect(err.message).toContain('"data" is not a list')
  })
})

describe('p and buildQuery', () => {
  it('encodes each value as a single path segment', () => {
    expect(p`/api/subaccounts/${'../x'}/activity`).toBe('/api/subaccounts/..%2Fx/activity')
    expect(p`/api/a/${'a b?c#d'}`).toBe('/api/a/a%20b%3Fc%23d')
    expect(p`/api/a/${42}/b/${'c/d'}`).toBe('/api/a/42/b/c%2Fd')
  })

  it('refuses empty and dot-segment ids', () => {
    expect(() => p`/api/subaccounts/${''}`).toThrow(UsageError)
    expect(() => p`/api/subaccounts/${'..'}/activity`).toThrow(UsageError)
    expect(() => p`/api/subaccounts/${'.'}/activity`).toThrow(UsageError)
  })

  it.each(['../x', '../../admin', '..%2F..', '%2e%2e', '.%2E', 'a/../../b', '..\\x'])('sends %j to the server without leaving its path', async (id) => {
    handler = (_req, res) => send(res, 200, {data: {}})
    await client().request({method: 'GET', path: p`/api/subaccounts/${id}/activity`})
    const url = new URL(hits[0].url, 'http://x')
    const segments = url.pathname.split('/')
    expect(segments).toHaveLength(5)
    expect(segments.slice(0, 3)).toEqual(['', 'api', 'subaccounts'])
    expect(segments[4]).toBe('activity')
    expect(decodeURIComponent(segments[3])).toBe(id)
  })

  it('buildQuery repeats arrays, skips undefined and null, and encodes values', () => {
    expect(buildQuery({status: ['created', 'settled'], a: undefined, b: null, c: 'x y&z', d: 0, e: false})).toBe('?status=created&status=settled&c=x+y%26z&d=0&e=false')
    expect(buildQuery({a: undefined})).toBe('')
    expect(buildQuery(undefined)).toBe('')
    expect(buildQuery({})).toBe('')
  })

  it('oneLine flattens markup and whitespace and truncates', () => {
    expect(oneLine('<b>a</b>\n\n  b', 80)).toBe('a b')
    expect(oneLine('x'.repeat(10), 4)).toBe('xxxx…')
  })
})
