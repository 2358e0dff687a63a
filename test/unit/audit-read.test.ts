/**
 * The trail read again under its lock (the check before an intent) parses only what was appended
 * since the last read, and still sees what a whole read would: a line being written is read but not
 * kept as read, and a file rewritten in place is read whole again.
 */
import {appendFileSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {AuditLog, readAudit, type AuditFields, type AuditRecord} from '../../src/audit/index.js'
import {tempDir} from '../support/index.js'

const fields = (op: string): AuditFields => ({kind: 'intent', op, profile: 'p', mode: 'test', method: 'POST', path: '/api/subaccounts/move', amount_in_minor_units: 1, currency_code: 'USD'})
const ops = (dir: string) => readAudit(dir).map((r) => r.op)

/** The records a check under the lock sees, when `fields` is appended with it. */
async function seenUnderLock(log: AuditLog, op: string): Promise<string[]> {
  let seen: AuditRecord[] = []
  await log.append(fields(op), (records) => {
    seen = records
  })
  return seen.map((r) => r.op)
}

describe('readAudit, read again', () => {
  it('the check under the lock sees appended records, a line completed after a read, and a file rewritten in place', async () => {
    const d = tempDir()
    try {
      const log = new AuditLog(d.path)
      for (const op of ['a', 'b', 'c']) await log.append(fields(op))
      expect(ops(d.path)).toEqual(['a', 'b', 'c'])
      expect(await seenUnderLock(new AuditLog(d.path), 'd')).toEqual(['a', 'b', 'c'])
      await log.append(fields('e'))
      expect(await seenUnderLock(log, 'f')).toEqual(['a', 'b', 'c', 'd', 'e'])
      // A record being written by another hand: its first half, then the rest (the chain is not the point here).
      const file = join(d.path, 'audit.jsonl')
      const line = JSON.stringify({...fields('g'), seq: 99, time: new Date().toISOString(), pid: 1, prev: '', hash: ''})
      appendFileSync(file, line.slice(0, 20))
      const partial = readAudit(d.path).map((r) => r.op)
      expect(partial).toEqual(['a', 'b', 'c', 'd', 'e', 'f'])
      appendFileSync(file, `${line.slice(20)}\n`)
      expect(ops(d.path)).toEqual(['a', 'b', 'c', 'd', 'e', 'f', 'g'])
      // Rewritten in place (same file, lines swapped): a whole read sees it as it is now.
      const lines = readFileSync(file, 'utf8').trim().split('\n')
      writeFileSync(file, [lines[1], lines[0], ...lines.slice(2)].join('\n') + '\n')
      expect(ops(d.path)).toEqual(['b', 'a', 'c', 'd', 'e', 'f', 'g'])
    } finally {
      d.cleanup()
    }
  })
})
