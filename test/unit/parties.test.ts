import {createServer, type Server} from 'node:http'
import type {AddressInfo} from 'node:net'
import {SignJWT} from 'jose'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {ApiClient} from '../../src/api/client.js'
import {redact} from '../../src/api/redact.js'
import {Party, PartyListQuery, PartySessionTokenRequest, Payin, PayeeSessionTokenRequest, SessionTokenResponse, unwrapData} from '../../src/api/schemas/parties.js'
import {TokensApi, decodeClaims, describeToken, validateTokenRequest} from '../../src/api/tokens.js'
import {ResponseError, UsageError} from '../../src/errors.js'
import {parsePartyFilters} from '../../src/flags.js'

const U = '3f1c2a9e-6b7d-4c8e-9f01-23456789abcd'

async function jwt(claims: Record<string, unknown> = {}): Promise<string> {
  return new SignJWT({party_type: 'payee', scopes: ['view_payee'], ...claims})
    .setProtectedHeader({alg: 'HS256'})
    .setSubject(U)
    .setIssuedAt(1_800_000_000)
    .setExpirationTime(1_800_000_900)
    .sign(new Uint8Array(32).fill(7))
}

describe('Party schema', () => {
  const party = {
    id: U,
    name: 'Ada Lovelace',
    email: 'ada@example.com',
    country_code: 'GB',
    country_sub_division: 'England',
    city: 'London',
    address_line: '12 St James Square',
    postal_code: null,
    client_metadata: {ref: 'x'},
    created_at: '2026-01-02T03:04:05Z',
    updated_at: '2026-01-02T03:04:05Z',
  }

  it('parses the spec fields, with country_code optional and nullable address fields', () => {
    expect(Party.parse(party)).toEqual(party)
    const {country_code: _c, ...noCountry} = party
    expect(Party.parse({...noCountry, city: null})).toMatchObject({city: null})
  })

  it('passes unknown fields through and names a missing required field', () => {
    expect(Party.parse({...party, extra: 1})).toMatchObject({extra: 1})
    const r = Party.safeParse({...party, email: undefined})
    expect(r.success).toBe(false)
    expect(r.error!.issues[0].path).toEqual(['email'])
    // A country the spec does not list (a value added later) is read as it came.
    expect(Party.parse({...party, country_code: 'FR'})).toMatchObject({country_code: 'FR'})
  })
})

describe('PartyListQuery', () => {
  it('accepts the spec parameters and coerces has_default and limit', () => {
    const q = PartyListQuery.parse({limit: '100', has_default: 'false', created_at_gte: '2025-02-28', name: 'sm', order: 'asc'})
    expect(q).toEqual({limit: 100, has_default: false, created_at_gte: '2025-02-28', name: 'sm', order: 'asc'})
  })

  it('rejects limits outside 1..500, impossible dates and non-boolean has_default', () => {
    for (const bad of [{limit: '0'}, {limit: '501'}, {limit: 'x'}, {created_at_lte: '2025-02-30'}, {created_at_gte: '2025-1-1'}, {has_default: 'yes'}, {order: 'up'}]) {
      expect(PartyListQuery.safeParse(bad).success, JSON.stringify(bad)).toBe(false)
    }
    expect(PartyListQuery.parse({limit: '500'}).limit).toBe(500)
  })
})

describe('Payin schema', () => {
  const payin = {
    id: U,
    payer_id: U,
    amount_in_minor_units: 123456,
    amount_in_cents: 123456,
    currency_code: 'USD',
    rail: 'standard_ach',
    status: 'initiated',
    status_recorded_at: '2026-01-02T03:04:05Z',
    payin_metadata: {payment_method: {account_last_four: '6789', routing_number: '021000021', end_to_end_id: '021000021234567'}, payer: {name: 'Ada', email: 'ada@example.com'}},
    client_metadata: {},
    scheduled_date: null,
    created_at: '2026-01-02T03:04:05Z',
    updated_at: '2026-01-02T03:04:05Z',
  }

  it('parses the canonical shape unchanged', () => {
    expect(Payin.parse(payin)).toEqual(payin)
  })

  it('fills the amount from the deprecated amount_in_cents and lower-cases the status', () => {
    const {amount_in_minor_units: _a, ...legacy} = payin
    const p = Payin.parse({...legacy, status: 'SETTLED'})
    expect(p.amount_in_minor_units).toBe(123456)
    expect(p.status).toBe('settled')
  })

  it('names a missing required field', () => {
    const r = Payin.safeParse({...payin, payer_id: undefined})
    expect(r.success).toBe(false)
    expect(r.error!.issues[0].path).toEqual(['payer_id'])
  })
})

