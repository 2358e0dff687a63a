/**
 * `--state FILE`: the store in one SQLite file (src/db, purpose `emulator-state`), written through.
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
 * never half-made. It is never opened through a symlink (src/db refuses), and it is held with an
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
import {randomBytes} from 'node:crypto'
import {closeSync, existsSync, fsyncSync, openSync, renameSync, statSync, unlinkSync, type Stats} from 'node:fs'
import {open, readFile, stat} from 'node:fs/promises'
import {basename, dirname, join} from 'node:path'
import * as z from 'zod/mini'
import {describeIssues} from '../api/schemas/common.js'
import {openDatabase, refuseSymlinks, type Database, type Schema, type Statement} from '../db/index.js'
import {ExitCode, PayopsError, UsageError} from '../errors.js'
import {ActivityBook, ENTITY_ROLES, Entity, Grouped, Store, Table, type ApiKeyRecord, type Holder, type Row, type SavedEntity, type SavedRecord, type StoreListener, type StoreMeta} from './store/index.js'

/** Changed records kept before they are written out (within the same transaction). */
export const WRITE_CHUNK = 10_000
/** After a failed commit, the first retry of a full write; the delay doubles up to the maximum. */
export const RETRY_MS = 1_000
export const RETRY_MAX_MS = 30_000

/** A state file that could not be saved after the emulator started: exit 1 when it stops. */
export class StateSaveError extends PayopsError {
  override name = 'StateSaveError'
  constructor(message: string) {
    super(message, ExitCode.UNEXPECTED)
  }
}

/**
 * The schema of a state file. `store` holds what is not a record (kind `meta`: seq, clock, primary
 * keys, signing secret; `entity`: each entity's header and maps, in order; `api_key`: each key);
 * `records` every record of every entity, under its place (see store/core.ts `Place`) and keyed by
 * its store-wide seq (unique, never changes, and the order records are loaded in).
 */
export const STATE_SCHEMA: Schema = {
  purpose: 'emulator-state',
  migrations: [
    `CREATE TABLE store (kind TEXT NOT NULL, id TEXT NOT NULL, body TEXT NOT NULL, PRIMARY KEY (kind, id));
     CREATE TABLE records (seq INTEGER PRIMARY KEY, owner TEXT NOT NULL, kind TEXT NOT NULL, grp TEXT NOT NULL, id TEXT NOT NULL, body TEXT NOT NULL);`,
  ],
}

const SQLITE_HEADER = 'SQLite format 3\0'

/** What {@link convertHint} tells the user to run (the flag `emulator start` offers for it). */
export const IMPORT_FLAG = '--import-state'

const RowShape = z.looseObject({id: z.string(), seq: z.number()})
const RowsShape = z.array(RowShape)
const GroupedShape = z.record(z.string(), RowsShape)
const MapShape = z.record(z.string(), z.unknown())

/** The top level of a JSON state file (earlier payops), as {@link Store.toJSON} writes it. */
export const StateShape = z.looseObject({
  version: z.number(),
  seq: z.optional(z.number()),
  clock: z.optional(z.number()),
  primary_keys: z.object({test: z.string(), test_other: z.string(), live: z.string()}),
  api_keys: z.array(z.looseObject({key: z.string(), entity_id: z.string(), read_only: z.optional(z.boolean()), created_at: z.optional(z.string())})),
  entities: z.array(
    z.looseObject({
      id: z.string(),
      role: z.enum(ENTITY_ROLES),
      name: z.string(),
      mode: z.enum(['test', 'live']),
      routing_number: z.string(),
      created_at: z.string(),
    }),
  ),
  session_signing_secret: z.optional(z.string()),
})

const CURRENT_JSON_VERSION = new Store().toJSON().version

const oneLine = (s: string) => s.replace(/\s+/g, ' ').trim()

