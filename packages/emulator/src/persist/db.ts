/**
 * The SQLite binding of the state file, small and the emulator's own: Node's `node:sqlite` where
 * the running Node has it without a flag (22.13 and later), else `@photostructure/sqlite` (Node 20: the same API, its binaries inside its npm package, a
 * dependency of the package). One file of one purpose, opened in WAL mode, never through a symlink, its
 * schema version kept in a `payops_schema` table (the layout state files have always had).
 */
import {closeSync, existsSync, lstatSync, openSync} from 'node:fs'
import {createRequire} from 'node:module'
import {EmulatorError, UsageError} from '../lib/errors.js'

export type SqlValue = string | number | bigint | null | Uint8Array

export interface Statement {
  run(...params: SqlValue[]): unknown
  get<T>(...params: SqlValue[]): T | undefined
  iterate<T>(...params: SqlValue[]): IterableIterator<T>
}

export interface Database {
  readonly path: string
  exec(sql: string): void
  prepare(sql: string): Statement
  /** Runs `fn` in one transaction (BEGIN IMMEDIATE). */
  transaction<T>(fn: () => T): T
  close(): void
}

/** A purpose's schema: its name and the SQL of each version, in order. */
export interface Schema {
  purpose: string
  migrations: string[]
}

interface NativeStatement {
  setReadBigInts?(on: boolean): void
  safeIntegers?(on: boolean): void
  run(...p: SqlValue[]): unknown
  get(...p: SqlValue[]): unknown
  iterate(...p: SqlValue[]): IterableIterator<unknown>
}
interface Native {
  exec(sql: string): void
  prepare(sql: string): NativeStatement
  close(): void
}
type Open = (path: string) => Native

let opener: Open | undefined

/** `node:sqlite` when this Node has it (its ExperimentalWarning on Node 22 is not printed), else @photostructure/sqlite (the same API). */
function loadOpener(): Open {
  if (opener) return opener
  const get = (process as {getBuiltinModule?: (id: string) => unknown}).getBuiltinModule
  const emit = process.emitWarning
  process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
    if (/SQLite is an experimental feature/.test(typeof warning === 'string' ? warning : warning?.message)) return
    return (emit as (...a: unknown[]) => void).call(process, warning, ...rest)
  }) as typeof process.emitWarning
  let builtin: {DatabaseSync: new (path: string) => Native} | undefined
  try {
    builtin = get?.('node:sqlite') as typeof builtin
  } catch {
    builtin = undefined
  } finally {
    process.emitWarning = emit
  }
  if (builtin) return (opener = (path) => new builtin.DatabaseSync(path))
  // Node 20: the same DatabaseSync API from @photostructure/sqlite, whose binaries ship inside its npm package.
  let Addon: new (path: string) => Native
  try {
    Addon = (createRequire(import.meta.url)('@photostructure/sqlite') as {DatabaseSync: new (path: string) => Native}).DatabaseSync
  } catch (err) {
    throw new EmulatorError(
      `The emulator keeps --state in SQLite and found no binding: this Node (${process.version}) has no built-in node:sqlite and @photostructure/sqlite could not be loaded (${(err as Error).message.split('\n')[0]}). Use Node 22.13 or later, or reinstall its dependencies on this Node.`,
      1,
    )
  }
  return (opener = (path) => new Addon(path))
}

