/**
 * Totals past 2^53, end to end: an API (a loopback server here, since the emulator keeps totals
 * within the exact range of a double) answers a subaccount whose incoming total is
 * 9007199254740993 minor units. `JSON.parse` would read it as ...992; payops shows it, and the
 * balance computed from it, to the unit in every format, and `payops api` prints it as it came.
 * The checks read stdout as text: parsing it with JSON.parse here would round it again.
 */
import {describe, expect, it} from 'vitest'
import {routesServer, run} from '../support/index.js'

const BIG = '9007199254740993' // 2^53 + 1
const ID = '3f0b7c1e-5a8d-4c2b-9e61-7d2f4a9b0c11'
const base = {id: ID, name: 'Reserve', account_number: '4000123412341234', routing_numbers: {ach: '021000021', wire: '021000021'}, currency_code: 'USD', created_at: '2026-11-23T12:00:00Z'}
/** The body, with the totals written in as raw digits. */
const subaccount = (totals: string) => JSON.stringify(base).replace(/}$/, `,${totals}}`)

const ROUTES: Record<string, string> = {
  [`/api/subaccounts/${ID}`]: `{"data":${subaccount(`"total_incoming_in_minor_units":${BIG},"total_outgoing_in_minor_units":1`)}}`,
  // The legacy names the spec's examples show.
  '/api/subaccounts/legacy': `{"data":${subaccount(`"total_incoming_cents":${BIG},"total_outgoing_cents":1`).replace(ID, 'legacy')}}`,
  // Owing more than 2^53: a negative balance, exact too.
  '/api/subaccounts/owing': `{"data":${subaccount(`"total_incoming_in_minor_units":1,"total_outgoing_in_minor_units":9007199254740995`).replace(ID, 'owing')}}`,
  // Past signed 64 bits a total is not one a service keeps: refused, naming the field.
  '/api/subaccounts/beyond': `{"data":${subaccount(`"total_incoming_in_minor_units":9223372036854775808,"total_outgoing_in_minor_units":0`).replace(ID, 'beyond')}}`,
  '/api/things': `{"data":[{"id":"a","total":${BIG}},{"id":"b","total":-${BIG},"ratio":0.1}],"has_more":false}`,
}

const server = routesServer(ROUTES)

const payops = (args: string[]) => run([...args, '--max-retries', '0'], {env: {PAYOPS_BASE_URL: server.url, PAYOPS_API_KEY: 'test_0123456789abcdef0123456789abcdef'}})

describe('subaccount totals past 2^53 are exact', () => {
  it('table: incoming 90,071,992,547,409.93 USD, balance 90,071,992,547,409.92 USD', async () => {
    const r = await payops(['subaccounts', 'get', ID, '-o', 'table'])
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(/^INCOMING +90,071,992,547,409\.93 USD$/m)
    expect(r.stdout).toMatch(/^OUTGOING +0\.01 USD$/m)
    expect(r.stdout).toMatch(/^BALANCE +90,071,992,547,409\.92 USD$/m)
  })

  it('json prints the totals digit for digit, as JSON integers; a selected balance too', async () => {
    const r = await payops(['subaccounts', 'get', ID, '-o', 'json'])
    expect(r.code).toBe(0)
    expect(r.stdout).toContain(`"total_incoming_in_minor_units": ${BIG},`)
    expect(r.stdout).toContain('"total_outgoing_in_minor_units": 1,')
    const balance = await payops(['subaccounts', 'get', ID, '-o', 'json', '--columns', 'id,incoming,balance'])
    expect(balance.code).toBe(0)
    expect(balance.stdout).toBe(`{\n  "id": "${ID}",\n  "incoming": ${BIG},\n  "balance": 9007199254740992\n}\n`)
    const nd = await payops(['subaccounts', 'get', ID, '-o', 'ndjson', '--columns', 'balance'])
    expect(nd.stdout).toBe('{"balance":9007199254740992}\n')
    const queried = await payops(['subaccounts', 'get', ID, '-o', 'json', '--query', 'total_incoming_in_minor_units'])
    expect(queried.stdout).toBe(`${BIG}\n`)
  })

  it('csv: the exact decimal amounts', async () => {
    const r = await payops(['subaccounts', 'get', ID, '-o', 'csv', '--columns', 'incoming,outgoing,balance'])
    expect(r.code).toBe(0)
    expect(r.stdout).toBe('incoming,outgoing,balance\r\n90071992547409.93 USD,0.01 USD,90071992547409.92 USD\r\n')
  })

  it('the legacy total names fill the canonical ones exactly', async () => {
    const r = await payops(['subaccounts', 'get', 'legacy', '-o', 'json', '--columns', 'total_incoming_in_minor_units,balance'])
    expect(r.code).toBe(0)
    expect(r.stdout).toBe(`{\n  "total_incoming_in_minor_units": ${BIG},\n  "balance": 9007199254740992\n}\n`)
  })

  it('a balance below -2^53 is exact as well', async () => {
    const r = await payops(['subaccounts', 'get', 'owing', '-o', 'table'])
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(/^BALANCE +-90,071,992,547,409\.94 USD$/m)
    const j = await payops(['subaccounts', 'get', 'owing', '-o', 'ndjson', '--columns', 'balance'])
    expect(j.stdout).toBe('{"balance":-9007199254740994}\n')
  })

  it('a total past signed 64 bits is refused with one line naming the field (exit 1)', async () => {
    const r = await payops(['subaccounts', 'get', 'beyond', '-o', 'json'])
    expect(r.code).toBe(1)
    expect(r.stdout).toBe('')
    expect(r.stderr.split('\n')[0]).toMatch(/data\.total_incoming_in_minor_units/)
  })
})

describe('payops api prints integers as they came', () => {
  it('a list: json and ndjson keep 2^53 + 1 (either sign), other numbers as they were', async () => {
    const j = await payops(['api', 'GET', '/api/things'])
    expect(j.code).toBe(0)
    expect(j.stdout).toContain(`"total": ${BIG}\n`)
    expect(j.stdout).toContain(`"total": -${BIG},`)
    expect(j.stdout).toContain('"ratio": 0.1')
    const nd = await payops(['api', 'GET', '/api/things', '--paginate', '-o', 'ndjson'])
    expect(nd.code).toBe(0)
    expect(nd.stdout).toBe(`{"id":"a","total":${BIG}}\n{"id":"b","total":-${BIG},"ratio":0.1}\n`)
  })
})
