/**
 * The local database: SQLite, for every piece of durable local state that is not the profile file
 * or the audit trail (the import journal, the emulator's --state, and the stores of later
 * features). One file per purpose, each with its own schema version and migrations, opened in WAL
 * mode, never through a symlink.
 *
 * The binding: Node's own `node:sqlite` where the running Node has it without a flag (22.13 and
 * later), and `@photostructure/sqlite` (an optional dependency: the same `DatabaseSync` API, its
 * compiled binaries shipped inside the npm package, so nothing is compiled at install) on Node 20,
 * which has no built-in SQLite. Both are synchronous, take the same SQL and answer the same way;
 * this module hides what differs, so the rest of payops sees one small interface. When Node 20 is
 * dropped, the optional dependency goes and nothing else changes.
 */
import {closeSync, existsSync, openSync} from 'node:fs'
import {isSymlink} from '../files.js'
import {createRequire} from 'node:module'
import {PayopsError, UsageError} from '../errors.js'

export type SqlValue = string | number | bigint | null | Uint8Array
export type SqlRow = Record<string, SqlValue>

export interface Statement {
  run(...params: SqlValue[]): {changes: number; lastInsertRowid: number | bigint}
  get<T = SqlRow>(...params: SqlValue[]): T | undefined
  all<T = SqlRow>(...params: SqlValue[]): T[]
  iterate<T = SqlRow>(...params: SqlValue[]): IterableIterator<T>
}

export interface Database {
  readonly path: string
  /** Which binding opened it. */
  readonly binding: 'node:sqlite' | '@photostructure/sqlite'
  exec(sql: string): void
  prepare(sql: string): Statement
  /** Runs `fn` in one transaction (BEGIN IMMEDIATE: the write lock is taken at once). */
  transaction<T>(fn: () => T): T
  close(): void
}

/** A purpose's schema: its name and the SQL of each version, in order (never edited once shipped). */
export interface Schema {
  purpose: string
  migrations: string[]
}

export interface OpenOptions {
  /** Create the file when it does not exist (default true). */
  create?: boolean
  /** PRAGMA synchronous: FULL (each commit on disk) or NORMAL (WAL: survives a killed process). */
  synchronous?: 'FULL' | 'NORMAL'
  /** Milliseconds to wait for another connection's write lock (default 5,000). */
  busyTimeoutMs?: number
  /** The file's mode when it is created (default 0o600: local state is nobody else's to read). */
  mode?: number
  /** Only read it (an existing file of this purpose, at its current version): nothing is written, no lock is taken. */
  readOnly?: boolean
}

/** KiB of page cache per database (SQLite's own default). */
const CACHE_KIB = 2000

/** A database whose schema this payops cannot read (newer, or another purpose's). */
export class DatabaseVersionError extends UsageError {}

type Driver = {binding: Database['binding']; open(path: string, readOnly?: boolean): Native}
interface NativeStatement {
  /** Read every integer as a BigInt. */
  setReadBigInts(on: boolean): void
  run(...p: SqlValue[]): {changes: number | bigint; lastInsertRowid: number | bigint}
  get(...p: SqlValue[]): unknown
  all(...p: SqlValue[]): unknown[]
  iterate(...p: SqlValue[]): IterableIterator<unknown>
}
interface Native {
  exec(sql: string): void
  prepare(sql: string): NativeStatement
  close(): void
}
type DatabaseSync = new (path: string, opts?: {readOnly?: boolean}) => Native

let driver: Driver | undefined

