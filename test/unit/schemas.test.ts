import {describe, expect, it} from 'vitest'
import * as z from 'zod/mini'
import {
  ClientMetadata,
  METADATA_LIMITS,
  describeIssues,
  envelope,
  listEnvelope,
  readErrorBody,
  renameKeys,
} from '../../src/api/schemas/common.js'
import {ApprovedMove, Move, MoveCreateRequest} from '../../src/api/schemas/moves.js'
import {ActivityItem, ActivityQuery, Subaccount, SubaccountCreateRequest} from '../../src/api/schemas/subaccounts.js'

const A = '3f1c2a9e-6b7d-4c8e-9f01-23456789abcd'
const B = '7a2b3c4d-5e6f-4a1b-8c9d-0e1f2a3b4c5d'

function issuesOf(schema: z.ZodMiniType, value: unknown, prefix = ''): string {
  const r = z.safeParse(schema, value)
  expect(r.success).toBe(false)
  return describeIssues(r.error!, prefix)
}

const canonicalMove = {
  id: 'mv_1',
  from_subaccount_id: A,
  to_subaccount_id: B,
  amount_in_minor_units: 1234,
  amount_in_cents: 1234,
  status: 'settled',
  status_recorded_at: '2026-01-02T03:04:05Z',
  client_metadata: {ref: 'inv-1'},
  created_at: '2026-01-02T03:04:05Z',
  updated_at: '2026-01-02T03:04:05Z',
}

describe('Move', () => {
  it('parses the canonical shape unchanged', () => {
    expect(Move.parse(canonicalMove)).toEqual(canonicalMove)
  })

  it('normalises the approve-response shape to canonical names and lower-case status', () => {
    const approved = {
      id: 'mv_2',
      source_subaccount_id: A,
      destination_subaccount_id: B,
      amount_in_minor_units: 500,
      currency_code: 'USD',
      status: 'SETTLED',
      settled_at: '2026-01-02T03:04:05Z',
      description: 'rent for January',
    }
    const m = Move.parse(approved) as Record<string, unknown>
    expect(m.from_subaccount_id).toBe(A)
    expect(m.to_subaccount_id).toBe(B)
    expect(m.status).toBe('settled')
    expect(m.settled_at).toBe('2026-01-02T03:04:05Z')
    expect(m.description).toBe('rent for January')
    expect(m.currency_code).toBe('USD')
    expect(m).not.toHaveProperty('source_subaccount_id')
    expect(m).not.toHaveProperty('destination_subaccount_id')
  })

  it('keeps the canonical id when both the alias and the canonical key are present, and drops the alias', () => {
    const m = Move.parse({...canonicalMove, source_subaccount_id: 'other', destination_subaccount_id: 'other2'}) as Record<string, unknown>
    expect(m.from_subaccount_id).toBe(A)
    expect(m.to_subaccount_id).toBe(B)
    expect(m).not.toHaveProperty('source_subaccount_id')
    expect(m).not.toHaveProperty('destination_subaccount_id')
  })

  it.each(['CREATED', 'CANCELED', 'FAILED', 'Approved'])('lower-cases the replayed state %s', (status) => {
    expect(Move.parse({...canonicalMove, status}).status).toBe(status.toLowerCase())
  })

  it('fills amount_in_minor_units from amount_in_cents when only the deprecated field came', () => {
    const {amount_in_minor_units: _drop, ...rest} = canonicalMove
    const m = Move.parse({...rest, amount_in_cents: 777})
    expect(m.amount_in_minor_units).toBe(777)
    expect(m.amount_in_cents).toBe(777)
    expect(Move.parse({...rest, amount_in_minor_units: null, amount_in_cents: 778}).amount_in_minor_units).toBe(778)
  })

  it('prefers amount_in_minor_units when both amounts are present', () => {
    expect(Move.parse({...canonicalMove, amount_in_minor_units: 10, amount_in_cents: 20}).amount_in_minor_units).toBe(10)
  })

  it('passes unknown fields through untouched', () => {
    const m = Move.parse({...canonicalMove, brand_new: {nested: [1, 2]}, flag: true}) as Record<string, unknown>
    expect(m.brand_new).toEqual({nested: [1, 2]})
    expect(m.flag).toBe(true)
  })

  it('does not mutate its input', () => {
    const input = {...canonicalMove, source_subaccount_id: A, status: 'SETTLED'}
    const copy = structuredClone(input)
    Move.parse(input)
    expect(input).toEqual(copy)
  })

  it.each(['id', 'from_subaccount_id', 'to_subaccount_id', 'amount_in_minor_units', 'status'] as const)(
    'names the missing required field %s',
    (field) => {
      const value: Record<string, unknown> = {...canonicalMove}
      delete value[field]
      if (field === 'amount_in_minor_units') delete value.amount_in_cents
      expect(issuesOf(Move, value, 'data')).toMatch(new RegExp(`^data\\.${field}: `))
    },
  )

  it.each([
    ['a fraction', 12.5],
    ['an unsafe integer', 2 ** 53],
    ['a huge number', 1e20],
    ['a numeric string', '12'],
  ])('rejects %s as an amount', (_label, amount) => {
    expect(issuesOf(Move, {...canonicalMove, amount_in_minor_units: amount})).toMatch(/^amount_in_minor_units: /)
  })

  it('rejects non-objects with a clear message', () => {
    expect(issuesOf(Move, null)).toMatch(/expected object/)
    expect(issuesOf(Move, [canonicalMove])).toMatch(/expected object/)
    expect(issuesOf(Move, 'mv_1')).toMatch(/expected object/)
  })
})

