/**
 * The newest records of the trail, read for shell completion: the store opened read-only (nothing
 * is written, no lock is taken, an old trail is not imported here), only the last rows of a kind,
 * newest first from the end of the table, and none when the store cannot be read.
 */
import {join} from 'node:path'
import {openDatabase} from '../db/index.js'
import type {AuditRecord} from './records.js'
import {TRAIL_FILE, TRAIL_SCHEMA} from './schema.js'

/** The last `limit` records of `kind` in the store of `dir`, oldest first ([] when there is none or it cannot be read). */
export function recentRecords(dir: string, kind: AuditRecord['kind'], limit: number): AuditRecord[] {
  let db
  try {
    db = openDatabase(join(dir, TRAIL_FILE), TRAIL_SCHEMA, {readOnly: true})
  } catch {
    return []
  }
  try {
    const out: AuditRecord[] = []
    // At most `limit` rows: read in one call (a row at a time costs a crossing into the binding each).
    for (const row of db.prepare('SELECT record FROM trail WHERE kind = ? ORDER BY seq DESC LIMIT ?').all<{record: string}>(kind, limit)) {
      try {
        out.push(JSON.parse(row.record) as AuditRecord)
      } catch {
        // A damaged row is `audit verify`'s business, not completion's.
      }
    }
    return out.reverse()
  } catch {
    return []
  } finally {
    db.close()
  }
}
