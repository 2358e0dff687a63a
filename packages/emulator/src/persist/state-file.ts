/**
 * `--state FILE`: the store in one SQLite file (purpose `emulator-state`, persist/db.ts), written through.
 *
 * The in-memory store stays what every request reads; the file follows it record by record. The
 * store reports each change (see store/core.ts: a record added or changed in its table, a record
 * deleted, store-level data such as entities and API keys, a reset); this module collects the
 * changed records and writes them (an upsert of the record's JSON under its owner, kind, group and
 * id; a delete) in one transaction that is committed before the emulator answers the request that
 * made them (http.ts calls {@link StateFile.commit}). A change made outside a request (an async
 * transfer's timer) is committed on the next turn of the event loop. A request that changes many
 * records (the bulk control routes: up to 1,000,000 moves) writes them in chunks, still in one
 * transaction. Nothing ever builds one string of the whole state.
 *
 * Durability: WAL with synchronous=NORMAL. A committed transaction is in the WAL file (the
 * operating system's cache) before the answer is sent, so it survives the emulator being killed
 * (kill -9); it is NOT power-loss durable (the WAL is not fsynced at each commit).
 *
 * The file: created with mode 0600 (it holds API keys and signing secrets), first under a randomly
 * named temporary file created exclusively (O_CREAT|O_EXCL, so a file or symlink planted under that
 * name is never followed), filled with the whole store and renamed into place: a state file is
 * never half-made. It is never opened through a symlink (persist/db.ts refuses), and it is held with an
 * exclusive lock while the emulator runs (a second emulator on the same file is refused).
 *
 * A file that is not a payops emulator state is refused with one line and left as it is: a JSON
 * state file of an earlier payops (which kept the whole store as one JSON document; such a file can
 * be converted into a new SQLite state, see {@link loadJsonState}), an empty file, or anything else.
 *
 * Failures after start: a commit that fails is reported once on the log, and the whole store is
 * written again (retried with a growing delay) until it succeeds; a state file that disappears (its
 * directory removed, the file replaced) is reported once and no longer written. Either way the
 * final close throws a {@link StateSaveError}, so that the command exits non-zero.
 */
import {existsSync, statSync, type Stats} from 'node:fs'
import {dirname} from 'node:path'
import {EmulatorError, StateSaveError, UsageError} from '../lib/errors.js'
import {oneLine} from '../lib/text.js'
import type {Holder, Row, Store, StoreListener} from '../store/index.js'
import {refuseSymlinks, type Database} from './db.js'
import {reason} from './files.js'
import {openState} from './load.js'
import {statements, writeAll, writeNewFile, writeStoreRows, type Statements} from './write.js'

/** Changed records kept before they are written out (within the same transaction). */
export const WRITE_CHUNK = 10_000
/** After a failed commit, the first retry of a full write; the delay doubles up to the maximum. */
export const RETRY_MS = 1_000
export const RETRY_MAX_MS = 30_000

export class StateFile {
  readonly path: string
  private readonly store: Store
  private readonly log: (line: string) => void
  private db?: Database
  private st?: Statements
  /** The file written through: a state file replaced or removed meanwhile is not ours any more. */
  private identity?: {dev: number; ino: number}
  private unlisten?: () => void

  /** Records changed since the last write, with where they are kept (a Map: each written once). */
  private readonly pending = new Map<Row, Holder>()
  /** Seqs of records deleted since the last write. */
  private readonly removals: number[] = []
  private storeChanged = false
  private wasCleared = false
  private inTransaction = false
  private scheduled = false

  /** Why the last write failed (the whole store is written again until it succeeds). */
  private failure?: string
  private retryMs = RETRY_MS
  private retryTimer?: NodeJS.Timeout
  /** Why the file is no longer written (it disappeared). */
  private lost?: string
  private closed = false

  constructor(path: string, store: Store, log: (line: string) => void) {
    this.path = path
    this.store = store
    this.log = log
  }

