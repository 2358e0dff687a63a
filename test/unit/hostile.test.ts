import {createServer, type Server} from 'node:http'
import type {AddressInfo} from 'node:net'
import fc from 'fast-check'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {ApiClient} from '../../src/api/client.js'
import {buildRawRequest} from '../../src/api/raw.js'
import {Move} from '../../src/api/schemas/moves.js'
import {Subaccount} from '../../src/api/schemas/subaccounts.js'
import {classify} from '../../src/base-command.js'
import {PayopsError, UsageError} from '../../src/errors.js'
import {parseDate, parseDateTime, parseKeyValues, parseMoneyFlags} from '../../src/flags.js'
import {parseImportCsv} from '../../src/import/csv.js'

/** A server answering whatever the current test sets: status, content type and raw body. */
let reply: {status: number; type: string; body: string; truncate?: boolean} = {status: 200, type: 'application/json', body: '{}'}
let server: Server
let base: string

beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume()
    req.on('end', () => {
      if (reply.truncate) {
        res.writeHead(reply.status, {'content-type': reply.type, 'content-length': String(Buffer.byteLength(reply.body) + 50)})
        res.write(reply.body)
        res.destroy()
        return
      }
      res.writeHead(reply.status, {'content-type': reply.type})
      res.end(reply.body)
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})
afterAll(async () => {
  server.closeAllConnections()
  await new Promise((r) => server.close(r))
})

const EXIT_CODES = new Set([1, 2, 3, 4, 5, 6, 7, 8])

/** Whatever the server says, the client resolves or throws a PayopsError whose line is one line. */
async function expectContained(call: () => Promise<unknown>): Promise<void> {
  try {
    await call()
  } catch (err) {
    expect(err).toBeInstanceOf(PayopsError)
    const {code, line} = classify(err)
    expect(EXIT_CODES.has(code)).toBe(true)
    expect(line).not.toMatch(/\n/)
    expect(line.length).toBeLessThan(600)
  }
}

describe('hostile API responses', () => {
  const client = () => new ApiClient({baseUrl: base, apiKey: 'test_0123456789abcdef0123456789abcdef', maxRetries: 0, timeoutMs: 5000})
  const bodies = fc.oneof(
    fc.string(),
    fc.json(),
    fc.jsonValue().map((v) => JSON.stringify({data: v})),
    fc.record({data: fc.dictionary(fc.string(), fc.jsonValue())}).map((v) => JSON.stringify(v)),
    fc.constantFrom(
      '<!DOCTYPE html><html><head><title>502 Bad Gateway</title></head><body><h1>Bad Gateway</h1>\n<p>nginx</p></body></html>',
      '{"data": {"id": "x", "amount_in_minor_units": 1e400}}',
      '{"data": {"id": 7}}',
      '{"data": null}',
      '[]',
      'null',
      '{"data": {"id": "m", "from_subaccount_id": "a", "to_subaccount_id": "b", "amount_in_minor_units": 123456789012345678901234567890, "status": "SETTLED"}}',
      '{"error_code": 42, "message": ["not", "a", "string"]}',
      '\u0000\u0001binary',
    ),
  )
  const statuses = fc.constantFrom(200, 201, 204, 207, 400, 401, 403, 404, 409, 418, 429, 500, 502, 503)

  it('any status and body: a typed error with a one-line message and a documented exit code, never a crash', async () => {
    await fc.assert(
      fc.asyncProperty(statuses, bodies, fc.constantFrom('application/json', 'text/html', 'text/plain'), async (status, body, type) => {
        reply = {status, type, body}
        await expectContained(() => client().request({method: 'GET', path: '/api/subaccounts/x', schema: Subaccount}))
        await expectContained(() => client().request({method: 'POST', path: '/api/subaccounts/move', body: {}, schema: Move}))
        await expectContained(() => client().page('/api/x', {}, Subaccount))
      }),
      {numRuns: 150},
    )
  })

  it('a truncated body is a contained error', async () => {
    reply = {status: 200, type: 'application/json', body: '{"data": {"id": "abc", "na', truncate: true}
    await expectContained(() => client().request({method: 'GET', path: '/api/subaccounts/x', schema: Subaccount}))
  })

  it('a missing required field names the field; a huge number is refused, not rounded', async () => {
    reply = {status: 200, type: 'application/json', body: '{"data": {"name": "x"}}'}
    await expect(client().request({method: 'GET', path: '/x', schema: Subaccount})).rejects.toThrow(/data\.id/)
    reply = {status: 200, type: 'application/json', body: '{"data": {"id": "m", "from_subaccount_id": "a", "to_subaccount_id": "b", "amount_in_minor_units": 9007199254740993, "status": "settled"}}'}
    await expect(client().request({method: 'GET', path: '/x', schema: Move})).rejects.toThrow(/amount_in_minor_units/)
  })

  it('an HTML error page becomes one line with the status', async () => {
    reply = {status: 502, type: 'text/html', body: '<html>\n<head><title>502</title></head>\n<body>upstream\nfailed</body></html>'}
    const err = await client().request({method: 'GET', path: '/x'}).catch((e) => e)
    const {code, line} = classify(err)
    expect(code).toBe(1)
    expect(line).toMatch(/^502: HTTP 502 from GET \/x; body \(text\/html\): 502 upstream failed/)
  })
})

