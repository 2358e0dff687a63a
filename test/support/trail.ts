/**
 * The audit trail's store in tests (its tables in the control store, `controls.sqlite`): opened to
 * tamper with it (as someone who can write the config dir would), and exported as JSON lines (what
 * `audit export --format jsonl` writes).
 */
import {join} from 'node:path'
import {exportAudit, TRAIL_FILE} from '../../src/audit/index.js'
import {TRAIL_SCHEMA} from '../../src/audit/schema.js'
import {openDatabase, type Database, type SqlValue} from '../../src/db/index.js'

/** The path of the store in a config dir. */
export const trailFile = (dir: string) => join(dir, TRAIL_FILE)

/** Runs `fn` on the store of `dir`, opened directly (no import, no check), and closes it. */
export function withTrailDb<T>(dir: string, fn: (db: Database) => T): T {
  const db = openDatabase(trailFile(dir), TRAIL_SCHEMA)
  try {
    return fn(db)
  } finally {
    db.close()
  }
}

/** One statement on the store of `dir`. */
export function tamper(dir: string, sql: string, ...params: SqlValue[]): void {
  withTrailDb(dir, (db) => db.prepare(sql).run(...params))
}

/** Everything the store holds (rows and head), to put back with {@link restoreTrail}. */
export interface TrailSnapshot {
  rows: Array<{seq: number; kind: string; hash: string; record: string}>
  head: Array<{seq: number; hash: string}>
}

export function snapshotTrail(dir: string): TrailSnapshot {
  return withTrailDb(dir, (db) => ({
    rows: db.prepare('SELECT seq, kind, hash, record FROM trail ORDER BY seq').all(),
    head: db.prepare('SELECT seq, hash FROM trail_head').all(),
  }))
}

export function restoreTrail(dir: string, s: TrailSnapshot): void {
  withTrailDb(dir, (db) =>
    db.transaction(() => {
      db.exec('DELETE FROM trail; DELETE FROM trail_head')
      for (const r of s.rows) db.prepare('INSERT INTO trail (seq, kind, hash, record) VALUES (?, ?, ?, ?)').run(r.seq, r.kind, r.hash, r.record)
      for (const h of s.head) db.prepare('INSERT INTO trail_head (only_row, seq, hash) VALUES (1, ?, ?)').run(h.seq, h.hash)
    }),
  )
}

/** The trail of `dir` as `audit export --format jsonl` writes it (records, then the head line). */
export function exportedTrail(dir: string): string {
  let text = ''
  exportAudit(dir, (piece) => (text += piece))
  return text
}
