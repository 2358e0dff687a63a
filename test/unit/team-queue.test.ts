/**
 * The team store's queue as completion reads it (src/movements/team-queue.ts) and the comparison
 * of a request file or an API answer with the store's request (src/movements/team-approvals.ts).
 */
import {symlinkSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import type {ApprovalRequest} from '../../src/control/types.js'
import type {PendingItem} from '../../src/movements/pending.js'
import {differences, refuseContradiction, storeQueue} from '../../src/movements/team-approvals.js'
import {mergeMoves, readTeamQueue, saveTeamQueue, TEAM_QUEUE_FILE} from '../../src/movements/team-queue.js'
import {tempDir} from '../support/index.js'

const dir = tempDir('payops-test-team-queue-')
afterAll(() => dir.cleanup())

const request = (id: number, resource: string, decision: ApprovalRequest['decision'] = null): ApprovalRequest => ({
  id, at: '2026-01-01T00:00:00.000Z', maker: 'ana', kind: 'move', currency: 'USD', amount: 5000, destination: 'sub_b', detail: {resource_id: resource, from: 'sub_a'}, decision,
})
const local = (id: string): PendingItem => ({kind: 'move', id, amount_in_minor_units: 1, currency_code: 'USD', from: null, to: null, from_name: null, to_name: null, created_at: null, source: 'local'})

describe('the team queue', () => {
  it('the store\'s undecided requests come first; this machine\'s moves the store decided leave; the latest request of a movement counts', () => {
    const q = storeQueue([request(1, 'm1'), request(2, 'm2', {decision: 'approved', checker: 'bob', at: 'x', note: null}), request(3, 'm3')])
    expect(q.pending.map((p) => [p.id, p.source, p.maker])).toEqual([['m1', 'team', 'ana'], ['m3', 'team', 'ana']])
    expect([...q.decided]).toEqual(['m2'])
    const merged = mergeMoves([local('m2'), local('m3'), local('m4')], {key_id: 'k', read_at: '', pending: q.pending, decided: [...q.decided]})
    expect(merged.map((m) => [m.id, m.source])).toEqual([['m1', 'team'], ['m3', 'team'], ['m4', 'local']])
    expect(mergeMoves([local('m2')], undefined).map((m) => m.id)).toEqual(['m2'])
  })

  it('is written 0600 for one key and read back only for that key; a link or a damaged file is no queue', () => {
    const q = storeQueue([request(1, 'm1')])
    saveTeamQueue(dir.path, 'test_keyA', q, Date.parse('2026-01-02T00:00:00Z'))
    expect(readTeamQueue(dir.path, 'test_keyA')?.pending.map((p) => p.id)).toEqual(['m1'])
    expect(readTeamQueue(dir.path, 'test_keyB')).toBeUndefined()
    expect(readTeamQueue(dir.path, undefined)).toBeUndefined()
    writeFileSync(join(dir.path, TEAM_QUEUE_FILE), '{not json')
    expect(readTeamQueue(dir.path, 'test_keyA')).toBeUndefined()
    const other = tempDir('payops-test-team-queue-link-')
    try {
      saveTeamQueue(dir.path, 'test_keyA', q, 0)
      symlinkSync(join(dir.path, TEAM_QUEUE_FILE), join(other.path, TEAM_QUEUE_FILE))
      expect(readTeamQueue(other.path, 'test_keyA')).toBeUndefined()
    } finally {
      other.cleanup()
    }
  })
})

describe('a request file or an answer against the store\'s request', () => {
  it('names every difference: amount, currency, source, destination, maker (exit 5)', () => {
    const r = request(1, 'm1')
    expect(differences(r, {amount_in_minor_units: 5000, currency_code: 'usd', from_subaccount_id: 'sub_a', to_subaccount_id: 'sub_b'})).toEqual([])
    expect(differences(r, {amount_in_minor_units: 500, currency_code: 'EUR', from: 'sub_x', to: 'sub_y'})).toEqual([
      'amount 5.00 EUR, the store\'s 50.00 USD',
      'currency EUR, the store\'s USD',
      'destination sub_y, the store\'s sub_b',
      'source sub_x, the store\'s sub_a',
    ])
    expect(() => refuseContradiction(r, {amount_in_minor_units: 5000, currency_code: 'USD', from: 'sub_a', to: 'sub_b'}, 'f.json')).not.toThrow()
    const refused = (() => {
      try {
        refuseContradiction(r, {amount_in_minor_units: 5000, currency_code: 'USD', from: 'sub_a', to: 'sub_b', maker: 'bob'}, 'f.json')
      } catch (err) {
        return err as Error & {exitCode: number}
      }
    })()
    expect(refused?.exitCode).toBe(5)
    expect(refused?.message).toContain('maker bob, the store\'s ana')
  })
})