/** The binding for this Node, loaded once: both are node:sqlite's `DatabaseSync`. */
function loadDriver(): Driver {
  if (driver) return driver
  const builtin = loadBuiltin()
  if (builtin) {
    driver = {binding: 'node:sqlite', open: (path, readOnly) => new builtin.DatabaseSync(path, {readOnly: Boolean(readOnly)})}
    return driver
  }
  let Addon: DatabaseSync
  try {
    Addon = (createRequire(import.meta.url)('@photostructure/sqlite') as {DatabaseSync: DatabaseSync}).DatabaseSync
  } catch (err) {
    throw new PayopsError(
      `payops keeps its local state in SQLite and found no binding: this Node (${process.version}) has no built-in node:sqlite and the optional @photostructure/sqlite could not be loaded (${(err as Error).message.split('\n')[0]}). Use Node 22.13 or later, or reinstall payops on this Node (npm ci).`,
      1,
    )
  }
  driver = {binding: '@photostructure/sqlite', open: (path, readOnly) => new Addon(path, {readOnly: Boolean(readOnly)})}
  return driver
}

/** `node:sqlite` when this Node has it without a flag; its one-time ExperimentalWarning (Node 22) is not printed. */
function loadBuiltin(): {DatabaseSync: DatabaseSync} | undefined {
  const get = (process as {getBuiltinModule?: (id: string) => unknown}).getBuiltinModule
  if (!get) return undefined
  const emit = process.emitWarning
  process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
    const text = typeof warning === 'string' ? warning : warning?.message
    if (/SQLite is an experimental feature/.test(text ?? '')) return
    return (emit as (...a: unknown[]) => void).call(process, warning, ...rest)
  }) as typeof process.emitWarning
  try {
    return get('node:sqlite') as {DatabaseSync: DatabaseSync} | undefined
  } catch {
    return undefined
  } finally {
    process.emitWarning = emit
  }
}

/** A state file must be a regular file (or absent), never a symlink: the same for its WAL and journal files. */
export function refuseSymlinks(path: string, what = 'state file'): void {
  for (const p of [path, `${path}-wal`, `${path}-shm`, `${path}-journal`]) {
    if (isSymlink(p)) throw new UsageError(`${p} is a symbolic link; payops does not open a ${what} through one. Remove it or name another file.`)
  }
}

const SAFE = BigInt(Number.MAX_SAFE_INTEGER)

/** A row with its BigInt values made numbers where that is exact. */
function exact(row: unknown): unknown {
  if (!row || typeof row !== 'object') return row ?? undefined
  const out = row as Record<string, unknown>
  for (const k in out) {
    const v = out[k]
    if (typeof v === 'bigint' && v <= SAFE && v >= -SAFE) out[k] = Number(v)
  }
  return out
}

function wrap(native: Native, path: string, binding: Database['binding']): Database {
  const statements = new Map<string, Statement>()
  let depth = 0
  const db: Database = {
    path,
    binding,
    exec: (sql) => native.exec(sql),
    prepare(sql) {
      let s = statements.get(sql)
      if (s) return s
      const n = native.prepare(sql)
      // Integers are read exactly: a number when it is safe, else a BigInt (never the error that
      // node:sqlite throws for an integer past 2^53 when they are read as numbers).
      n.setReadBigInts(true)
      s = {
        run: (...p) => {
          const r = n.run(...p)
          return {changes: Number(r.changes), lastInsertRowid: r.lastInsertRowid}
        },
        get: <T>(...p: SqlValue[]) => exact(n.get(...p)) as T | undefined,
        all: <T>(...p: SqlValue[]) => n.all(...p).map(exact) as T[],
        iterate: <T>(...p: SqlValue[]) => (function* () {
          for (const row of n.iterate(...p)) yield exact(row) as T
        })(),
      }
      statements.set(sql, s)
      return s
    },
    transaction(fn) {
      if (depth > 0) return fn()
      native.exec('BEGIN IMMEDIATE')
      depth++
      try {
        const result = fn()
        native.exec('COMMIT')
        return result
      } catch (err) {
        try {
          native.exec('ROLLBACK')
        } catch {
          // The transaction is already gone (the error ended it).
        }
        throw err
      } finally {
        depth--
      }
    },
    close: () => native.close(),
  }
  return db
}

/**
 * Opens (or creates) the database of one purpose at `path` and brings its schema up to date. A
 * file of another purpose, or of a newer payops, is refused with one line; a symlink too.
 */
