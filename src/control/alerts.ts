/**
 * `watch`'s alert state in the control store: an alert fires when its condition is crossed and
 * re-arms when it clears, decided and recorded in one transaction of the store. With a team store
 * the state is the team's, so two members' watches never both fire the same alert, and an alert
 * one clears is cleared for both. State kept in `watch.sqlite` by an earlier payops moves into the
 * store on first use, once; the file is then renamed `watch.sqlite.moved` (kept, never read again).
 */
import {existsSync, renameSync} from 'node:fs'
import {join} from 'node:path'
import type {CommandContext} from '../context/index.js'
import {openDatabase} from '../db/index.js'
import {openControlStore} from './index.js'
import type {AlertRow} from './records-types.js'
import type {ControlStore} from './types.js'
import {MOVED_SUFFIX, putAside} from './aside.js'

export {MOVED_SUFFIX, putAside}

export const WATCH_FILE = 'watch.sqlite'

/** The schema of watch.sqlite, as earlier versions wrote it (read once, to move it). */
const WATCH_SCHEMA = {
  purpose: 'watch',
  migrations: [
    `CREATE TABLE alert (scope TEXT NOT NULL, key TEXT NOT NULL, rule TEXT NOT NULL, def TEXT NOT NULL, active INTEGER NOT NULL, fired_at TEXT NOT NULL,
       cleared_at TEXT, fired INTEGER NOT NULL, PRIMARY KEY (scope, key)) WITHOUT ROWID;`,
  ],
}

/** Moves this config dir's watch.sqlite into the store, once. */
export async function moveLocalAlerts(configDir: string, store: ControlStore): Promise<void> {
  const file = join(configDir, WATCH_FILE)
  if (!existsSync(file)) return
  const db = openDatabase(file, WATCH_SCHEMA, {synchronous: 'FULL'})
  let rows: AlertRow[]
  try {
    rows = db.prepare('SELECT scope, key, rule, def, active, fired_at, cleared_at, fired FROM alert').all<AlertRow>()
  } finally {
    db.close()
  }
  if (rows.length) await store.records.moveAlerts(rows)
  putAside(file)
}

/** The store `watch` keeps its alert state in (an unreachable team store is exit 7, naming it). */
export async function openAlertStore(ctx: CommandContext): Promise<ControlStore> {
  const store = await openControlStore(ctx)
  try {
    await moveLocalAlerts(ctx.configDir, store)
    return store
  } catch (err) {
    await store.close()
    throw err
  }
}
