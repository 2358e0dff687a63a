/**
 * Writing a state file: its schema, the statements that keep it, the whole store written into an
 * empty one, and a new file made complete under a temporary name (created exclusively, mode 0600)
 * before it is renamed into place, so that a state file is never half-made.
 */
import {randomBytes} from 'node:crypto'
import {closeSync, fsyncSync, openSync, renameSync, unlinkSync} from 'node:fs'
import {basename, dirname, join} from 'node:path'
import type {Store} from '../store/index.js'
import {openDatabase, type Database, type Schema, type Statement} from './db.js'

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
export interface Statements {
  putRecord: Statement
  insertRecord: Statement
  deleteRecord: Statement
  putStore: Statement
}

export function statements(db: Database): Statements {
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
export function writeStoreRows(st: Statements, store: Store): void {
  for (const e of store.entities.values()) st.putStore.run('entity', e.id, JSON.stringify(store.savedEntity(e)))
  for (const k of store.apiKeys.values()) st.putStore.run('api_key', k.key, JSON.stringify(k))
  st.putStore.run('meta', '', JSON.stringify(store.meta()))
}

/** Writes the whole store into an empty state (inside the caller's transaction). */
export function writeAll(db: Database, store: Store): void {
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
export function writeNewFile(path: string, store: Store): void {
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
