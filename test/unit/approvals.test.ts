/** The approval queue's local half: which moves this machine still sees awaiting approval. Pure. */
import {describe, expect, it} from 'vitest'
import type {PaginateOptions} from '../../src/api/paginate.js'
import type {AccountTransfer} from '../../src/api/schemas/transfers.js'
import type {ListFilters} from '../../src/api/treasury.js'
import type {TransferFilters} from '../../src/api/transfers.js'
import type {AuditRecord} from '../../src/audit/index.js'
import {pendingMovesOf, runApprovals} from '../../src/movements/approvals.js'
import {testContext} from './context.js'
import {response} from './doubles.js'

let seq = 0
const rec = (over: Partial<AuditRecord>): AuditRecord =>
  ({kind: 'outcome', status: 201, method: 'POST', path: '/api/subaccounts/move', time: `2026-11-23T12:00:${String(seq++).padStart(2, '0')}Z`, amount_in_minor_units: 100, currency_code: 'USD', from: 'A', to: 'B', ...over}) as AuditRecord

describe('pendingMovesOf', () => {
  it('keeps moves whose last recorded status is created; approvals, cancels, settling replays and failures drop them', () => {
    const records = [
      rec({resource_id: 'm1', resource_status: 'created'}),
      rec({resource_id: 'm2', resource_status: 'created'}),
      rec({resource_id: 'm2', path: '/api/subaccounts/move/m2/approve', resource_status: 'settled'}),
      rec({resource_id: 'm3', resource_status: 'created'}),
      rec({resource_id: 'm3', method: 'DELETE', path: '/api/subaccounts/move/m3', resource_status: null}),
      rec({resource_id: 'm4', resource_status: 'created', idempotency_key: 'k4'}),
      rec({resource_id: 'm4', resource_status: 'settled', idempotency_key: 'k4', status: 200}),
      rec({resource_id: 'm5', resource_status: 'settled'}),
      rec({resource_id: 'm6', resource_status: 'created'}),
      rec({resource_id: 'm6', path: '/api/subaccounts/move/m6/approve', status: 400, resource_status: null}),
      rec({resource_id: 'x', path: '/api/subaccounts', resource_status: null}),
      rec({resource_id: 'm7', resource_status: 'created', kind: 'intent'}),
    ]
    expect(pendingMovesOf(records).map((m) => m.id)).toEqual(['m1', 'm6'])
    expect(pendingMovesOf(records)[0]).toMatchObject({kind: 'move', amount_in_minor_units: 100, currency_code: 'USD', from: 'A', to: 'B', source: 'local'})
  })
})

describe('runApprovals', () => {
  it('without a terminal it prints the list of transfers awaiting approval; nothing is approved', async () => {
    const approvals: string[] = []
    const t1: AccountTransfer = {id: 't1', from_account_id: 'acc1', to_account_id: 'acc2', amount_in_minor_units: 500, currency_code: 'USD', rail: 'wire', status: 'created', created_at: '2026-11-23T00:00:00Z'}
    const t = testContext({
      api: {
        treasury: {accounts: async function* (_filters: ListFilters, _opts: PaginateOptions) {
          yield {id: 'acc1', label: 'Main', currency_code: 'USD'}
        }},
        transfers: {
          list: async function* (_filters: TransferFilters, _opts: PaginateOptions) {
            yield t1
          },
          approve: async (id: string) => {
            approvals.push(id)
            return response(200, {...t1, id, status: 'approved'})
          },
        },
      },
    })
    await runApprovals({moves: false, transfers: true, guard: {}}, t.ctx)
    expect(JSON.parse(t.stdout())).toEqual([expect.objectContaining({kind: 'transfer', id: 't1', from_name: 'Main', to_name: null, source: 'service'})])
    expect(approvals).toEqual([])
  })
})
