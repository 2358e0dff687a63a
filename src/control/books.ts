/**
 * Reconciliation decisions in the control store (`reconcile resolve` records one; `reconcile`,
 * `report statement` and `watch` read those in force). Decisions kept in `books.sqlite` by an
 * earlier payops move into the store on first use, once: the table is then renamed
 * `decisions_moved` in that file (kept, never read again), and a decision already in the store is
 * not recorded twice, even when a move was cut short.
 *
 * A decision refuses when a team store cannot be reached (exit 7, naming it); reading goes on
 * without the team's decisions and says so, on one line.
 */
import type {CommandContext} from '../context/index.js'
import type {Database} from '../db/index.js'
import {BooksStore} from '../books/store.js'
import {StoreUnavailableError} from './errors.js'
import {openControlStore} from './index.js'
import type {ControlStore} from './types.js'
import type {Resolution} from './records-types.js'

const SAID = new WeakSet<object>()

/** Says once per command (one line on stderr) that the team store's records are not shown. */
export function sayTeamUnavailable(ctx: Pick<CommandContext, 'out'>, err: StoreUnavailableError): void {
  if (SAID.has(ctx.out)) return
  SAID.add(ctx.out)
  const where = /team store (\S+)/.exec(err.message)?.[1] ?? 'the team store'
  ctx.out.warn(`The team store ${where} cannot be reached: the team's decisions (reconciliation decisions, names) are not shown; this command only reads, and deciding refuses until the store answers.`)
}

/** Moves the decisions of this config dir's books.sqlite into the store, once. */
export async function moveLocalResolutions(configDir: string, store: ControlStore): Promise<void> {
  const books = BooksStore.open(configDir)
  try {
    const db = books.db
    if (!db.prepare("SELECT 1 AS x FROM sqlite_master WHERE type = 'table' AND name = 'decisions'").get()) return
    const rows = db.prepare('SELECT key, label, note, decided_at, profile FROM decisions ORDER BY decided_at').all<{key: string; label: string; note: string | null; decided_at: string; profile: string | null}>()
    if (rows.length) await store.records.moveResolutions(rows)
    db.exec('ALTER TABLE decisions RENAME TO decisions_moved')
  } finally {
    books.close()
  }
}

/** The control store, for a decision: an unreachable team store is exit 7 (nothing recorded). */
export async function openForDecision(ctx: CommandContext): Promise<ControlStore> {
  const store = await openControlStore(ctx)
  try {
    await moveLocalResolutions(ctx.configDir, store)
    return store
  } catch (err) {
    await store.close()
    throw err
  }
}

/** The decisions in force, for reading: without them (said once) when the team store cannot be reached. */
export async function resolutionsInForce(ctx: CommandContext): Promise<Resolution[]> {
  let store: ControlStore
  try {
    store = await openForDecision(ctx)
  } catch (err) {
    if (!(err instanceof StoreUnavailableError)) throw err
    sayTeamUnavailable(ctx, err)
    return []
  }
  try {
    return await store.records.resolutions()
  } catch (err) {
    if (!(err instanceof StoreUnavailableError)) throw err
    sayTeamUnavailable(ctx, err)
    return []
  } finally {
    await store.close()
  }
}

/** Puts decisions into the temporary table `temp.resolved` of a books connection (what a reconciliation joins). */
export function loadResolved(db: Database, all: readonly Resolution[]): void {
  db.exec('DROP TABLE IF EXISTS temp.resolved; CREATE TEMP TABLE resolved (key TEXT PRIMARY KEY, label TEXT NOT NULL, note TEXT, decided_at TEXT NOT NULL) WITHOUT ROWID')
  const put = db.prepare('INSERT INTO temp.resolved (key, label, note, decided_at) VALUES (?, ?, ?, ?)')
  db.transaction(() => {
    for (const r of all) put.run(r.key, r.label, r.note, r.decided_at)
  })
}
