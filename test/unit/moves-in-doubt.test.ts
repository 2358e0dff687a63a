/**
 * Which moves a re-run cannot vouch for: those whose latest cancel or approval in this machine's
 * audit trail lost its answer (movesInDoubt), and those the trail shows ended or stuck approved
 * (endedMoves). Paths recorded from `payops api` that do not decode name no move.
 */
import {describe, expect, it} from 'vitest'
import {AuditLog, type AuditFields} from '../../src/audit/index.js'
import {endedMoves, movesInDoubt} from '../../src/movements/history.js'
import {tempDir} from '../support/index.js'

const base = {profile: 'p', mode: 'test' as const}
const outcome = (op: string, method: string, path: string, more: Partial<AuditFields>): AuditFields => ({kind: 'outcome', op, ...base, method, path, ...more})

describe('moves a re-run cannot vouch for', () => {
  it('a cancel or approve whose answer was lost, until a later answer of either is known', async () => {
    const d = tempDir()
    const log = new AuditLog(d.path)
    try {
      await log.append(outcome('1', 'DELETE', '/api/subaccounts/move/m1', {status: 500, outcome: 'unknown'}))
      await log.append(outcome('2', 'POST', '/api/subaccounts/move/m2/approve', {status: null, outcome: 'unknown'}))
      await log.append(outcome('3', 'DELETE', '/api/subaccounts/move/m3', {status: 503}))
      await log.append(outcome('4', 'DELETE', '/api/subaccounts/move/m3', {status: 200, resource_id: 'm3', resource_status: 'canceled', outcome: 'created'}))
      await log.append(outcome('5', 'POST', '/api/subaccounts/move/m4/approve', {status: 207, resource_id: 'm4', resource_status: 'approved', outcome: 'created'}))
      await log.append(outcome('6', 'DELETE', '/api/subaccounts/move/%E0%A4%A', {status: 500, outcome: 'unknown'}))
      expect([...movesInDoubt(d.path, null, ['m1', 'm2', 'm3', 'm4', 'other'])]).toEqual([
        ['m1', 'cancel'],
        ['m2', 'approve'],
      ])
      expect(movesInDoubt(d.path, null, []).size).toBe(0)
      expect([...endedMoves(d.path, null, ['m1', 'm3', 'm4'])].sort()).toEqual([
        ['m3', 'canceled'],
        ['m4', 'approved'],
      ])
    } finally {
      d.cleanup()
    }
  })
})