/** Why a file operation failed, in words (no temporary file names). */
function reason(err: unknown): string {
  const e = err as NodeJS.ErrnoException
  switch (e?.code) {
    case 'ENOENT':
      return 'its directory does not exist'
    case 'ENOTDIR':
      return 'a part of its directory path is not a directory'
    case 'EISDIR':
      return 'it is a directory'
    case 'EACCES':
    case 'EPERM':
      return 'permission denied'
    case 'EROFS':
      return 'the file system is read-only'
    case 'ENOSPC':
      return 'no space left on the device'
    default:
      return oneLine(String(e?.message ?? err))
  }
}

const invalid = (path: string, why: string) =>
  new UsageError(`Emulator state file ${path} is not a valid state: ${oneLine(why)}. It was left untouched; move it away or choose another --state file.`)

/** The problems of a parsed JSON state file, or undefined when its shape is right. */
function shapeProblem(json: unknown): string | undefined {
  if (!json || typeof json !== 'object' || Array.isArray(json)) return 'it is not a JSON object'
  const version = (json as {version?: unknown}).version
  if (version !== CURRENT_JSON_VERSION) return `unsupported state version ${JSON.stringify(version) ?? 'undefined'} (expected ${CURRENT_JSON_VERSION})`
  const r = StateShape.safeParse(json)
  if (!r.success) return describeIssues(r.error)
  const state = r.data
  const entityIds = new Set(state.entities.map((e) => e.id))
  for (const role of ENTITY_ROLES) if (!state.entities.some((e) => e.role === role)) return `no entity with role "${role}"`
  for (const [i, k] of state.api_keys.entries()) if (!entityIds.has(k.entity_id)) return `api_keys.${i}: unknown entity ${k.entity_id}`
  const keys = new Set(state.api_keys.map((k) => k.key))
  for (const role of ENTITY_ROLES) if (!keys.has(state.primary_keys[role])) return `primary_keys.${role}: not among api_keys`
  // Each entity's tables, checked against the fields a fresh entity has.
  for (const [i, ej] of state.entities.entries()) {
    const probe = new Entity({id: ej.id, role: ej.role, name: ej.name, mode: ej.mode, routing_number: ej.routing_number, created_at: ej.created_at})
    for (const [k, field] of Object.entries(probe)) {
      const v = (ej as Record<string, unknown>)[k]
      if (v === undefined || v === null) continue
      const schema = field instanceof Table ? RowsShape : field instanceof Grouped || field instanceof ActivityBook ? GroupedShape : field instanceof Map ? MapShape : undefined
      if (!schema) continue
      const fr = schema.safeParse(v)
      if (!fr.success) return describeIssues(fr.error, `entities.${i}.${k}`)
    }
  }
  return undefined
}

/** What the file at a state path is, judged by its first bytes (the file is only read). */
type Kind = 'absent' | 'sqlite' | 'json'

async function inspect(path: string): Promise<Kind> {
  refuseSymlinks(path, 'state file')
  let st: Stats
  try {
    st = await stat(path)
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 'absent'
    throw new UsageError(`Cannot read the emulator state file ${path}: ${reason(err)}.`)
  }
  if (st.isDirectory()) throw invalid(path, 'it is a directory')
  if (!st.isFile()) throw invalid(path, 'it is not a regular file')
  if (st.size === 0) throw invalid(path, 'it is empty')
  const head = Buffer.alloc(64)
  let n: number
  try {
    const fh = await open(path, 'r')
    try {
      n = (await fh.read(head, 0, head.length, 0)).bytesRead
    } finally {
      await fh.close()
    }
  } catch (err) {
    throw new UsageError(`Cannot read the emulator state file ${path}: ${reason(err)}.`)
  }
  if (n >= 16 && head.toString('latin1', 0, 16) === SQLITE_HEADER) return 'sqlite'
  const text = head.toString('utf8', 0, n).replace(/^\uFEFF/, '').trimStart()
  if (text.startsWith('{') || text.startsWith('[')) return 'json'
  throw invalid(path, 'it is neither an SQLite nor a JSON state file of payops')
}

/** The one line that refuses a JSON state file of an earlier payops (and says how to convert it). */
export function convertHint(path: string): string {
  return `Emulator state file ${path} is a JSON state file written by an earlier payops; this payops keeps --state in SQLite and left the file untouched. Start without --state, or convert it into a new file: payops emulator start --state NEW_FILE ${IMPORT_FLAG} ${path}`
}