  /**
   * Before the emulator listens: opens the state file the store was loaded from, or creates it
   * with the whole store. A state that cannot be written (missing directory, a directory, no
   * permission, in use) is a {@link UsageError}.
   */
  async init(): Promise<void> {
    refuseSymlinks(this.path, 'state file')
    if (!existsSync(this.path)) {
      // A write-ahead log left by a state file that was removed would be replayed into the new one.
      const stale = [`${this.path}-wal`, `${this.path}-journal`].filter((f) => existsSync(f))
      if (stale.length > 0) {
        throw new UsageError(`Emulator state file ${this.path} does not exist, but ${stale.join(' and ')} (left by a removed state file) does; remove it or choose another --state file.`)
      }
      try {
        writeNewFile(this.path, this.store)
      } catch (err) {
        if (err instanceof EmulatorError) throw err
        throw new UsageError(`Cannot write the emulator state file ${this.path}: ${reason(err)}.`)
      }
    }
    const db = openState(this.path)
    try {
      this.st = statements(db)
      // The first write takes the file's exclusive lock and proves it writable.
      db.transaction(() => this.st!.putStore.run('meta', '', JSON.stringify(this.store.meta())))
      const s = statSync(this.path)
      this.identity = {dev: s.dev, ino: s.ino}
    } catch (err) {
      db.close()
      this.st = undefined
      if (err instanceof EmulatorError) throw err
      const message = oneLine((err as Error).message)
      if (/locked|busy/i.test(message)) throw new UsageError(`Emulator state file ${this.path} is in use by another process (another emulator started with this --state?).`)
      throw new UsageError(`Cannot write the emulator state file ${this.path}: ${reason(err)}.`)
    }
    this.db = db
  }

  /** Writes every change of the store through from now on. */
  watch(): void {
    this.unlisten ??= this.store.listen(this.listener)
  }

  // ---- what the store reports ----

  private readonly listener: StoreListener = {
    record: (holder, row, removed) => this.onRecord(holder, row, removed),
    other: () => this.onOther(),
    cleared: () => this.onCleared(),
  }

  private onRecord(holder: Holder, row: Row, removed: boolean): void {
    if (!this.db || this.failure !== undefined || this.lost !== undefined) return
    if (removed) {
      this.pending.delete(row)
      this.removals.push(row.seq)
    } else {
      this.pending.set(row, holder)
      if (this.pending.size >= WRITE_CHUNK) this.writeChunk()
    }
    this.schedule()
  }

  private onOther(): void {
    if (!this.db || this.failure !== undefined || this.lost !== undefined) return
    this.storeChanged = true
    this.schedule()
  }

  private onCleared(): void {
    if (!this.db || this.failure !== undefined || this.lost !== undefined) return
    this.pending.clear()
    this.removals.length = 0
    this.wasCleared = true
    this.storeChanged = true
    this.schedule()
  }

  /** Changes made outside a request are committed on the next turn of the event loop. */
  private schedule(): void {
    if (this.scheduled) return
    this.scheduled = true
    setImmediate(() => {
      this.scheduled = false
      this.commit()
    })
  }

  /**
   * Commits every change not yet committed, in one transaction; never throws (a failure is
   * reported on the log). http.ts calls it before it answers a request.
   */
  commit(): void {
    const db = this.db
    if (!db || this.lost !== undefined || this.failure !== undefined) return
    if (!this.inTransaction && this.pending.size === 0 && this.removals.length === 0 && !this.storeChanged && !this.wasCleared) return
    try {
      this.begin()
      this.writePending()
      if (this.storeChanged) {
        this.storeChanged = false
        writeStoreRows(this.st!, this.store)
      } else {
        this.st!.putStore.run('meta', '', JSON.stringify(this.store.meta()))
      }
      db.exec('COMMIT')
      this.inTransaction = false
    } catch (err) {
      this.fail(err)
      return
    }
    this.checkIdentity()
  }

  /** A large change (a bulk route) is written out as it grows, in the transaction still open. */
  private writeChunk(): void {
    try {
      this.begin()
      this.writePending()
    } catch (err) {
      this.fail(err)
    }
  }

