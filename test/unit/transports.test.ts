/**
 * The transports (Node's HTTP client for one-shot commands, undici's fetch for their requests
 * through a proxy or with CAs of their own, undici's pool for bulk ones) against
 * loopback servers made for each case: what they send, how they read the answer, and the ways an
 * exchange can fail, each with the same stable code.
 */
import {createServer, type IncomingMessage, type Server, type ServerResponse} from 'node:http'
import type {AddressInfo, Socket} from 'node:net'
import {afterEach, describe, expect, it} from 'vitest'
import {brotliCompressSync, deflateSync, gzipSync} from 'node:zlib'
import {HttpTransport} from '../../src/api/http-transport.js'
import {FetchTransport, PoolTransport, type Transport} from '../../src/api/transport.js'
import {ResponseTooLargeError} from '../../src/errors.js'

const servers: Server[] = []
const sockets = new Set<Socket>()

async function serve(handler: (req: IncomingMessage, body: string, res: ServerResponse) => void): Promise<string> {
  const server = createServer((req, res) => {
    let body = ''
    req.setEncoding('utf8')
    req.on('data', (d: string) => (body += d))
    req.on('end', () => handler(req, body, res))
  })
  server.on('connection', (s) => {
    sockets.add(s)
    s.on('close', () => sockets.delete(s))
  })
  servers.push(server)
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()))
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}

afterEach(async () => {
  for (const s of sockets) s.destroy()
  await Promise.all(servers.splice(0).map((s) => new Promise<void>((r) => s.close(() => r()))))
})

const failure = (p: Promise<unknown>) =>
  p.then(
    () => {
      throw new Error('expected the exchange to fail')
    },
    (e: Error & {code: string}) => e,
  )

const transports: Array<[string, () => Transport]> = [
  ['http', () => new HttpTransport()],
  ['fetch', () => new FetchTransport()],
  ['pool', () => new PoolTransport()],
]

describe.each(transports)('%s transport', (_name, make) => {
  it('sends the method, headers and body; returns status, headers and the UTF-8 text', async () => {
    const seen: Array<{method?: string; length?: string; type?: string; body: string}> = []
    const base = await serve((req, body, res) => {
      seen.push({method: req.method, length: req.headers['content-length'], type: req.headers['content-type'], body})
      res.writeHead(201, {'content-type': 'application/json', 'x-request-id': 'req_1'})
      res.end(JSON.stringify({data: {name: 'Zoë €'}}))
    })
    const t = make()
    try {
      const body = JSON.stringify({name: 'Zoë €'})
      const res = await t.send({url: `${base}/api/subaccounts`, method: 'POST', headers: {'content-type': 'application/json'}, body, timeoutMs: 5000})
      expect(res.status).toBe(201)
      expect(res.headers['x-request-id']).toBe('req_1')
      expect(JSON.parse(res.text)).toEqual({data: {name: 'Zoë €'}})
      expect(seen).toEqual([{method: 'POST', length: String(Buffer.byteLength(body)), type: 'application/json', body}])
    } finally {
      await t.close()
    }
  })

  it('a 3xx comes back as it is: nothing is followed', async () => {
    const hits: string[] = []
    const base = await serve((req, _body, res) => {
      hits.push(req.url!)
      res.writeHead(307, {location: '/elsewhere'})
      res.end()
    })
    const t = make()
    try {
      const res = await t.send({url: `${base}/api/payees`, method: 'GET', headers: {}, timeoutMs: 5000})
      expect(res.status).toBe(307)
      expect(res.headers.location).toBe('/elsewhere')
      expect(hits).toEqual(['/api/payees'])
    } finally {
      await t.close()
    }
  })

  it('no answer within the time: ETIMEDOUT', async () => {
    const base = await serve(() => undefined)
    const t = make()
    try {
      const err = await failure(t.send({url: `${base}/slow`, method: 'GET', headers: {}, timeoutMs: 150}))
      expect(err.code).toBe('ETIMEDOUT')
    } finally {
      await t.close()
    }
  })

  it('headers sent but the body cut off: a network error, never a short body taken as the answer', async () => {
    const base = await serve((_req, _body, res) => {
      res.writeHead(200, {'content-type': 'application/json', 'content-length': '100'})
      res.write('{"data":')
      setTimeout(() => res.socket?.destroy(), 20)
    })
    const t = make()
    try {
      const err = await failure(t.send({url: `${base}/cut`, method: 'GET', headers: {}, timeoutMs: 5000}))
      expect(['ECONNRESET', 'UND_ERR_SOCKET']).toContain(err.code)
    } finally {
      await t.close()
    }
  })

  it('the connection closed before any answer: a network error with the socket\'s code', async () => {
    const base = await serve((req) => req.socket.destroy())
    const t = make()
    try {
      const err = await failure(t.send({url: `${base}/reset`, method: 'POST', headers: {}, body: '{}', timeoutMs: 5000}))
      expect(['ECONNRESET', 'UND_ERR_SOCKET']).toContain(err.code)
    } finally {
      await t.close()
    }
  })
})

describe.each(transports)('%s transport: the answer is capped once decoded', (_name, make) => {
  const request = (url: string) => ({url, method: 'GET', headers: {'accept-encoding': 'gzip, deflate, br'}, timeoutMs: 20_000})

  it('decodes gzip, deflate and br answers', async () => {
    const json = JSON.stringify({data: {id: 'x', note: 'é'.repeat(1000)}})
    for (const [coding, encode] of [['gzip', gzipSync], ['deflate', deflateSync], ['br', brotliCompressSync]] as const) {
      const url = await serve((_req, _body, res) => {
        res.writeHead(200, {'content-type': 'application/json', 'content-encoding': coding})
        res.end(encode(Buffer.from(json)))
      })
      const t = make()
      const res = await t.send(request(url))
      await t.close()
      expect(JSON.parse(res.text), coding).toEqual(JSON.parse(json))
    }
  })

  it('a body past the cap fails with one line (exit 1) instead of filling memory', async () => {
    const chunk = Buffer.alloc(1024 * 1024, 'a')
    const url = await serve((_req, _body, res) => {
      res.writeHead(200, {'content-type': 'application/json'})
      let sent = 0
      const more = () => {
        while (sent < 64 && res.write(chunk)) sent++
        if (sent < 64) res.once('drain', more)
        else res.end()
      }
      more()
    })
    const t = make()
    const err = await failure(t.send(request(url)))
    await t.close()
    expect(err).toBeInstanceOf(ResponseTooLargeError)
    expect((err as unknown as ResponseTooLargeError).exitCode).toBe(1)
    expect(err.message).toMatch(/GET \/: the answer is over 16 MiB once decoded; payops stopped reading it/)
  })

  it('a gzip bomb (2 MB that inflate to 2 GiB) is stopped while it inflates', async () => {
    const bomb = gzipSync(Buffer.alloc(256 * 1024 * 1024), {level: 9})
    const url = await serve((_req, _body, res) => {
      res.writeHead(200, {'content-type': 'application/json', 'content-encoding': 'gzip'})
      // The same 256 MiB of zeros eight times over: a 2 GiB answer.
      for (let i = 0; i < 8; i++) res.write(bomb)
      res.end()
    })
    const before = process.memoryUsage().rss
    const t = make()
    const err = await failure(t.send(request(url)))
    await t.close()
    expect(err).toBeInstanceOf(ResponseTooLargeError)
    expect(process.memoryUsage().rss - before).toBeLessThan(256 * 1024 * 1024)
  })
})
