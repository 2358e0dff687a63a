/**
 * Loading a state file into a store: opened with an exclusive lock, its records streamed row by
 * row. A file that is not a payops emulator state is refused with one line and left as it is.
 */
import {EmulatorError, UsageError} from '../lib/errors.js'
import {oneLine} from '../lib/text.js'
import {ENTITY_ROLES, Store, type ApiKeyRecord, type SavedEntity, type SavedRecord, type StoreMeta} from '../store/index.js'
import {openDatabase, type Database} from './db.js'
import {convertHint, inspect, invalid} from './files.js'
import {loadJsonState} from './json-state.js'
import {STATE_SCHEMA} from './write.js'

/** Opens an existing state file (for loading, or to write through), with a one-line error. */
export function openState(path: string): Database {
  let db: Database
  try {
    db = openDatabase(path, STATE_SCHEMA, {create: false, synchronous: 'NORMAL', busyTimeoutMs: 2000})
  } catch (err) {
    if (err instanceof EmulatorError) throw err
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
    if (err instanceof EmulatorError) throw err
    throw invalid(path, (err as Error).message)
  } finally {
    db.close()
  }
}