describe('ApprovedMove (the approve answer)', () => {
  const example = {id: 'mv_1', source_subaccount_id: A, destination_subaccount_id: B, currency_code: 'USD', status: 'SETTLED', settled_at: '2026-01-02T03:04:05Z', description: 'rent'}

  it('reads the spec\'s example shape, which has no amount field, leaving the amount absent', () => {
    const m = ApprovedMove.parse(example)
    expect(m).toMatchObject({id: 'mv_1', from_subaccount_id: A, to_subaccount_id: B, currency_code: 'USD', status: 'settled', settled_at: example.settled_at, description: 'rent'})
    expect(m.amount_in_minor_units).toBeUndefined()
    // The Move of a create or cancel answer needs its amount: the error names the field.
    expect(issuesOf(Move, example)).toMatch(/^amount_in_minor_units: /)
  })

  it('takes an amount when the answer carries one (either name)', () => {
    expect(ApprovedMove.parse({...example, amount_in_cents: 700}).amount_in_minor_units).toBe(700)
    expect(ApprovedMove.parse({...example, amount_in_minor_units: 701}).amount_in_minor_units).toBe(701)
  })

  it('a required field truly missing is a clear error naming it', () => {
    const {destination_subaccount_id: _gone, ...noTo} = example
    expect(issuesOf(ApprovedMove, noTo, 'data')).toMatch(/^data\.to_subaccount_id: /)
    const {id: _id, ...noId} = example
    expect(issuesOf(ApprovedMove, noId, 'data')).toMatch(/^data\.id: /)
    expect(issuesOf(ApprovedMove, {...example, amount_in_cents: 'seven'}, 'data')).toMatch(/amount_in_/)
  })
})

describe('Subaccount', () => {
  const sub = {id: A, name: 'Payroll', account_number: '000123', created_at: '2026-01-01T00:00:00Z'}

  it('fills the canonical totals from the legacy *_cents fields', () => {
    const s = Subaccount.parse({...sub, total_incoming_cents: 1000, total_outgoing_cents: 250}) as Record<string, unknown>
    expect(s.total_incoming_in_minor_units).toBe(1000)
    expect(s.total_outgoing_in_minor_units).toBe(250)
    expect(s.total_incoming_cents).toBe(1000)
  })

  it('defaults the totals to 0 when neither name is present', () => {
    const s = Subaccount.parse(sub)
    expect(s.total_incoming_in_minor_units).toBe(0)
    expect(s.total_outgoing_in_minor_units).toBe(0)
  })

  it('keeps the canonical totals when both names are present', () => {
    const s = Subaccount.parse({...sub, total_incoming_in_minor_units: 5, total_incoming_cents: 9, total_outgoing_in_minor_units: 6, total_outgoing_cents: 8})
    expect(s.total_incoming_in_minor_units).toBe(5)
    expect(s.total_outgoing_in_minor_units).toBe(6)
  })

  it('fills routing_numbers.ach and .wire from a lone routing_number', () => {
    const s = Subaccount.parse({...sub, routing_number: '021000021'})
    expect(s.routing_numbers).toEqual({ach: '021000021', wire: '021000021'})
    expect(s.routing_number).toBe('021000021')
  })

  it('keeps routing_numbers when both routing_number and routing_numbers are present', () => {
    const s = Subaccount.parse({...sub, routing_number: '111', routing_numbers: {ach: '222', wire: '333'}})
    expect(s.routing_numbers).toEqual({ach: '222', wire: '333'})
  })

  it('passes unknown fields through and names a missing name', () => {
    expect((Subaccount.parse({...sub, color: 'blue'}) as Record<string, unknown>).color).toBe('blue')
    const {name: _n, ...noName} = sub
    expect(issuesOf(Subaccount, noName, 'data')).toMatch(/^data\.name: /)
  })

  it('rejects a non-integer total', () => {
    expect(issuesOf(Subaccount, {...sub, total_incoming_cents: 1.5})).toMatch(/total_incoming_in_minor_units/)
  })
})