/**
 * A JSON state file of an earlier payops as a store (to convert it into an SQLite state), checked
 * first (JSON, the top-level shape, every entity's tables); a bad one is a {@link UsageError}. The
 * file is only read.
 */
export async function loadJsonState(path: string): Promise<Store> {
  refuseSymlinks(path, 'state file')
  let text: string
  try {
    const st = await stat(path)
    if (st.isDirectory()) throw invalid(path, 'it is a directory')
    if (!st.isFile()) throw invalid(path, 'it is not a regular file')
    text = await readFile(path, 'utf8')
  } catch (err) {
    if (err instanceof UsageError) throw err
    throw new UsageError(`Cannot read the emulator state file ${path}: ${reason(err)}.`)
  }
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch (err) {
    throw invalid(path, `not JSON (${(err as Error).message})`)
  }
  const problem = shapeProblem(json)
  if (problem) throw invalid(path, problem)
  try {
    return Store.fromJSON(json)
  } catch (err) {
    throw invalid(path, (err as Error).message)
  }
}

/** Opens an existing state file (for loading, or to write through), with a one-line error. */
function openState(path: string): Database {
  let db: Database
  try {
    db = openDatabase(path, STATE_SCHEMA, {create: false, synchronous: 'NORMAL', busyTimeoutMs: 2000})
  } catch (err) {
    if (err instanceof PayopsError) throw err
    const message = oneLine((err as Error).message)
    if (/locked|busy/i.test(message)) throw new UsageError(`Emulator state file ${path} is in use by another process (another emulator started with this --state?).`)
    throw new UsageError(`Cannot open the emulator state file ${path}: ${message}.`)
  }
  try {
    // Held from the first read and write until close: no other process reads or writes it meanwhile.
    db.exec('PRAGMA locking_mode = EXCLUSIVE')
    // After a large transaction (a bulk route), the WAL file is cut back to this size.
    db.exec('PRAGMA journal_size_limit = 67108864')
  } catch (err) {
    db.close()
    throw new UsageError(`Cannot open the emulator state file ${path}: ${oneLine((err as Error).message)}.`)
  }
  return db
}

function parse<T>(text: unknown): T {
  return JSON.parse(String(text)) as T
}

/** The store kept in an open state file, its records streamed row by row. */
function readStore(db: Database): Store {
  const meta = db.prepare("SELECT body FROM store WHERE kind = 'meta'").get<{body: string}>()
  if (!meta) throw new Error('it has no store metadata')
  const entities = function* (): Generator<SavedEntity> {
    for (const r of db.prepare("SELECT body FROM store WHERE kind = 'entity' ORDER BY rowid").iterate<{body: string}>()) yield parse<SavedEntity>(r.body)
  }
  const apiKeys = function* (): Generator<ApiKeyRecord> {
    for (const r of db.prepare("SELECT body FROM store WHERE kind = 'api_key' ORDER BY rowid").iterate<{body: string}>()) yield parse<ApiKeyRecord>(r.body)
  }
  const records = function* (): Generator<SavedRecord> {
    for (const r of db.prepare('SELECT owner, kind, grp, body FROM records ORDER BY seq').iterate<{owner: string; kind: string; grp: string; body: string}>()) {
      yield {owner: r.owner, kind: r.kind, group: r.grp, body: parse(r.body)}
    }
  }
  const store = Store.restore({meta: parse<StoreMeta>(meta.body), entities: entities(), apiKeys: apiKeys(), records: records()})
  for (const role of ENTITY_ROLES) {
    if (!store.entityByRole(role)) throw new Error(`no entity with role "${role}"`)
    const key = store.primaryKeys[role]
    if (key === undefined || store.apiKeys.get(key)?.entity_id !== store.entityByRole(role)!.id) throw new Error(`no primary key of the ${role} entity`)
  }
  return store
}

/**
 * The store saved at `path`, or undefined when there is no such file. A file that is not a payops
 * emulator state (a JSON state of an earlier payops, an empty file, anything else) is a
 * {@link UsageError} naming it, and is left as it is.
 */
