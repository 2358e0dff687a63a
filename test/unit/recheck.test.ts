/**
 * The decisions taken again under the audit trail's lock, right before an intent is written, on
 * the records as they are then: the daily cap and maker-checker's refusal of a maker's approval.
 */
import {describe, expect, it} from 'vitest'
import type {AuditRecord} from '../../src/audit/index.js'
import type {Limits} from '../../src/config/index.js'
import {recheckUnderLock} from '../../src/movements/guard.js'
import {historyOf} from '../../src/movements/history.js'
import type {MovementPorts, Plan} from '../../src/movements/types.js'

const me = {operator: 'Ana Ruiz', os_user: 'ana', host: 'ledger-01'}
const now = new Date().toISOString()

function ports(limits: Limits): MovementPorts {
  return {
    history: historyOf(() => [], 'key1'),
    profile: {name: 'prod', live: false, limitSets: [{profile: 'prod', limits}], keyLabel: 'test_…0000', operator: me},
  } as unknown as MovementPorts
}

const approve = (id: string): Plan =>
  ({
    request: {kind: 'move.approve', id},
    noun: 'move',
    checks: [{amount_in_minor_units: 500, currency: 'USD', to: 'B'}],
    audit: {method: 'POST', path: `/api/subaccounts/move/${id}/approve`, amount_in_minor_units: 500, currency_code: 'USD', from: 'A', to: 'B'},
  }) as unknown as Plan

let seq = 0
const rec = (o: Partial<AuditRecord>): AuditRecord =>
  ({seq: ++seq, time: now, pid: 1, prev: '', hash: `h${seq}`, profile: 'prod', mode: 'test', key_id: 'key1', method: 'POST', path: '/api/subaccounts/move', op: `op${seq}`, kind: 'intent', amount_in_minor_units: 500, currency_code: 'USD', from: 'A', to: 'B', ...o}) as AuditRecord

describe('recheckUnderLock', () => {
  it('refuses an approval by the maker the trail shows under the lock, though the trail read before showed none', () => {
    const check = recheckUnderLock(approve('m1'), ports({approval: {policy: 'maker-checker'}}))!
    expect(check).toBeTypeOf('function')
    expect(() => check([])).not.toThrow()
    const created = [rec({op: 'c'}), rec({op: 'c', kind: 'outcome', status: 201, outcome: 'created', resource_id: 'm1', resource_status: 'created', ...me})]
    expect(() => check(created)).toThrow(/maker-checker \(profile "prod"\): move m1 was created by Ana Ruiz \(ana@ledger-01\), who cannot also approve it/)
  })

  it('refuses a request the cap allowed before: another run\'s intent, on disk by then, counts as unknown; a request confirmed over the limits is not asked again', () => {
    const plan = {...approve('m2'), request: {kind: 'move.create'}, autoApprove: true} as unknown as Plan
    const p = ports({daily_max: {USD: 800}})
    const check = recheckUnderLock(plan, p)!
    expect(() => check([])).not.toThrow()
    const inFlight = [rec({op: 'other', idempotency_key: 'k-other'})]
    expect(() => check(inFlight)).toThrow(/daily-max 8\.00 USD of profile "prod": 0\.00 USD moved, 5\.00 USD unknown \(sent, outcome not known\) today \(UTC\) under this key \+ 5\.00 USD asked = 10\.00 USD \(decided under the audit trail's lock/)
    expect(recheckUnderLock({...plan, overridden: true} as Plan, p)).toBeUndefined()
    expect(recheckUnderLock({...plan, batchRow: true} as Plan, p)).toBeUndefined()
  })
})
