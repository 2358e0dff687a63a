/**
 * The audit trail's store on this machine: tables of the control store's SQLite file in the config
 * dir (`controls.sqlite`, purpose `controls`, through src/db; the schema in
 * src/control/sqlite-schema.ts), so that the trail and every other control record of the machine
 * (import batches and journals, reconciliation decisions, names, watch alerts) are one store. One
 * row a record, each row the record as JSON with its place in the chain (`seq`, `prev`) and its
 * hash, and a one-row head (the last record's number and hash), so that records cut off the end
 * are detected too.
 *
 * A group of records is appended in one `BEGIN IMMEDIATE` transaction: SQLite's write lock
 * serialises writers across processes (and the trail's writes with the control store's, on the
 * same file: a writer waits for the lock up to its busy timeout), the checks run (daily caps,
 * maker-checker) on the trail as it is then, and the records they allow commit with the head,
 * whole or not at all; the log is then synced (see sync) before the callers are told. The trail's
 * connection is its own: `synchronous = NORMAL` and a busy timeout of 15 s are settings of the
 * connection, so the control store's connections keep theirs (`FULL`). The file is never opened
 * through a symbolic link (src/db refuses one at the file, its WAL and journal).
 */
import {constants, mkdirSync} from 'node:fs'
import {open} from 'node:fs/promises'
import {join} from 'node:path'
import {openDatabase, type Database} from '../db/index.js'
import {AuditTrailError} from '../errors.js'
import {verifyChain, type HeadState, type VerifyOptions, type VerifyResult} from './chain.js'
import {importLegacy} from './import.js'
import {AUDIT_FILE, AUDIT_HEAD, present} from './legacy.js'
import {TRAIL_FILE, TRAIL_SCHEMA} from './schema.js'
import {chained, GENESIS, recordHash, type AuditFields, type AuditRecord, type TrailCheck} from './records.js'

/** A record to append and the check that may refuse it. */
export interface Entry {
  fields: AuditFields
  check?: TrailCheck
}

/** What became of each entry of a group: written, or refused by its check (the error it threw). */
export type Written = Array<{ok: true} | {ok: false; error: unknown}>

const HEX64 = /^[0-9a-f]{64}$/

/** Whether the config dir `dir` has a trail (the store, or an old one still to import). */
export function hasTrail(dir: string): boolean {
  return [TRAIL_FILE, AUDIT_FILE, AUDIT_HEAD].some((f) => present(join(dir, f)))
}

export class TrailStore {
  /** The write-ahead log, open for syncing (see sync). */
  /** The records read so far, up to `seq` (whose hash is `hash`): a later read parses only the rows after it. */
  private cache?: {seq: number; hash: string; records: AuditRecord[]}

  private constructor(
    private readonly db: Database,
    readonly dir: string,
  ) {}

  /** Opens (creating it when needed) the store of `dir`; an old JSON-lines trail there is imported first, once. */
  static open(dir: string): TrailStore {
    mkdirSync(dir, {recursive: true, mode: 0o700})
    // NORMAL: a commit is not synced by SQLite itself; the writer syncs the log after it, off the
    // event loop (see sync), before it tells anyone the records are written.
    const db = openDatabase(join(dir, TRAIL_FILE), TRAIL_SCHEMA, {synchronous: 'NORMAL', busyTimeoutMs: 15_000})
    try {
      importLegacy(db, dir)
    } catch (err) {
      db.close()
      throw err
    }
    return new TrailStore(db, dir)
  }

  get location(): string {
    return this.db.path
  }

  /** The head row: absent (a new trail), or the last record's number and hash. */
  head(): HeadState {
    const row = this.db.prepare('SELECT seq, hash FROM trail_head WHERE only_row = 1').get<{seq: number; hash: string}>()
    if (!row) return {state: 'absent'}
    if (typeof row.seq !== 'number' || row.seq < 0 || typeof row.hash !== 'string' || !HEX64.test(row.hash)) return {state: 'garbled', detail: 'holds no valid record number and hash'}
    return {state: 'ok', head: {seq: row.seq, hash: row.hash}}
  }

  /** Whether the trail has neither a record nor a head (the control store is there, its trail not begun). */
  empty(): boolean {
    return this.head().state === 'absent' && !this.db.prepare('SELECT 1 AS x FROM trail LIMIT 1').get()
  }

  /** Where the chain continues from, checked against the head; a problem refuses every write. */
  private tail(): {ok: true; seq: number; prev: string} | {ok: false; problem: string} {
    const head = this.head()
    const last = this.db.prepare('SELECT seq, hash, record FROM trail ORDER BY seq DESC LIMIT 1').get<{seq: number; hash: string; record: string}>()
    if (last && !intact(last)) return {ok: false, problem: `has a broken last record (record ${last.seq} does not match its hash)`}
    if (head.state === 'garbled') return {ok: false, problem: `has a garbled head (the head ${head.detail})`}
    if (head.state === 'absent') {
      if (!last) return {ok: true, seq: 0, prev: GENESIS}
      return {ok: false, problem: `lost its head (the trail ends at record ${last.seq} but its head is missing)`}
    }
    const h = head.head
    if (!last) return h.seq === 0 ? {ok: true, seq: 0, prev: GENESIS} : {ok: false, problem: `lost its records (there are none but its head names record ${h.seq})`}
    if (last.seq === h.seq && last.hash === h.hash) return {ok: true, seq: last.seq, prev: last.hash}
    return {ok: false, problem: `was cut or its head changed (the trail ends at record ${last.seq}, its head names record ${h.seq}${last.seq === h.seq ? ' with another hash' : ''})`}
  }