describe('SubaccountCreateRequest', () => {
  it('accepts names of 1 to 100 characters', () => {
    expect(SubaccountCreateRequest.parse({name: 'x'}).name).toBe('x')
    expect(SubaccountCreateRequest.parse({name: 'x'.repeat(100)}).name).toHaveLength(100)
  })

  it('rejects empty, too long and missing names', () => {
    expect(issuesOf(SubaccountCreateRequest, {name: ''})).toMatch(/name: name must be 1 to 100/)
    expect(issuesOf(SubaccountCreateRequest, {name: 'x'.repeat(101)})).toMatch(/name: name must be 1 to 100/)
    expect(issuesOf(SubaccountCreateRequest, {})).toMatch(/^name: /)
  })
})

describe('ActivityItem', () => {
  const usd = {id: 'act_1', source: 'transfer', direction: 'credit', amount_in_cents: 4200, effective_at: '2026-01-01T00:00:00Z', currency_code: 'USD'}

  it('fills amount_in_minor_units from amount_in_cents for a USD item', () => {
    const a = ActivityItem.parse(usd)
    expect(a.amount_in_minor_units).toBe(4200)
    expect(a.amount_in_cents).toBe(4200)
    expect(ActivityItem.parse({...usd, amount_in_minor_units: null}).amount_in_minor_units).toBe(4200)
  })

  it('keeps the non-USD amount_in_minor_units', () => {
    const a = ActivityItem.parse({...usd, amount_in_cents: 1, amount_in_minor_units: 99, currency_code: 'GBP'})
    expect(a.amount_in_minor_units).toBe(99)
  })

  it('lower-cases direction and source', () => {
    const a = ActivityItem.parse({...usd, direction: 'DEBIT', source: 'BAI2'})
    expect(a.direction).toBe('debit')
    expect(a.source).toBe('bai2')
  })

  it('names the amount when neither amount is present', () => {
    const {amount_in_cents: _c, ...noAmount} = usd
    expect(issuesOf(ActivityItem, noAmount, 'data[0]')).toMatch(/^data\[0\]\.amount_in_minor_units: /)
  })
})

