import {createServer, type Server} from 'node:http'
import type {AddressInfo} from 'node:net'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {run} from '../support/index.js'

/** A misbehaving API: each path answers one kind of garbage. */
const ROUTES: Record<string, (res: import('node:http').ServerResponse) => void> = {
  '/api/subaccounts/html': (res) => {
    res.writeHead(502, {'content-type': 'text/html'})
    res.end('<html>\n<head><title>502 Bad Gateway</title></head>\n<body><center>nginx</center></body>\n</html>')
  },
  '/api/subaccounts/notjson': (res) => {
    res.writeHead(200, {'content-type': 'application/json'})
    res.end('{"data": {"id": ')
  },
  '/api/subaccounts/truncated': (res) => {
    res.writeHead(200, {'content-type': 'application/json', 'content-length': '500'})
    res.write('{"data": {"id": "x"')
    res.destroy()
  },
  '/api/subaccounts/missing': (res) => {
    res.writeHead(200, {'content-type': 'application/json'})
    res.end('{"data": {"name": "no id"}}')
  },
  '/api/subaccounts/huge': (res) => {
    res.writeHead(200, {'content-type': 'application/json'})
    res.end('{"data": {"id": "x", "name": "n", "total_incoming_in_minor_units": 123456789012345678901234567890}}')
  },
  '/api/subaccounts/wrongtype': (res) => {
    res.writeHead(200, {'content-type': 'application/json'})
    res.end('{"data": ["not", "an", "object"]}')
  },
  '/api/subaccounts/weird-error': (res) => {
    res.writeHead(400, {'content-type': 'application/json'})
    res.end('{"error_code": 17, "message": {"nested": true}}')
  },
}

let server: Server
let base: string
beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume()
    const route = ROUTES[req.url ?? '']
    if (route) route(res)
    else {
      res.writeHead(404)
      res.end()
    }
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})
afterAll(async () => {
  server.closeAllConnections()
  await new Promise((r) => server.close(r))
})

const get = (id: string, extra: string[] = []) =>
  run(['subaccounts', 'get', id, '--max-retries', '0', ...extra], {env: {PAYOPS_BASE_URL: base, PAYOPS_API_KEY: 'test_0123456789abcdef0123456789abcdef'}})

describe('a hostile server never crashes the CLI', () => {
  it.each([
    ['html', 1, /502: HTTP 502 .*502 Bad Gateway nginx/],
    ['notjson', 1, /not JSON/],
    ['truncated', 7, /could not reach|timed out|ECONNRESET|terminated|UND_ERR/],
    ['missing', 1, /data\.id/],
    ['huge', 1, /total_incoming_in_minor_units/],
    ['wrongtype', 1, /data/],
    ['weird-error', 8, /^Error: 400/],
  ])('%s: exit %i with one line on stderr and no stack trace', async (id, code, message) => {
    const r = await get(id, ['-o', 'table'])
    expect(r.code).toBe(code)
    expect(r.stdout).toBe('')
    const lines = r.stderr.trim().split('\n')
    expect(lines).toHaveLength(1)
    expect(lines[0]).toMatch(message)
    expect(r.stderr).not.toMatch(/\n\s+at /)
  })

  it('with -o json the error is also a JSON object on stderr; stdout stays empty', async () => {
    const r = await get('html', ['-o', 'json'])
    const [line, json] = r.stderr.trim().split('\n')
    expect(line).toMatch(/^Error: 502/)
    expect(JSON.parse(json).error).toMatchObject({status: 502, exit_code: 1})
    expect(r.stdout).toBe('')
  })
})
