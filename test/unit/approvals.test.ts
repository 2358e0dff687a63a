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

describe('a move settled or canceled elsewhere', () => {
  it('leaves the queue once the API refused its approve or cancel naming that state', () => {
    const records = [
      rec({resource_id: 'm1', resource_status: 'created'}),
      rec({resource_id: 'm1', path: '/api/subaccounts/move/m1/approve', status: 400, resource_status: 'settled'}),
      rec({resource_id: 'm2', resource_status: 'created'}),
      rec({resource_id: 'm2', path: '/api/subaccounts/move/m2/approve', status: 400, resource_status: 'canceled'}),
      rec({resource_id: 'm3', resource_status: 'created'}),
      rec({resource_id: 'm3', method: 'DELETE', path: '/api/subaccounts/move/m3', status: 400, resource_status: 'settled'}),
      // A refusal that names no state (or another failure) leaves the move listed.
      rec({resource_id: 'm4', resource_status: 'created'}),
      rec({resource_id: 'm4', path: '/api/subaccounts/move/m4/approve', status: 400, resource_status: null}),
      rec({resource_id: 'm5', resource_status: 'created'}),
      rec({resource_id: 'm5', path: '/api/subaccounts/move/m5/approve', status: 500, resource_status: 'settled'}),
    ]
    expect(pendingMovesOf(records).map((m) => m.id)).toEqual(['m4', 'm5'])
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

  it('on a terminal the checkbox list aligns the amounts in one column', async () => {
    let offered: Array<{value: string; name: string}> = []
    const transfer = (id: string, minor: number): AccountTransfer => ({id, from_account_id: 'acc1', to_account_id: 'acc2', amount_in_minor_units: minor, currency_code: 'USD', rail: 'wire', status: 'created', created_at: '2026-11-23T00:00:00Z'})
    const t = testContext({
      format: 'table',
      interactive: true,
      stdoutIsTTY: true,
      select: (choices) => ((offered = choices), []),
      api: {
        treasury: {accounts: async function* (_filters: ListFilters, _opts: PaginateOptions) {
          yield {id: 'acc1', label: 'Main', currency_code: 'USD'}
          yield {id: 'acc2', label: 'Reserve', currency_code: 'USD'}
        }},
        transfers: {list: async function* (_filters: TransferFilters, _opts: PaginateOptions) {
          yield transfer('t1', 5)
          yield transfer('t2', 123_456_789)
          yield transfer('t3', 1_000)
        }},
      },
    })
    await runApprovals({moves: false, transfers: true, guard: {}}, t.ctx)
    expect(offered.map((c) => c.value)).toEqual(['transfer:t1', 'transfer:t2', 'transfer:t3'])
    // The routes start in the same column: the amounts before them are padded to one width.
    const starts = offered.map((c) => c.name.indexOf('Main'))
    expect(new Set(starts).size, offered.map((c) => c.name).join('\n')).toBe(1)
    expect(offered[1].name).toContain('1,234,567.89 USD  Main')
    expect(offered[0].name).toMatch(/Transfer {9}0\.05 USD  Main \(acc1…\) → Reserve \(acc2…\)/)
  })

  it('csv keeps the ids whole; the table shows the name beside a short id', async () => {
    const t1: AccountTransfer = {id: 't1', from_account_id: 'acc1-0000-0000-0000-000000000000', to_account_id: 'acc2-0000-0000-0000-000000000000', amount_in_minor_units: 500, currency_code: 'USD', rail: 'wire', status: 'created', created_at: '2026-11-23T00:00:00Z'}
    const api = {
      treasury: {accounts: async function* (_filters: ListFilters, _opts: PaginateOptions) {
        yield {id: t1.from_account_id, label: 'Ops Main', currency_code: 'USD'}
      }},
      transfers: {list: async function* (_filters: TransferFilters, _opts: PaginateOptions) {
        yield t1
      }},
    }
    const csv = testContext({format: 'csv', api})
    await runApprovals({moves: false, transfers: true, guard: {}}, csv.ctx)
    expect(csv.stdout()).toContain(`,${t1.from_account_id},${t1.to_account_id},`)
    expect(csv.stdout()).not.toContain('…')
  })
})