describe('MoveCreateRequest', () => {
  const good = {from_subaccount_id: A, to_subaccount_id: B, amount_in_minor_units: 100}

  it('accepts a valid body with optional fields', () => {
    expect(MoveCreateRequest.parse({...good, auto_approve: false, client_metadata: {k: 'v'}})).toEqual({
      ...good,
      auto_approve: false,
      client_metadata: {k: 'v'},
    })
  })

  it('rejects malformed UUIDs on both sides', () => {
    const msg = issuesOf(MoveCreateRequest, {...good, from_subaccount_id: 'nope', to_subaccount_id: '123'})
    expect(msg).toContain('from_subaccount_id: must be a UUID')
    expect(msg).toContain('to_subaccount_id: must be a UUID')
  })

  it('rejects the same subaccount on both sides', () => {
    expect(issuesOf(MoveCreateRequest, {...good, to_subaccount_id: A})).toBe('to_subaccount_id: must differ from from_subaccount_id')
  })

  it.each([0, -1, 1.5, '100', 2 ** 53])('rejects the amount %j', (amount) => {
    expect(issuesOf(MoveCreateRequest, {...good, amount_in_minor_units: amount})).toMatch(/^amount_in_minor_units: /)
  })

  it('requires an amount', () => {
    expect(issuesOf(MoveCreateRequest, {from_subaccount_id: A, to_subaccount_id: B})).toBe('amount_in_minor_units: amount_in_minor_units is required')
  })

  it('accepts the deprecated amount_in_cents alias alone, and rejects a mismatch with the canonical field', () => {
    expect(MoveCreateRequest.parse({from_subaccount_id: A, to_subaccount_id: B, amount_in_cents: 55}).amount_in_cents).toBe(55)
    expect(MoveCreateRequest.safeParse({...good, amount_in_cents: 100}).success).toBe(true)
    expect(issuesOf(MoveCreateRequest, {...good, amount_in_cents: 101})).toMatch(/^amount_in_cents: /)
    expect(issuesOf(MoveCreateRequest, {from_subaccount_id: A, to_subaccount_id: B, amount_in_cents: 0})).toMatch(/^amount_in_cents: /)
  })

  it('rejects a non-boolean auto_approve', () => {
    expect(issuesOf(MoveCreateRequest, {...good, auto_approve: 'yes'})).toBe('auto_approve: auto_approve must be a boolean')
  })

  describe('client_metadata limits', () => {
    const withMeta = (client_metadata: unknown) => MoveCreateRequest.safeParse({...good, client_metadata})
    const keys = (n: number) => Object.fromEntries(Array.from({length: n}, (_, i) => [`k${i}`, 'v']))

    it('allows exactly 50 keys and rejects 51', () => {
      expect(METADATA_LIMITS.maxKeys).toBe(50)
      expect(withMeta(keys(50)).success).toBe(true)
      expect(issuesOf(MoveCreateRequest, {...good, client_metadata: keys(51)})).toContain('at most 50 keys (got 51)')
    })

    it('allows a 40-character key and rejects a 41-character one', () => {
      expect(withMeta({['k'.repeat(40)]: 'v'}).success).toBe(true)
      expect(issuesOf(MoveCreateRequest, {...good, client_metadata: {['k'.repeat(41)]: 'v'}})).toContain('longer than 40 characters')
    })

    it('allows a 500-character value and rejects a 501-character one', () => {
      expect(withMeta({k: 'v'.repeat(500)}).success).toBe(true)
      expect(issuesOf(MoveCreateRequest, {...good, client_metadata: {k: 'v'.repeat(501)}})).toContain('value of "k" is longer than 500 characters')
    })

    function metadataOfBytes(total: number): Record<string, string> {
      const m: Record<string, string> = {}
      let i = 0
      while (Buffer.byteLength(JSON.stringify(m)) + 520 < total) m[`key${String(i++).padStart(2, '0')}`] = 'x'.repeat(500)
      const last = `key${String(i).padStart(2, '0')}`
      m[last] = ''
      m[last] = 'x'.repeat(total - Buffer.byteLength(JSON.stringify(m)))
      expect(Buffer.byteLength(JSON.stringify(m))).toBe(total)
      expect(Object.keys(m).length).toBeLessThanOrEqual(50)
      expect(Object.values(m).every((v) => v.length <= 500)).toBe(true)
      return m
    }

    it('allows a serialized total of exactly 16 KB and rejects one byte more', () => {
      expect(METADATA_LIMITS.maxBytes).toBe(16384)
      expect(withMeta(metadataOfBytes(16384)).success).toBe(true)
      expect(issuesOf(MoveCreateRequest, {...good, client_metadata: metadataOfBytes(16385)})).toContain('16385 bytes, more than 16384')
    })

    it('counts bytes, not characters', () => {
      const m: Record<string, string> = {}
      for (let i = 0; i < 20; i++) m[`k${i}`] = 'é'.repeat(450)
      expect(JSON.stringify(m).length).toBeLessThan(16384)
      expect(Buffer.byteLength(JSON.stringify(m))).toBeGreaterThan(16384)
      expect(ClientMetadata.safeParse(m).success).toBe(false)
    })

    it('requires string values', () => {
      expect(issuesOf(MoveCreateRequest, {...good, client_metadata: {n: 1}})).toContain('client_metadata.n: values must be strings')
      expect(withMeta(['a']).success).toBe(false)
    })
  })
})

describe('ActivityQuery', () => {
  it('accepts limits 1 and 500 and coerces strings', () => {
    expect(ActivityQuery.parse({limit: 1}).limit).toBe(1)
    expect(ActivityQuery.parse({limit: 500}).limit).toBe(500)
    expect(ActivityQuery.parse({limit: '50'}).limit).toBe(50)
  })

  it.each([0, 501, -1, 2.5, 'ten'])('rejects limit %j', (limit) => {
    expect(issuesOf(ActivityQuery, {limit})).toMatch(/^limit: /)
  })

  it('validates order, direction and date-times', () => {
    expect(ActivityQuery.parse({order: 'asc', direction: 'debit', effective_at_gte: '2026-01-01T00:00:00Z'})).toEqual({
      order: 'asc',
      direction: 'debit',
      effective_at_gte: '2026-01-01T00:00:00Z',
    })
    expect(issuesOf(ActivityQuery, {order: 'up'})).toBe('order: order must be asc or desc')
    expect(issuesOf(ActivityQuery, {direction: 'sideways'})).toBe('direction: direction must be credit or debit')
    expect(issuesOf(ActivityQuery, {effective_at_lte: '2026-01-01'})).toMatch(/^effective_at_lte: /)
  })
})

