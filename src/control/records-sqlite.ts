/**
 * The operator's records in the one-machine store (controls.sqlite): reconciliation decisions,
 * the book of names and `watch`'s alert state, stamped with the local operator. The names are
 * also read and written synchronously (the book is consulted while a table is drawn), and serve as
 * this machine's copy of a team store's book (what shell completion reads, without the network).
 */
import type {Database} from '../db/index.js'
import type {AlertRow, NameEntry, OperatorRecords, Resolution, ResolutionInput} from './records-types.js'

const IN_FORCE = `SELECT r.* FROM resolutions r WHERE r.seq = (SELECT q.seq FROM resolutions q WHERE q.key = r.key ORDER BY q.decided_at DESC, q.seq DESC LIMIT 1)`

const resolutionOf = (r: Record<string, unknown>): Resolution => ({
  key: String(r.key), label: String(r.label), note: (r.note as string | null) ?? null, decided_at: String(r.decided_at),
  profile: (r.profile as string | null) ?? null, decided_by: String(r.actor),
})

export class SqliteRecords implements OperatorRecords {
  constructor(
    private readonly db: Database,
    private readonly actor: string,
    private readonly now: () => string,
  ) {}

  async resolutions(): Promise<Resolution[]> {
    return this.db.prepare(`${IN_FORCE} ORDER BY r.key`).all<Record<string, unknown>>().map(resolutionOf)
  }

  async resolution(key: string): Promise<Resolution | undefined> {
    const r = this.db.prepare('SELECT * FROM resolutions WHERE key = ? ORDER BY decided_at DESC, seq DESC LIMIT 1').get<Record<string, unknown>>(key)
    return r ? resolutionOf(r) : undefined
  }

  async resolve(r: ResolutionInput): Promise<Resolution> {
    const row = this.db
      .prepare('INSERT INTO resolutions (key, label, note, decided_at, profile, moved, at, actor) VALUES (?, ?, ?, ?, ?, 0, ?, ?) RETURNING *')
      .get<Record<string, unknown>>(r.key, r.label, r.note, r.decided_at, r.profile, this.now(), this.actor)!
    return resolutionOf(row)
  }

  async moveResolutions(rs: readonly ResolutionInput[]): Promise<number> {
    const known = this.db.prepare('SELECT 1 AS x FROM resolutions WHERE key = ? AND label = ? AND note IS ? AND decided_at = ?')
    const insert = this.db.prepare('INSERT INTO resolutions (key, label, note, decided_at, profile, moved, at, actor) VALUES (?, ?, ?, ?, ?, 1, ?, ?)')
    return this.db.transaction(() => {
      let n = 0
      for (const r of rs) {
        if (known.get(r.key, r.label, r.note, r.decided_at)) continue
        insert.run(r.key, r.label, r.note, r.decided_at, r.profile, this.now(), this.actor)
        n++
      }
      return n
    })
  }

  /** The names after position `after`, oldest first (synchronous). */
  namesNow(after = 0, limit = -1): {entries: NameEntry[]; last: number} {
    const rows = this.db.prepare('SELECT id, name, kind, seq FROM names WHERE seq > ? ORDER BY seq LIMIT ?').all<NameEntry & {seq: number}>(after, limit)
    return {entries: rows.map(({id, name, kind}) => ({id, name, kind: kind ?? null})), last: rows.length ? Number(rows.at(-1)!.seq) : after}
  }

  /** The position of the newest name. */
  lastNameSeq(): number {
    return Number(this.db.prepare('SELECT coalesce(max(seq), 0) AS n FROM names').get<{n: number}>()!.n)
  }

  /** Keeps the newest `max` names, forgetting the oldest. */
  pruneNames(max: number): void {
    this.db.prepare('DELETE FROM names WHERE seq <= (SELECT seq FROM names ORDER BY seq DESC LIMIT 1 OFFSET ?)').run(max)
  }

  /** The entries of these ids that the book holds (what shell completion labels pending moves with). */
  namesOf(ids: readonly string[]): NameEntry[] {
    if (!ids.length) return []
    const rows = this.db.prepare('SELECT id, name, kind FROM names WHERE id IN (SELECT value FROM json_each(?))').all<NameEntry>(JSON.stringify(ids))
    return rows.map(({id, name, kind}) => ({id, name, kind: kind ?? null}))
  }