describe('session-token requests and responses', () => {
  it('validates the request bodies like the API does', () => {
    expect(PayeeSessionTokenRequest.safeParse({payee_id: U}).success).toBe(true)
    expect(PayeeSessionTokenRequest.safeParse({payee_id: 'nope'}).success).toBe(false)
    expect(PayeeSessionTokenRequest.safeParse({}).success).toBe(false)
    expect(PartySessionTokenRequest.safeParse({party_id: U, party_type: 'external'}).success).toBe(true)
    expect(PartySessionTokenRequest.safeParse({party_id: U, party_type: 'vendor'}).success).toBe(false)
    expect(() => validateTokenRequest('nope', 'payee-endpoint')).toThrow(UsageError)
    expect(() => validateTokenRequest(U, 'payer')).not.toThrow()
  })

  it('unwraps data when present and takes a bare body as it is', () => {
    const t = {token: 'a.b.c', expires_in_seconds: 900, scopes: ['payer_manage']}
    expect(unwrapData({data: t})).toEqual(t)
    expect(unwrapData(t)).toEqual(t)
    expect(unwrapData({data: [1]})).toEqual({data: [1]})
    expect(unwrapData(null)).toBeNull()
    expect(SessionTokenResponse.parse({data: t, warning: null})).toEqual(t)
    expect(SessionTokenResponse.parse(t)).toEqual(t)
    expect(SessionTokenResponse.safeParse({data: {token: 'x'}}).success).toBe(false)
  })

  it('decodes the claims without verification and computes the absolute expiry', async () => {
    const token = await jwt()
    expect(decodeClaims(token)).toMatchObject({sub: U, party_type: 'payee', exp: 1_800_000_900})
    expect(decodeClaims('not-a-jwt')).toBeUndefined()
    const d = describeToken({token, expires_in_seconds: 900, scopes: ['view_payee']}, Date.parse('2026-01-01T00:00:00Z'))
    expect(d.expires_at).toBe('2026-01-01T00:15:00.000Z')
    expect(d.claims?.sub).toBe(U)
    expect(describeToken({token: 'opaque', expires_in_seconds: 60, scopes: []}, 0)).not.toHaveProperty('claims')
  })

  it('masks JWT-shaped values in traces, even when cut short', async () => {
    const token = await jwt({entity_id: U})
    expect(redact(`body {"token":"${token}"}`)).not.toContain(token.split('.')[1])
    const cut = token.slice(0, 60)
    expect(redact(`body {"token":"${cut}… (500 bytes)`)).not.toContain(cut)
    expect(redact('cursor djEubi5kZXNj')).toBe('cursor djEubi5kZXNj')
  })
})

describe('TokensApi accepts the bare and the wrapped shape on both endpoints', () => {
  let server: Server
  let client: ApiClient
  let wrap = false
  let token = ''
  const seen: string[] = []

  beforeAll(async () => {
    token = await jwt()
    server = createServer((req, res) => {
      seen.push(`${req.method} ${req.url}`)
      const t = {token, expires_in_seconds: 900, scopes: ['view_payee']}
      res.writeHead(200, {'content-type': 'application/json'})
      res.end(JSON.stringify(wrap ? {data: t, warning: 'heads up'} : t))
    })
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
    client = new ApiClient({baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, apiKey: 'test_Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2', maxRetries: 0})
  })
  afterAll(async () => {
    await client.close()
    await new Promise((r) => server.close(r))
  })

  for (const shape of ['bare', 'wrapped'] as const) {
    it(`${shape}: payee and party endpoints, token registered as a secret`, async () => {
      wrap = shape === 'wrapped'
      const api = new TokensApi(client)
      const a = await api.forPayee(U)
      const b = await api.forParty(U, 'payer')
      for (const r of [a, b]) {
        expect(r.data).toEqual({token, expires_in_seconds: 900, scopes: ['view_payee']})
        expect(r.warning).toBe(wrap ? 'heads up' : undefined)
      }
      expect(seen.slice(-2)).toEqual(['POST /api/session-tokens', 'POST /api/session-tokens/party'])
      expect(redact(`x ${token} y`)).not.toContain(token)
    })
  }

  it('a body without a token is a clear response error', async () => {
    const bad = createServer((_req, res) => {
      res.writeHead(200, {'content-type': 'application/json'})
      res.end(JSON.stringify({data: {expires_in_seconds: 1, scopes: []}}))
    })
    await new Promise<void>((r) => bad.listen(0, '127.0.0.1', r))
    const c = new ApiClient({baseUrl: `http://127.0.0.1:${(bad.address() as AddressInfo).port}`, apiKey: 'test_Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2', maxRetries: 0})
    try {
      const err = await new TokensApi(c).forPayee(U).catch((e: unknown) => e)
      expect(err).toBeInstanceOf(ResponseError)
      expect((err as Error).message).toMatch(/token/)
    } finally {
      await c.close()
      await new Promise((r) => bad.close(r))
    }
  })
})

describe('party list filters (client side)', () => {
  it('maps the flags to the query parameters', () => {
    expect(parsePartyFilters({name: 'Sm', email: 'EX', 'has-default': false, 'created-at-gte': '2025-01-01', 'created-at-lte': '2025-01-01'})).toEqual({
      name: 'Sm',
      email: 'EX',
      has_default: false,
      created_at_gte: '2025-01-01',
      created_at_lte: '2025-01-01',
    })
    expect(parsePartyFilters({})).toEqual({email: undefined, name: undefined, has_default: undefined, created_at_gte: undefined, created_at_lte: undefined})
  })

  it('refuses bad dates and an inverted range (usage errors)', () => {
    expect(() => parsePartyFilters({'created-at-gte': '2025-02-30'})).toThrow(UsageError)
    expect(() => parsePartyFilters({'created-at-lte': '2025-01-01T00:00:00Z'})).toThrow(UsageError)
    expect(() => parsePartyFilters({'created-at-gte': '2025-02-01', 'created-at-lte': '2025-01-31'})).toThrow(/after/)
  })
})
