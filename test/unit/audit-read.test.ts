/**
 * The trail read again inside the write transaction (the check before an intent) parses only the
 * rows added since the last read (rows it read are not read again: an edit of an older one is
 * `audit verify`'s to find), and sees records another writer added meanwhile; a whole read sees
 * the store as it is.
 */
import {describe, expect, it} from 'vitest'
import {AuditLog, readAudit, type AuditFields, type AuditRecord} from '../../src/audit/index.js'
import {tempDir} from '../support/index.js'
import {tamper} from '../support/trail.js'

const fields = (op: string): AuditFields => ({kind: 'intent', op, profile: 'p', mode: 'test', method: 'POST', path: '/api/subaccounts/move', amount_in_minor_units: 1, currency_code: 'USD'})
const ops = (dir: string) => readAudit(dir).map((r) => r.op)

/** The records a check sees in the write transaction, when `fields` is appended with it. */
async function seenUnderLock(log: AuditLog, op: string): Promise<string[]> {
  let seen: AuditRecord[] = []
  await log.append(fields(op), (records) => {
    seen = records
  })
  return seen.map((r) => r.op)
}

describe('readAudit, read again', () => {
  it('the check in the write transaction sees records other writers added, and a store whose rows were replaced', async () => {
    const d = tempDir()
    const log = new AuditLog(d.path)
    const other = new AuditLog(d.path)
    try {
      for (const op of ['a', 'b', 'c']) await log.append(fields(op))
      expect(ops(d.path)).toEqual(['a', 'b', 'c'])
      expect(await seenUnderLock(other, 'd')).toEqual(['a', 'b', 'c'])
      await log.append(fields('e'))
      expect(await seenUnderLock(other, 'f')).toEqual(['a', 'b', 'c', 'd', 'e'])
      expect(await seenUnderLock(log, 'g')).toEqual(['a', 'b', 'c', 'd', 'e', 'f'])
      // Rows replaced in place (the records of 1 and 2 swapped, hashes with them): a later read sees the store as it is now.
      tamper(d.path, 'UPDATE trail SET seq = -seq WHERE seq IN (1, 2)')
      tamper(d.path, 'UPDATE trail SET seq = 3 + seq WHERE seq < 0')
      expect(ops(d.path)).toEqual(['b', 'a', 'c', 'd', 'e', 'f', 'g'])
      // A last row replaced: the writer refuses to continue it (its check is never asked).
      tamper(d.path, "UPDATE trail SET record = replace(record, '\"op\":\"g\"', '\"op\":\"G\"'), hash = ? WHERE seq = 7", 'e'.repeat(64))
      tamper(d.path, 'UPDATE trail_head SET hash = ?', 'e'.repeat(64))
      let seen: string[] = []
      await other.append(fields('h'), (records) => void (seen = records.map((r) => r.op))).catch(() => undefined)
      expect(seen).toEqual([])
      expect(ops(d.path)).toEqual(['b', 'a', 'c', 'd', 'e', 'f', 'G'])
    } finally {
      await log.close()
      await other.close()
      d.cleanup()
    }
  })
})