describe('envelopes', () => {
  it('parses a single-resource envelope with an optional warning', () => {
    const env = envelope(Move)
    expect(env.parse({data: canonicalMove, warning: 'settle failed'}).warning).toBe('settle failed')
    expect(env.parse({data: canonicalMove, warning: null}).data.id).toBe('mv_1')
    expect(issuesOf(env, {warning: 'x'})).toMatch(/^data: /)
  })

  it('parses a list envelope, defaulting has_more to false', () => {
    const env = listEnvelope(ActivityItem)
    const parsed = env.parse({data: [{id: 'a', source: 'transfer', direction: 'credit', amount_in_cents: 1, effective_at: 't'}]})
    expect(parsed.has_more).toBe(false)
    expect(parsed.data[0].amount_in_minor_units).toBe(1)
    expect(issuesOf(env, {data: [{id: 'a'}]}, 'body')).toMatch(/^body\.data\.0\./)
  })
})

describe('renameKeys', () => {
  it('renames aliases without overwriting canonical values', () => {
    expect(renameKeys({a: 1, c: 3}, {a: 'b'})).toEqual({b: 1, c: 3})
    expect(renameKeys({a: 1, b: 2}, {a: 'b'})).toEqual({b: 2})
  })
})

describe('describeIssues', () => {
  it('joins at most five issues and uses the prefix', () => {
    const schema = z.object({a: z.string(), b: z.string(), c: z.string(), d: z.string(), e: z.string(), f: z.string()})
    const r = schema.safeParse({})
    const line = describeIssues(r.error!, 'data')
    expect(line.split('; ')).toHaveLength(5)
    expect(line).toMatch(/^data\.a: /)
    expect(line).not.toContain('data.f')
    expect(line).not.toContain('\n')
  })
})

describe('readErrorBody', () => {
  it('reads {error_code, message, request_id}', () => {
    expect(readErrorBody({error_code: 'NOT_FOUND', message: 'Subaccount not found', request_id: 'req_1'})).toEqual({
      errorCode: 'NOT_FOUND',
      message: 'Subaccount not found',
      requestId: 'req_1',
    })
  })

  it('reads {error: {code, message}} and {error: {error_code, message}}', () => {
    expect(readErrorBody({error: {code: 'VALIDATION_ERROR', message: 'bad amount'}})).toMatchObject({errorCode: 'VALIDATION_ERROR', message: 'bad amount'})
    expect(readErrorBody({error: {error_code: 'AUTHENTICATION_ERROR', message: 'no key'}})).toMatchObject({errorCode: 'AUTHENTICATION_ERROR', message: 'no key'})
  })

  it('reads {error: "text"} and {code, detail}', () => {
    expect(readErrorBody({error: 'Forbidden'})).toMatchObject({message: 'Forbidden'})
    expect(readErrorBody({code: 'X', detail: 'details here'})).toMatchObject({errorCode: 'X', message: 'details here'})
  })

  it('reads {errors: [{field, message}]} into one message and keeps the details', () => {
    const errors = [{field: 'amount', message: 'must be positive'}, {message: 'from and to must differ'}, {field: 'to'}]
    const info = readErrorBody({error_code: 'VALIDATION_ERROR', errors})
    expect(info.errorCode).toBe('VALIDATION_ERROR')
    expect(info.message).toBe('amount: must be positive; from and to must differ; to: invalid')
    expect(info.details).toEqual(errors)
  })

  it.each([['garbage'], [null], [undefined], [42], [[1, 2]], [{error_code: 5}], [{errors: 'nope'}]])('returns nothing useful for %j', (body) => {
    const info = readErrorBody(body)
    expect(info.errorCode).toBeUndefined()
    expect(info.message).toBeUndefined()
  })

  it('ignores an empty object', () => {
    expect(readErrorBody({})).toEqual({})
  })
})