describe('hostile flag values and files', () => {
  const onlyUsage = (fn: () => unknown) => {
    try {
      fn()
    } catch (err) {
      expect(err).toBeInstanceOf(UsageError)
      expect((err as Error).message).not.toMatch(/\n/)
    }
  }

  it('money, dates, key=value and raw fields accept or refuse with a usage error, nothing else', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), (a, b) => {
        onlyUsage(() => parseMoneyFlags({amount: a, currency: b.slice(0, 5) || undefined}))
        onlyUsage(() => parseMoneyFlags({'amount-minor': a}))
        onlyUsage(() => parseDate(a, '--date'))
        onlyUsage(() => parseDateTime(a, '--since'))
        onlyUsage(() => parseKeyValues([a, b], '--metadata'))
        onlyUsage(() => buildRawRequest({method: 'POST', path: a, fields: [b], typedFields: [a], headers: [b], readFile: () => 'x'}))
      }),
      {numRuns: 500},
    )
  })

  it('any CSV text yields rows or line-numbered errors, never an exception', () => {
    const uuid = fc.uuid()
    const cell = fc.oneof(fc.string(), uuid, fc.constantFrom('1.00', '-1', '0', '1e3', 'abc', '', '"', '""', ',', '\n', 'true', 'USD', 'JPY'))
    const row = fc.array(cell, {minLength: 0, maxLength: 6}).map((cells) => cells.map((c) => (/[",\n]/.test(c) ? `"${c.replace(/"/g, '""')}"` : c)).join(','))
    const header = fc.constantFrom('from,to,amount', 'from,to,amount_in_minor_units,currency', 'from,to,amount,metadata.x,idempotency_key', 'x,y', '')
    fc.assert(
      fc.property(header, fc.array(row, {maxLength: 20}), fc.string(), (h, rows, noise) => {
        for (const text of [[h, ...rows].join('\n'), noise, `${h}\n${noise}`]) {
          const parsed = parseImportCsv(text)
          expect(Array.isArray(parsed.rows)).toBe(true)
          for (const e of parsed.errors) expect(typeof e.line).toBe('number')
          for (const r of parsed.rows) expect(Number.isSafeInteger(r.amount_in_minor_units) && r.amount_in_minor_units > 0).toBe(true)
          const bad = new Set(parsed.errors.map((e) => e.line))
          for (const r of parsed.rows) expect(bad.has(r.line)).toBe(false)
        }
      }),
      {numRuns: 300},
    )
  })
})