const isSymlink = (path: string) => {
  try {
    return lstatSync(path).isSymbolicLink()
  } catch {
    return false
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

function wrap(native: Native, path: string): Database {
  const statements = new Map<string, Statement>()
  return {
    path,
    exec: (sql) => native.exec(sql),
    prepare(sql) {
      let s = statements.get(sql)
      if (s) return s
      const n = native.prepare(sql)
      if (n.setReadBigInts) n.setReadBigInts(true)
      else n.safeIntegers?.(true)
      s = {
        run: (...p) => n.run(...p),
        get: <T>(...p: SqlValue[]) => exact(n.get(...p)) as T | undefined,
        iterate: <T>(...p: SqlValue[]) => (function* () {
          for (const row of n.iterate(...p)) yield exact(row) as T
        })(),
      }
      statements.set(sql, s)
      return s
    },
    transaction(fn) {
      native.exec('BEGIN IMMEDIATE')
      try {
        const result = fn()
        native.exec('COMMIT')
        return result
      } catch (err) {
        try {
          native.exec('ROLLBACK')
        } catch {
          // the error ended the transaction already
        }
        throw err
      }
    },
    close: () => native.close(),
  }
}

export interface OpenOptions {
  /** Create the file when it does not exist (default true), with mode 0600. */
  create?: boolean
  synchronous?: 'FULL' | 'NORMAL'
  busyTimeoutMs?: number
}

/** Opens (or creates) the database of one purpose and brings its schema up to date; another purpose's file is refused. */
export function openDatabase(path: string, schema: Schema, opts: OpenOptions = {}): Database {
  refuseSymlinks(path)
  if (!existsSync(path)) {
    if (opts.create === false) throw new UsageError(`${path} does not exist.`)
    try {
      closeSync(openSync(path, 'wx', 0o600))
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw new UsageError(`Cannot create ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}.`)
    }
  }
  const open = loadOpener()
  let db: Database
  try {
    db = wrap(open(path), path)
  } catch (err) {
    throw new UsageError(`Cannot open ${path}: ${(err as Error).message}.`)
  }
  try {
    db.exec(`PRAGMA busy_timeout = ${Math.max(0, Math.floor(opts.busyTimeoutMs ?? 5000))}`)
    checkPurpose(db, schema)
    db.exec('PRAGMA journal_mode = WAL')
    db.exec(`PRAGMA synchronous = ${opts.synchronous ?? 'FULL'}`)
    db.exec('PRAGMA cache_size = -2000; PRAGMA temp.cache_size = -2000')
    migrate(db, schema)
    return db
  } catch (err) {
    db.close()
    if (err instanceof EmulatorError) throw err
    const message = (err as Error).message
    if (/not a database|file is encrypted|malformed/i.test(message)) throw new UsageError(`${path} is not a payops ${schema.purpose} database (${message}).`)
    throw err
  }
}

/** The schema row; refuses another purpose's file, a newer one, or a foreign SQLite file. */
function checkPurpose(db: Database, schema: Schema): {purpose: string; version: number} | undefined {
  const tables = [...db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").iterate<{name: string}>()].map((t) => t.name)
  const row = tables.includes('payops_schema') ? db.prepare('SELECT purpose, version FROM payops_schema').get<{purpose: string; version: number}>() : undefined
  if (!row && tables.some((t) => t !== 'payops_schema')) throw new UsageError(`${db.path} is an SQLite database that payops did not create.`)
  if (row && row.purpose !== schema.purpose) throw new UsageError(`${db.path} is a payops ${row.purpose} database, not a ${schema.purpose} one.`)
  if (row && Number(row.version) > schema.migrations.length) {
    throw new UsageError(`${db.path} was written by a newer payops (${schema.purpose} schema ${row.version}; this one knows ${schema.migrations.length}). Upgrade payops.`)
  }
  return row
}

/** Applies the migrations this file has not seen, in one transaction. */
function migrate(db: Database, schema: Schema): void {
  db.transaction(() => {
    db.exec('CREATE TABLE IF NOT EXISTS payops_schema (purpose TEXT NOT NULL, version INTEGER NOT NULL)')
    const row = checkPurpose(db, schema)
    const have = row ? Number(row.version) : 0
    for (let v = have; v < schema.migrations.length; v++) db.exec(schema.migrations[v])
    if (!row) db.prepare('INSERT INTO payops_schema (purpose, version) VALUES (?, ?)').run(schema.purpose, schema.migrations.length)
    else if (have !== schema.migrations.length) db.prepare('UPDATE payops_schema SET version = ?').run(schema.migrations.length)
  })
}
