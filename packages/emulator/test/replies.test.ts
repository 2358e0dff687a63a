/**
 * The reply check of the shared test helper: it covers every API route the emulator serves, and it
 * refuses a reply that drifts from the client's schema.
 */
import {describe, expect, it} from 'vitest'
import {CLIENT_PATHS as PATHS} from './oracle.js'
import {Faults, RequestLog, Router} from '../src/index.js'
import {EventBus} from '../src/webhooks/events.js'
import {registerRoutes} from '../src/routes/index.js'
import {createSeededStore} from '../src/store/seed.js'
import {CHECKED_ROUTES, checkReply} from './helpers.js'

const asRoute = (r: string) => r.replace(/\{([^}/]+)\}/g, ':$1')

describe('emulator reply check', () => {
  it('covers every /api/ route the emulator registers, and nothing else', () => {
    const served = registerRoutes(new Router(), {store: createSeededStore(), requests: new RequestLog(), faults: new Faults(), events: new EventBus(), log: () => undefined, onClose: []})
      .list()
      .filter((r) => r.split(' ')[1].startsWith('/api/'))
    expect([...new Set(CHECKED_ROUTES.map(asRoute))].sort()).toEqual(served.sort())
  })

  it('registers every path of PATHS in the emulator', () => {
    const served = new Set(registerRoutes(new Router(), {store: createSeededStore(), requests: new RequestLog(), faults: new Faults(), events: new EventBus(), log: () => undefined, onClose: []}).list().map((r) => r.split(' ')[1]))
    expect(Object.values(PATHS).map(asRoute).filter((p) => !served.has(p))).toEqual([])
  })

  const move = {
    id: '6f1d2c3b-4a5e-4f60-8a7b-9c0d1e2f3a4b',
    from_subaccount_id: '6f1d2c3b-4a5e-4f60-8a7b-9c0d1e2f3a4c',
    to_subaccount_id: '6f1d2c3b-4a5e-4f60-8a7b-9c0d1e2f3a4d',
    amount_in_minor_units: 100,
    currency_code: 'USD',
    status: 'created',
    created_at: '2026-01-01T00:00:00.000Z',
    updated_at: '2026-01-01T00:00:00.000Z',
  }

  it('accepts a reply the schema accepts, and ignores errors and unknown routes', () => {
    expect(() => checkReply('POST', '/api/subaccounts/move', {status: 201, body: {data: move}})).not.toThrow()
    expect(() => checkReply('POST', '/api/subaccounts/move', {status: 400, body: {error_code: 'VALIDATION_ERROR'}})).not.toThrow()
    expect(() => checkReply('POST', '/_emulator/reset', {status: 200, body: {reset: true}})).not.toThrow()
  })

  it('refuses a view that drifts from the schema', () => {
    expect(() => checkReply('POST', '/api/subaccounts/move', {status: 201, body: {data: {...move, amount_in_minor_units: '100'}}})).toThrow(/amount_in_minor_units/)
    expect(() => checkReply('DELETE', `/api/subaccounts/move/${move.id}`, {status: 200, body: {data: {...move, to_subaccount_id: undefined}}})).toThrow(/move_id.*to_subaccount_id/)
    expect(() => checkReply('GET', '/api/treasury/accounts?limit=5', {status: 200, body: {data: [{id: 1}]}})).toThrow(/treasury\/accounts/)
  })

  it('tells /api/webhooks/event-types from /api/webhooks/{webhook_id}, as the router does', () => {
    expect(() => checkReply('GET', '/api/webhooks/event-types', {status: 200, body: {data: [{type: 'payin.settled', description: 'x'}], has_more: false}})).not.toThrow()
  })
})