  /** The newest `limit` names, oldest first (what shell completion reads). */
  recentNames(limit: number): NameEntry[] {
    const rows = this.db.prepare('SELECT id, name, kind FROM names ORDER BY seq DESC LIMIT ?').all<NameEntry>(limit)
    return rows.reverse().map(({id, name, kind}) => ({id, name, kind: kind ?? null}))
  }

  /** Records names that changed, each as the newest (synchronous); a kind known is kept when an entry has none. */
  rememberNow(entries: readonly NameEntry[]): number {
    if (!entries.length) return 0
    const same = this.db.prepare('SELECT 1 AS x FROM names WHERE id = ? AND name = ? AND (? IS NULL OR kind IS ?)')
    const changed = entries.filter((e) => !same.get(e.id, e.name, e.kind, e.kind))
    // Nothing changed: no write transaction (a read that learnt names the book holds writes nothing).
    if (!changed.length) return 0
    const put = this.db.prepare(
      'INSERT INTO names (id, name, kind, seq) VALUES (?, ?, ?, (SELECT coalesce(max(seq), 0) + 1 FROM names)) ON CONFLICT (id) DO UPDATE SET name = excluded.name, kind = coalesce(excluded.kind, names.kind), seq = excluded.seq',
    )
    this.db.transaction(() => {
      for (const e of changed) if (!same.get(e.id, e.name, e.kind, e.kind)) put.run(e.id, e.name, e.kind)
    })
    return changed.length
  }

  /** Where this machine's copy of a team store's book stands: the team's position read, this book's position given. */
  sharedWith(store: string): {pulled: number; pushed: number} {
    return this.db.prepare('SELECT pulled, pushed FROM names_shared WHERE store = ?').get<{pulled: number; pushed: number}>(store) ?? {pulled: 0, pushed: 0}
  }

  setSharedWith(store: string, at: {pulled: number; pushed: number}): void {
    this.db.prepare('INSERT INTO names_shared (store, pulled, pushed) VALUES (?, ?, ?) ON CONFLICT (store) DO UPDATE SET pulled = excluded.pulled, pushed = excluded.pushed').run(store, at.pulled, at.pushed)
  }

  async names(after = 0): Promise<{entries: NameEntry[]; last: number}> {
    return this.namesNow(after)
  }

  async rememberNames(entries: readonly NameEntry[]): Promise<void> {
    this.rememberNow(entries)
  }

  async alertCycle(scope: string, rule: string, def: string, crossed: readonly string[], at: string): Promise<string[]> {
    return this.db.transaction(() => {
      const active = new Set(this.db.prepare('SELECT key FROM alerts WHERE scope = ? AND rule = ? AND active = 1').all<{key: string}>(scope, rule).map((r) => r.key))
      const fire = [...new Set(crossed)].filter((k) => !active.has(k))
      const now = new Set(crossed)
      for (const key of active) if (!now.has(key)) this.db.prepare('UPDATE alerts SET active = 0, cleared_at = ? WHERE scope = ? AND key = ?').run(at, scope, key)
      const put = this.db.prepare(
        'INSERT INTO alerts (scope, key, rule, def, active, fired_at, fired) VALUES (?, ?, ?, ?, 1, ?, 1) ON CONFLICT (scope, key) DO UPDATE SET def = excluded.def, active = 1, fired_at = excluded.fired_at, cleared_at = NULL, fired = fired + 1',
      )
      for (const key of fire) put.run(scope, key, rule, def, at)
      return fire
    })
  }

  async forgetAlerts(scope: string, defs: readonly string[]): Promise<void> {
    const keep = new Set(defs)
    for (const {def} of this.db.prepare('SELECT DISTINCT def FROM alerts WHERE scope = ?').all<{def: string}>(scope)) {
      if (!keep.has(def)) this.db.prepare('DELETE FROM alerts WHERE scope = ? AND def = ?').run(scope, def)
    }
  }

  async moveAlerts(rows: readonly AlertRow[]): Promise<number> {
    const put = this.db.prepare('INSERT INTO alerts (scope, key, rule, def, active, fired_at, cleared_at, fired) VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (scope, key) DO NOTHING')
    return this.db.transaction(() => rows.reduce((n, r) => n + put.run(r.scope, r.key, r.rule, r.def, r.active, r.fired_at, r.cleared_at, r.fired).changes, 0))
  }
}
