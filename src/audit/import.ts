/**
 * The JSON-lines trail of earlier versions, imported into the store once, on first use: the old
 * `audit.jsonl` is verified against its `audit.head` while it is copied into the store, in one
 * transaction with its chain as it was (each record's number, link and hash), and renamed aside
 * (`audit.jsonl.imported`, `audit.head.imported`). A broken old chain is refused, naming the line,
 * and nothing is imported. The import is recorded with the old head's hash, so a file put back
 * (or one whose rename a crash prevented) is only renamed, never imported twice.
 */
import {renameSync} from 'node:fs'
import {join} from 'node:path'
import type {Database} from '../db/index.js'
import {AuditTrailError} from '../errors.js'
import {verifyChain} from './chain.js'
import {AUDIT_FILE, AUDIT_HEAD, numberedLines, present, readLegacyHead} from './legacy.js'
import type {AuditRecord} from './records.js'
import {systemClock} from '../context/host.js'
import {TRAIL_FILE} from './schema.js'

/** Imports the old trail of `dir` into the store `db` when there is one to import (see the module). */
export function importLegacy(db: Database, dir: string): void {
  const file = join(dir, AUDIT_FILE)
  const headFile = join(dir, AUDIT_HEAD)
  if (!present(file) && !present(headFile)) return
  db.transaction(() => {
    // Again under the write lock: another process may have imported it meanwhile.
    if (!present(file) && !present(headFile)) return
    const empty = !db.prepare('SELECT 1 AS x FROM trail LIMIT 1').get()
    const head = readLegacyHead(dir)
    const insert = db.prepare('INSERT INTO trail (seq, kind, hash, record) VALUES (?, ?, ?, ?)')
    function* copied(): Generator<{n: number; text: string}> {
      for (const line of present(file) ? numberedLines(file) : []) {
        yield line
        // Reached only once the walk took the line as the chain's next record.
        if (empty) {
          const rec = JSON.parse(line.text) as AuditRecord
          insert.run(rec.seq, rec.kind, rec.hash, line.text)
        }
      }
    }
    const result = verifyChain({label: file, unit: 'line', items: copied(), head: () => head, headName: AUDIT_HEAD})
    if (!result.ok) throw new AuditTrailError(`The audit trail of an earlier payops cannot be imported: ${result.message?.replace(/\.$/, '')}. Nothing was imported; move ${AUDIT_FILE} and ${AUDIT_HEAD} aside to start the trail in ${TRAIL_FILE}.`)
    const end = result.head!
    if (end.seq === 0) return
    const done = db.prepare('SELECT 1 AS x FROM trail_imports WHERE head_hash = ?').get(end.hash)
    if (done) return
    if (!empty) {
      throw new AuditTrailError(`${file} holds a trail (${end.seq} records, head ${end.hash.slice(0, 16)}…) that was never imported, and the audit trail in ${TRAIL_FILE} already holds another: nothing was imported. Move ${AUDIT_FILE} and ${AUDIT_HEAD} aside (keep them if you need that older trail).`)
    }
    db.prepare('INSERT INTO trail_head (only_row, seq, hash) VALUES (1, ?, ?)').run(end.seq, end.hash)
    db.prepare('INSERT INTO trail_imports (at, file, records, head_hash) VALUES (?, ?, ?, ?)').run(new Date(systemClock.now()).toISOString(), file, end.seq, end.hash)
  })
  // On disk before the old files go aside: a checkpoint syncs the log, then the database.
  db.exec('PRAGMA wal_checkpoint(FULL)')
  for (const f of [file, headFile]) setAside(f)
}

/** Renames `file` to `FILE.imported` (or `.imported.2`, … when that is taken); one already gone is left. */
function setAside(file: string): void {
  if (!present(file)) return
  for (let i = 1; i < 1000; i++) {
    const to = `${file}.imported${i === 1 ? '' : `.${i}`}`
    if (present(to)) continue
    try {
      renameSync(file, to)
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err
    }
    return
  }
}
