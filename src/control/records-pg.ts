/**
 * The operator's records in a team store: every one appended through the store's SECURITY DEFINER
 * functions (src/control/migration-records.ts), stamped with the role that logged in. The decision
 * in force on a key is the latest decided; a name is the latest recorded for its id; an alert is
 * active while its latest event is `fired`. Alert state is the team's: one per rule definition and
 * condition, whoever watches it (`scope`, a machine's profile, does not divide it).
 */
import type {AlertRow, NameEntry, OperatorRecords, Resolution, ResolutionInput} from './records-types.js'

type Query = <R extends Record<string, unknown> = Record<string, unknown>>(sql: string, params?: unknown[]) => Promise<R[]>

const iso = (v: unknown) => (v instanceof Date ? v.toISOString() : String(v))

const resolutionOf = (r: Record<string, unknown>): Resolution => ({
  key: String(r.key), label: String(r.label), note: (r.note as string | null) ?? null, decided_at: iso(r.decided_at),
  profile: (r.profile as string | null) ?? null, decided_by: String(r.actor),
})

export class PgRecords implements OperatorRecords {
  constructor(
    private readonly q: Query,
    private readonly entity: string,
  ) {}

  async resolutions(): Promise<Resolution[]> {
    const rows = await this.q('SELECT DISTINCT ON (key) * FROM payops.resolutions WHERE entity = $1 ORDER BY key, decided_at DESC, seq DESC', [this.entity])
    return rows.map(resolutionOf)
  }

  async resolution(key: string): Promise<Resolution | undefined> {
    const [r] = await this.q('SELECT * FROM payops.resolutions WHERE entity = $1 AND key = $2 ORDER BY decided_at DESC, seq DESC LIMIT 1', [this.entity, key])
    return r ? resolutionOf(r) : undefined
  }

  async resolve(r: ResolutionInput): Promise<Resolution> {
    const [row] = await this.q('SELECT * FROM payops.resolve_item($1, $2, $3, $4, $5, $6, false)', [this.entity, r.key, r.label, r.note, r.decided_at, r.profile])
    return resolutionOf(row)
  }

  async moveResolutions(rs: readonly ResolutionInput[]): Promise<number> {
    let n = 0
    for (const r of rs) {
      const [row] = await this.q<{moved_now: boolean}>('SELECT (x).actor = session_user AND (x).at = now() AS moved_now FROM (SELECT payops.resolve_item($1, $2, $3, $4, $5, $6, true) AS x) t', [this.entity, r.key, r.label, r.note, r.decided_at, r.profile])
      if (row?.moved_now) n++
    }
    return n
  }

  async names(after = 0): Promise<{entries: NameEntry[]; last: number}> {
    const rows = await this.q<{id: string; name: string; kind: string | null; seq: string}>('SELECT id, name, kind, seq FROM payops.names WHERE entity = $1 AND seq > $2 ORDER BY seq', [this.entity, after])
    return {entries: rows.map(({id, name, kind}) => ({id, name, kind: kind ?? null})), last: rows.length ? Number(rows.at(-1)!.seq) : after}
  }

  async rememberNames(entries: readonly NameEntry[]): Promise<void> {
    for (let i = 0; i < entries.length; i += 5000) {
      const page = entries.slice(i, i + 5000).map((e, n) => ({id: e.id, name: e.name, kind: e.kind, n}))
      await this.q('SELECT payops.remember_names($1, $2)', [this.entity, JSON.stringify(page)])
    }
  }

  async alertCycle(_scope: string, rule: string, def: string, crossed: readonly string[]): Promise<string[]> {
    const rows = await this.q<{k: string}>('SELECT k FROM payops.watch_cycle($1, $2, $3, $4::text[]) AS k', [this.entity, rule, def, [...crossed]])
    const fired = new Set(rows.map((r) => r.k))
    return [...new Set(crossed)].filter((k) => fired.has(k))
  }

  async forgetAlerts(): Promise<void> {
    // The team's alert state is kept per rule definition: a rule changed is another definition, and
    // other members may watch the rules this profile no longer does.
  }

  async moveAlerts(rows: readonly AlertRow[]): Promise<number> {
    const active = rows.filter((r) => r.active).map((r) => ({def: r.def, key: r.key, rule: r.rule}))
    if (!active.length) return 0
    const [r] = await this.q<{n: number}>('SELECT payops.move_alerts($1, $2) AS n', [this.entity, JSON.stringify(active)])
    return Number(r?.n ?? 0)
  }
}