  /**
   * Appends a group in one transaction: each entry's check on the trail as it is (the records in
   * the store and those of the group before it), the records allowed, and the head. Throws
   * {@link AuditTrailError}, writing nothing, when the trail's end does not match its head. The
   * records are dated by `now` once the write lock is held, so that the trail's times follow its
   * order across processes (a writer may wait for the lock behind others).
   */
  append(entries: readonly Entry[], now: () => string, pid = process.pid): Written {
    return this.db.transaction(() => {
      const time = now()
      const tail = this.tail()
      if (!tail.ok) throw new AuditTrailError(`the audit trail in ${this.location} ${tail.problem}: run \`payops audit verify\`; nothing can be added to a trail whose end does not match its head`)
      let {seq, prev} = tail
      let added = 0
      const insert = this.db.prepare('INSERT INTO trail (seq, kind, hash, record) VALUES (?, ?, ?, ?)')
      const written: Written = entries.map((entry) => {
        if (entry.check) {
          try {
            // The records of this group written so far are in the transaction, and read with the rest.
            entry.check(this.records())
          } catch (error) {
            return {ok: false, error}
          }
        }
        const rec = chained(entry.fields, seq + 1, prev, time, pid)
        insert.run(rec.seq, rec.kind, rec.hash, JSON.stringify(rec))
        added++
        seq = rec.seq
        prev = rec.hash
        return {ok: true}
      })
      if (added) this.db.prepare('INSERT INTO trail_head (only_row, seq, hash) VALUES (1, ?, ?) ON CONFLICT (only_row) DO UPDATE SET seq = excluded.seq, hash = excluded.hash').run(seq, prev)
      return written
    })
  }

  /** Every record, in order (rows that are not JSON are left out: `audit verify` names them). */
  records(): AuditRecord[] {
    const c = this.cache
    const same = c && (c.seq === 0 || this.db.prepare('SELECT hash FROM trail WHERE seq = ?').get<{hash: string}>(c.seq)?.hash === c.hash)
    const records = same ? [...c.records] : []
    let from = same ? c.seq : 0
    let hash = same ? c.hash : GENESIS
    for (const row of this.db.prepare('SELECT seq, hash, record FROM trail WHERE seq > ? ORDER BY seq').iterate<{seq: number; hash: string; record: string}>(from)) {
      try {
        records.push(JSON.parse(row.record) as AuditRecord)
      } catch {
        // A damaged row is `audit verify`'s to name.
      }
      from = row.seq
      hash = row.hash
    }
    this.cache = {seq: from, hash, records: [...records]}
    return records
  }

  /** The rows as stored (the record's JSON), in order: what `audit export` writes. */
  *texts(): Generator<{n: number; text: string}> {
    for (const row of this.db.prepare('SELECT seq, record FROM trail ORDER BY seq').iterate<{seq: number; record: string}>()) yield {n: row.seq, text: row.record}
  }

  /** Walks the store's chain and checks it ends at its head (in one read transaction: the two agree). */
  verify(opts: VerifyOptions = {}): VerifyResult {
    return this.reading(() => {
      const head = this.head()
      return verifyChain({label: this.location, unit: 'record', items: this.texts(), head: () => head, headName: 'the trail\'s head'}, opts)
    })
  }

  /** `fn` in one read transaction: what it reads is one state of the store. */
  reading<T>(fn: () => T): T {
    this.db.exec('BEGIN')
    try {
      return fn()
    } finally {
      this.db.exec('COMMIT')
    }
  }

  /**
   * Makes every commit so far durable: the write-ahead log (`controls.sqlite-wal`, where each commit
   * is appended, the control store's too) synced with fdatasync on libuv's thread pool, so answers to requests in flight are
   * read meanwhile and the records they bring join the next group. Never through a link.
   */
  async sync(): Promise<void> {
    // A handle of its own each time, closed here: none is left for the garbage collector to close
    // (Node 26 makes that an error), whether syncs overlap or the store closes meanwhile.
    const wal = await open(`${this.db.path}-wal`, constants.O_RDWR | (constants.O_NOFOLLOW ?? 0))
    try {
      await wal.datasync()
    } finally {
      await wal.close()
    }
  }

  close(): void {
    this.db.close()
  }
}

/** A row whose record is the one its hash names. */
function intact(row: {seq: number; hash: string; record: string}): boolean {
  try {
    const {hash, ...rest} = JSON.parse(row.record) as AuditRecord
    return hash === row.hash && rest.seq === row.seq && recordHash(rest) === hash
  } catch {
    return false
  }
}