  private begin(): void {
    if (this.inTransaction) return
    this.db!.exec('BEGIN IMMEDIATE')
    this.inTransaction = true
  }

  private writePending(): void {
    const st = this.st!
    if (this.wasCleared) {
      this.wasCleared = false
      this.db!.exec("DELETE FROM records; DELETE FROM store WHERE kind = 'entity'")
    }
    for (const seq of this.removals) st.deleteRecord.run(seq)
    this.removals.length = 0
    for (const [row, holder] of this.pending) {
      const p = holder.place
      // A table outside any entity (tests build such) is not part of the state.
      if (p.kind === '') continue
      st.putRecord.run(row.seq, p.owner, p.kind, p.group, row.id, JSON.stringify(holder.saved(row)))
    }
    this.pending.clear()
  }

  /** A failed write: rolled back, reported once, and the whole store written again later. */
  private fail(err: unknown): void {
    if (this.inTransaction) {
      try {
        this.db!.exec('ROLLBACK')
      } catch {
        // the failure ended the transaction already
      }
      this.inTransaction = false
    }
    this.pending.clear()
    this.removals.length = 0
    this.storeChanged = false
    this.wasCleared = false
    const first = this.failure === undefined
    this.failure = reason(err)
    if (first) {
      this.log(`emulator: could not save state to ${this.path}: ${this.failure}; changes are not being saved.`)
      this.retryMs = RETRY_MS
    }
    if (!this.closed) {
      this.retryTimer = setTimeout(() => {
        this.retryTimer = undefined
        this.rewrite()
      }, this.retryMs)
      this.retryTimer.unref()
      this.retryMs = Math.min(RETRY_MAX_MS, this.retryMs * 2)
    }
  }

  /** Writes the whole store again (after a failure), in one transaction. */
  private rewrite(): boolean {
    const db = this.db
    if (!db || this.lost !== undefined) return false
    try {
      this.inTransaction = true
      db.exec('BEGIN IMMEDIATE')
      db.exec('DELETE FROM records; DELETE FROM store')
      writeAll(db, this.store)
      db.exec('COMMIT')
      this.inTransaction = false
    } catch (err) {
      this.fail(err)
      return false
    }
    this.failure = undefined
    this.checkIdentity()
    return this.lost === undefined
  }

  /** After a commit: the file at the path must still be the one written (not removed or replaced). */
  private checkIdentity(): void {
    let s: Stats | undefined
    try {
      s = statSync(this.path)
    } catch {
      s = undefined
    }
    if (s && this.identity && s.dev === this.identity.dev && s.ino === this.identity.ino) return
    this.lost = existsSync(dirname(this.path)) ? 'the file was removed or replaced while the emulator ran' : 'its directory does not exist'
    this.pending.clear()
    this.removals.length = 0
    if (this.failure === undefined) this.log(`emulator: could not save state to ${this.path}: ${this.lost}; changes are not being saved.`)
  }

  /**
   * Writes the whole store now: into a new, complete state file (created as {@link init} creates
   * one, then closed) when this state file is not open, else into the open one.
   */
  async save(): Promise<void> {
    if (!this.db) {
      writeNewFile(this.path, this.store)
      return
    }
    if (!this.rewrite()) throw new StateSaveError(`Could not save the emulator state to ${this.path}: ${this.lost ?? this.failure}.`)
  }

  /** Stops listening, commits what is left and closes the file; a {@link StateSaveError} when the state could not be kept. */
  async close(): Promise<void> {
    if (this.closed) return
    this.unlisten?.()
    this.unlisten = undefined
    if (this.retryTimer) clearTimeout(this.retryTimer)
    this.retryTimer = undefined
    this.closed = true
    if (this.db) {
      if (this.failure !== undefined) this.rewrite()
      else this.commit()
      if (this.lost === undefined) this.checkIdentity()
    }
    try {
      this.db?.close()
    } catch {
      // closing a file that is gone
    }
    this.db = undefined
    const why = this.lost ?? this.failure
    if (why !== undefined) throw new StateSaveError(`Could not save the emulator state to ${this.path}: ${why}.`)
  }
}