export async function loadState(path: string): Promise<Store | undefined> {
  const kind = await inspect(path)
  if (kind === 'absent') return undefined
  if (kind === 'json') {
    // Read whole only to tell a state of an earlier payops from a broken one.
    await loadJsonState(path)
    throw new UsageError(convertHint(path))
  }
  const db = openState(path)
  try {
    return readStore(db)
  } catch (err) {
    if (err instanceof PayopsError) throw err
    throw invalid(path, (err as Error).message)
  } finally {
    db.close()
  }
}

interface Statements {
  putRecord: Statement
  insertRecord: Statement
  deleteRecord: Statement
  putStore: Statement
}

function statements(db: Database): Statements {
  return {
    putRecord: db.prepare(
      'INSERT INTO records (seq, owner, kind, grp, id, body) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (seq) DO UPDATE SET owner = excluded.owner, kind = excluded.kind, grp = excluded.grp, id = excluded.id, body = excluded.body',
    ),
    insertRecord: db.prepare('INSERT INTO records (seq, owner, kind, grp, id, body) VALUES (?, ?, ?, ?, ?, ?)'),
    deleteRecord: db.prepare('DELETE FROM records WHERE seq = ?'),
    putStore: db.prepare('INSERT INTO store (kind, id, body) VALUES (?, ?, ?) ON CONFLICT (kind, id) DO UPDATE SET body = excluded.body'),
  }
}

/** Writes what is not a record: the meta row, every entity (header and maps) and every API key. */
function writeStoreRows(st: Statements, store: Store): void {
  for (const e of store.entities.values()) st.putStore.run('entity', e.id, JSON.stringify(store.savedEntity(e)))
  for (const k of store.apiKeys.values()) st.putStore.run('api_key', k.key, JSON.stringify(k))
  st.putStore.run('meta', '', JSON.stringify(store.meta()))
}

/** Writes the whole store into an empty state (inside the caller's transaction). */
function writeAll(db: Database, store: Store): void {
  const st = statements(db)
  writeStoreRows(st, store)
  for (const e of store.entities.values()) {
    for (const [holder, row, body] of e.records()) {
      const p = holder.place
      try {
        st.insertRecord.run(row.seq, p.owner, p.kind, p.group, row.id, JSON.stringify(body))
      } catch (err) {
        if (/UNIQUE|PRIMARY KEY/i.test((err as Error).message)) throw new Error(`two records share seq ${row.seq} (the second is ${p.kind} ${row.id})`)
        throw err
      }
    }
  }
}

/** Removes a temporary state file and the files SQLite may have made next to it. */
function removeTemp(tmp: string): void {
  for (const f of [tmp, `${tmp}-wal`, `${tmp}-shm`, `${tmp}-journal`]) {
    try {
      unlinkSync(f)
    } catch {
      // not there
    }
  }
}

/**
 * Writes `store` as a new, complete state file at `path`: into a temporary file created
 * exclusively with mode 0600 next to it, renamed into place once complete.
 */
function writeNewFile(path: string, store: Store): void {
  const dir = dirname(path)
  const tmp = join(dir, `.${basename(path)}.${randomBytes(12).toString('hex')}.tmp`)
  // 'wx' = O_WRONLY|O_CREAT|O_EXCL: fails on any existing name, symlinks included.
  closeSync(openSync(tmp, 'wx', 0o600))
  try {
    const db = openDatabase(tmp, STATE_SCHEMA, {synchronous: 'NORMAL'})
    try {
      db.transaction(() => writeAll(db, store))
    } finally {
      db.close()
    }
    renameSync(tmp, path)
  } catch (err) {
    removeTemp(tmp)
    throw err
  }
  syncDir(dir)
}

/** Makes a rename durable; best effort (not every platform can open a directory). */
function syncDir(dir: string): void {
  try {
    const fd = openSync(dir, 'r')
    try {
      fsyncSync(fd)
    } finally {
      closeSync(fd)
    }
  } catch {
    // ignore
  }
}

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
        if (err instanceof PayopsError) throw err
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
      if (err instanceof PayopsError) throw err
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