export function openDatabase(path: string, schema: Schema, opts: OpenOptions = {}): Database {
  refuseSymlinks(path)
  if (!existsSync(path)) {
    if (opts.create === false || opts.readOnly) throw new UsageError(`${path} does not exist.`)
    // Created here with its mode (exclusively: never a file planted meanwhile); an empty file is an empty database.
    try {
      closeSync(openSync(path, 'wx', opts.mode ?? 0o600))
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw new UsageError(`Cannot create ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}.`)
    }
  }
  const d = loadDriver()
  let native: Native
  try {
    native = d.open(path, opts.readOnly)
  } catch (err) {
    throw new UsageError(`Cannot open ${path}: ${(err as Error).message}.`)
  }
  const db = wrap(native, path, d.binding)
  try {
    db.exec(`PRAGMA busy_timeout = ${Math.max(0, Math.floor(opts.busyTimeoutMs ?? 5000))}`)
    // Read before anything is written: a file that is not this purpose's is refused untouched.
    const row = checkPurpose(db, schema)
    if (opts.readOnly) {
      if (Number(row?.version) !== schema.migrations.length) throw new DatabaseVersionError(`${path} is not at ${schema.purpose} schema ${schema.migrations.length}; open it once to bring it up to date.`)
      return db
    }
    db.exec('PRAGMA journal_mode = WAL')
    db.exec(`PRAGMA synchronous = ${opts.synchronous ?? 'FULL'}`)
    // The page cache of the file and of its temporary tables, SQLite's own default on every binding
    // (a binding may compile in another): large files are read a page at a time, and memory stays flat.
    db.exec(`PRAGMA cache_size = -${CACHE_KIB}; PRAGMA temp.cache_size = -${CACHE_KIB}`)
    db.exec('PRAGMA foreign_keys = ON')
    migrate(db, schema)
    return db
  } catch (err) {
    db.close()
    if (err instanceof PayopsError) throw err
    const message = (err as Error).message
    if (/not a database|file is encrypted|malformed/i.test(message)) throw new UsageError(`${path} is not a payops ${schema.purpose} database (${message}).`)
    throw err
  }
}

/** The schema row of a payops database; refuses another purpose's, a newer payops's, or a foreign SQLite file. */
function checkPurpose(db: Database, schema: Schema): {purpose: string; version: number} | undefined {
  const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all<{name: string}>().map((t) => t.name)
  const row = tables.includes('payops_schema') ? db.prepare('SELECT purpose, version FROM payops_schema').get<{purpose: string; version: number}>() : undefined
  if (!row && tables.some((t) => t !== 'payops_schema')) throw new DatabaseVersionError(`${db.path} is an SQLite database that payops did not create.`)
  if (row && row.purpose !== schema.purpose) throw new DatabaseVersionError(`${db.path} is a payops ${row.purpose} database, not a ${schema.purpose} one.`)
  if (row && Number(row.version) > schema.migrations.length) {
    throw new DatabaseVersionError(`${db.path} was written by a newer payops (${schema.purpose} schema ${row.version}; this one knows ${schema.migrations.length}). Upgrade payops.`)
  }
  return row
}

/** Applies the migrations this file has not seen, in one transaction. */
function migrate(db: Database, schema: Schema): void {
  db.transaction(() => {
    db.exec('CREATE TABLE IF NOT EXISTS payops_schema (purpose TEXT NOT NULL, version INTEGER NOT NULL)')
    // Again inside the transaction: another process may have created it meanwhile.
    const row = checkPurpose(db, schema)
    const have = row ? Number(row.version) : 0
    for (let v = have; v < schema.migrations.length; v++) db.exec(schema.migrations[v])
    if (!row) db.prepare('INSERT INTO payops_schema (purpose, version) VALUES (?, ?)').run(schema.purpose, schema.migrations.length)
    else if (have !== schema.migrations.length) db.prepare('UPDATE payops_schema SET version = ?').run(schema.migrations.length)
  })
}
