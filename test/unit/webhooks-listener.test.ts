import {describe, expect, it} from 'vitest'
import {EventEnvelope, WEBHOOK_EVENT_TYPES} from '../../src/api/schemas/events.js'
import {EventTypeEntry, EventTypeList, WebhookEndpoint, webhookUrlProblem} from '../../src/api/schemas/webhooks.js'
import {validateWebhookCreate, validateWebhookUpdate} from '../../src/api/webhooks.js'
import {UsageError} from '../../src/errors.js'
import {RecentIds, checkRoute, decide, emptyStats, formatSummary} from '../../src/webhooks/listener.js'
import {parseEventTypes, resolveSecrets} from '../../src/webhooks/options.js'
import {applyOverrides, sampleData, serializeEvent} from '../../src/webhooks/samples.js'
import {sign} from '../../src/webhooks/signature.js'

const SECRET = 'whsec_unit_listener_secret_0001'
const NOW = 1_800_000_000

function signed(body: string, ts = NOW, secret = SECRET) {
  return {signature: sign(secret, ts, body), timestamp: String(ts), body: Buffer.from(body)}
}

const opts = (extra: Partial<Parameters<typeof decide>[3]> = {}) => ({secrets: [SECRET], toleranceSec: 300, now: NOW, seen: new RecentIds(), ...extra})

describe('checkRoute', () => {
  it('only POST on the listening path goes on', () => {
    expect(checkRoute('POST', '/', '/')).toBeUndefined()
    expect(checkRoute('POST', '/hooks?x=1', '/hooks')).toBeUndefined()
    expect(checkRoute('POST', '/other', '/')).toMatchObject({status: 404, reason: 'not_found'})
    expect(checkRoute('GET', '/', '/')).toMatchObject({status: 405, reason: 'method_not_allowed'})
    expect(checkRoute('PUT', '/hooks', '/hooks')).toMatchObject({status: 405})
  })
})

describe('decide', () => {
  const body = serializeEvent({id: 'evt_a', type: 'payin.settled', data: {payin_id: 'p1'}})

  it('accepts a signed envelope and reports which secret matched', () => {
    const s = signed(body)
    const d = decide(s.signature, s.timestamp, s.body, opts({secrets: ['whsec_first_one_xx', SECRET]}))
    expect(d).toMatchObject({outcome: 'accepted', status: 200, secretIndex: 1, event: {id: 'evt_a', type: 'payin.settled', data: {payin_id: 'p1'}}})
  })

  it('rejections: missing header, malformed timestamp, bad signature, stale', () => {
    const s = signed(body)
    expect(decide(undefined, s.timestamp, s.body, opts())).toMatchObject({status: 400, reason: 'missing_header'})
    expect(decide(s.signature, undefined, s.body, opts())).toMatchObject({status: 400, reason: 'missing_header'})
    expect(decide(s.signature, 'soon', s.body, opts())).toMatchObject({status: 400, reason: 'malformed_timestamp'})
    expect(decide(s.signature, s.timestamp, Buffer.from(`${body} `), opts())).toMatchObject({status: 401, reason: 'bad_signature'})
    const old = signed(body, NOW - 301)
    expect(decide(old.signature, old.timestamp, old.body, opts())).toMatchObject({status: 401, reason: 'stale_timestamp'})
  })

  it('signed but malformed JSON or not an envelope is 400', () => {
    const bad = signed('{"id": "evt_x", ')
    expect(decide(bad.signature, bad.timestamp, bad.body, opts())).toMatchObject({status: 400, reason: 'malformed_json'})
    for (const text of ['[]', '"x"', '{"id":"e","type":"t"}', '{"id":"","type":"t","data":{}}', '{"id":"e","type":"t","data":[]}']) {
      const s = signed(text)
      expect(decide(s.signature, s.timestamp, s.body, opts())).toMatchObject({status: 400, reason: 'invalid_envelope'})
    }
  })

  it('an id the event store already holds (received before a restart) is a duplicate: answered 200, not accepted again', () => {
    const s = signed(body)
    const asked: string[] = []
    const known = (id: string) => (asked.push(id), id === 'evt_a')
    const seen = new RecentIds()
    expect(decide(s.signature, s.timestamp, s.body, opts({seen, known}))).toMatchObject({outcome: 'duplicate', status: 200, event: {id: 'evt_a'}})
    expect(asked).toEqual(['evt_a'])
    // Remembered from then on without asking the store again.
    expect(decide(s.signature, s.timestamp, s.body, opts({seen, known}))).toMatchObject({outcome: 'duplicate'})
    expect(asked).toEqual(['evt_a'])
    const other = signed(serializeEvent({id: 'evt_b', type: 'payin.settled', data: {payin_id: 'p1'}}))
    expect(decide(other.signature, other.timestamp, other.body, opts({seen, known}))).toMatchObject({outcome: 'accepted'})
  })

  it('duplicates are answered 200 and flagged; unauthentic requests never poison the duplicate set', () => {
    const seen = new RecentIds()
    const s = signed(body)
    expect(decide(s.signature, 'x', s.body, opts({seen}))).toMatchObject({outcome: 'rejected'})
    expect(decide(s.signature, s.timestamp, s.body, opts({seen})).outcome).toBe('accepted')
    expect(decide(s.signature, s.timestamp, s.body, opts({seen})).outcome).toBe('duplicate')
  })

  it('types outside --events are answered 200 and filtered', () => {
    const s = signed(body)
    expect(decide(s.signature, s.timestamp, s.body, opts({events: new Set(['payout.failed'])}))).toMatchObject({outcome: 'filtered', status: 200})
    expect(decide(s.signature, s.timestamp, s.body, opts({events: new Set(['payin.settled'])}))).toMatchObject({outcome: 'accepted'})
  })
})

describe('RecentIds', () => {
  it('forgets the oldest id past its capacity', () => {
    const r = new RecentIds(2)
    expect(r.seen('a')).toBe(false)
    expect(r.seen('b')).toBe(false)
    expect(r.seen('a')).toBe(true)
    expect(r.seen('c')).toBe(false)
    expect(r.size).toBe(2)
    expect(r.seen('a')).toBe(false)
  })
})

describe('formatSummary', () => {
  it('counts by reason, and forwarding only when forwarding', () => {
    const s = emptyStats()
    Object.assign(s, {received: 5, verified: 3, duplicates: 1, forwarded: 2, forward_failed: 1})
    s.rejected = {bad_signature: 1, stale_timestamp: 1}
    expect(formatSummary(s, false)).toBe('received 5, verified 3, rejected 2 (bad_signature 1, stale_timestamp 1), duplicates 1, filtered 0')
    expect(formatSummary(s, true)).toMatch(/forwarded 2 \(failed 1\)$/)
  })
})

describe('samples', () => {
  it('every catalog type has data as the spec shows it, inside a valid envelope', () => {
    for (const type of WEBHOOK_EVENT_TYPES) {
      const data = sampleData(type)
      const env = JSON.parse(serializeEvent({id: 'evt_1', type, data}))
      expect(EventEnvelope.parse(env)).toEqual({id: 'evt_1', type, data})
      if (type.startsWith('payout.')) expect(Object.keys(data)).toEqual(['payout_id'])
      if (type.startsWith('payin.')) expect(Object.keys(data)).toEqual(['payin_id'])
    }
    const credit = sampleData('subaccount.credit_received')
    expect(credit.amount_cents).toBe(credit.amount_in_minor_units)
    expect(Number.isInteger(credit.amount_in_minor_units)).toBe(true)
  })

  it('--data overrides keep integers integers and the legacy amount in step', () => {
    const out = applyOverrides(sampleData('subaccount.credit_received'), {amount_in_minor_units: '5000', subaccount_id: 'sub_1'})
    expect(out).toMatchObject({amount_in_minor_units: 5000, amount_cents: 5000, subaccount_id: 'sub_1'})
    expect(() => applyOverrides(sampleData('subaccount.credit_received'), {amount_in_minor_units: '12.5'})).toThrow(UsageError)
    expect(applyOverrides(sampleData('payin.settled'), {note: '7'})).toMatchObject({note: '7'})
  })
})

describe('webhook schemas', () => {
  it('URL rule: https, or http only to loopback', () => {
    expect(webhookUrlProblem('https://example.com/hooks')).toBeUndefined()
    for (const ok of ['http://127.0.0.1:4242/', 'http://localhost/x', 'http://[::1]:8080/']) expect(webhookUrlProblem(ok)).toBeUndefined()
    expect(webhookUrlProblem('http://example.com/')).toMatch(/https/)
    expect(webhookUrlProblem('ftp://example.com/')).toMatch(/https/)
    expect(webhookUrlProblem('not a url')).toMatch(/not a valid URL/)
    expect(webhookUrlProblem('https://user:pw@example.com/')).toMatch(/credentials/)
  })

  it('event types: catalog only, at least one, sorted and de-duplicated', () => {
    expect(EventTypeList.parse(['payin.settled', 'payout.debited', 'payin.settled'])).toEqual(['payin.settled', 'payout.debited'])
    expect(EventTypeList.safeParse([]).success).toBe(false)
    expect(EventTypeList.safeParse(['payin.refunded']).success).toBe(false)
  })

  it('client-side validation is a usage error; an update needs a field', () => {
    expect(() => validateWebhookCreate({url: 'http://example.com', event_types: ['payin.settled']})).toThrow(UsageError)
    expect(() => validateWebhookUpdate({})).toThrow(/Nothing to update/)
    expect(validateWebhookUpdate({description: ''})).toEqual({description: ''})
  })

  it('responses: event_types sorted, catalog entries may be bare strings', () => {
    expect(WebhookEndpoint.parse({id: 'w', url: 'https://x', is_active: true, event_types: ['b', 'a'], extra: 1})).toMatchObject({event_types: ['a', 'b'], extra: 1})
    expect(EventTypeEntry.parse('payin.settled')).toEqual({type: 'payin.settled'})
  })
})

describe('options', () => {
  it('secrets: flags win over the environment; environment lists are read', () => {
    expect(resolveSecrets(['whsec_flag_value_1'], {PAYOPS_WEBHOOK_SECRET: 'whsec_env_value_01'})).toEqual(['whsec_flag_value_1'])
    expect(resolveSecrets(undefined, {PAYOPS_WEBHOOK_SECRETS: 'whsec_a_value_001, whsec_b_value_002', PAYOPS_WEBHOOK_SECRET: 'whsec_c_value_003'})).toEqual([
      'whsec_a_value_001',
      'whsec_b_value_002',
      'whsec_c_value_003',
    ])
    expect(() => resolveSecrets(undefined, {})).toThrow(UsageError)
  })

  it('--events names catalog types only', () => {
    expect(parseEventTypes('payin.settled,payout.failed', '--events')).toEqual(['payin.settled', 'payout.failed'])
    expect(() => parseEventTypes('payin.settled,nope', '--events')).toThrow(/unknown event type "nope"/)
    expect(() => parseEventTypes('payin.settled,', '--events')).toThrow(UsageError)
  })
})
