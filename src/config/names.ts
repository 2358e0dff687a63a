/**
 * The book of names: subaccount names and treasury labels payops has seen, so tables and the
 * approval queue can show `Payroll (ef63a1b2…)` instead of a bare id without asking the service
 * again. Only names, ids and what kind of account each id is (so that shell completion offers
 * subaccounts where a subaccount is asked for); never a key.
 *
 * It lives in the control store (src/control/names.ts): controls.sqlite in the config dir, and,
 * with a team store, the team's book, of which controls.sqlite keeps this machine's copy. A name
 * one member's payops learns is known to every member's from their next command that reaches the
 * API. names.json, where earlier versions kept it, moves in once on first use.
 *
 * Names come from the service and are kept exactly as data (a name may hold anything). The book is
 * shared by every profile of the config dir (and by a team), so a name is never trusted for
 * display: every path that shows one (table cells, the LIVE summary, outcome sentences, the
 * approval checkbox) goes through the one rule of src/output/safe.ts and shows its control and
 * format characters escaped.
 */
import type {CommandContext} from '../context/index.js'
import {withLocalNames} from '../control/names-local.js'
import type {NameEntry} from '../control/records-types.js'
import type {NameKind} from './name-kind.js'

export {NAMES_FILE} from '../control/names-local.js'
const MAX_NAMES = 50_000

/** What an id in the book names. */
export type {NameKind}
const KINDS: readonly string[] = ['subaccount', 'treasury-account'] satisfies NameKind[]

/** One entry: the name and, where known, the kind. */
interface Entry {
  name: string
  kind?: NameKind
}

const entryOf = (e: NameEntry): Entry => (e.kind && KINDS.includes(e.kind) ? {name: e.name, kind: e.kind as NameKind} : {name: e.name})

export class NameBook {
  /** The name of an id, if payops has seen it. */
  private names?: Map<string, Entry>
  /** What this command learnt, to be written by save(). */
  private readonly learnt = new Map<string, Entry>()
  private team?: Promise<{close(): Promise<void>} | undefined>

  constructor(private readonly dir: string) {}

  private load(): Map<string, Entry> {
    if (this.names) return this.names
    this.names = new Map()
    try {
      for (const e of withLocalNames(this.dir, (b) => b.namesNow().entries, {create: false}) ?? []) this.names.set(e.id, entryOf(e))
    } catch {
      // A damaged book is only a cache: start afresh.
    }
    // What this command learnt before the book was read is the newest (a kind known is kept).
    for (const [id, e] of this.learnt) {
      const kind = e.kind ?? this.names.get(id)?.kind
      this.names.delete(id)
      this.names.set(id, kind ? {name: e.name, kind} : {name: e.name})
    }
    return this.names
  }

  get(id: string): string | undefined {
    return this.load().get(id)?.name
  }

  /** Every id of that kind in the book, newest first, with its name. */
  ofKind(kind: NameKind): Array<{id: string; name: string}> {
    const out: Array<{id: string; name: string}> = []
    for (const [id, e] of this.load()) if (e.kind === kind) out.push({id, name: e.name})
    return out.reverse()
  }

  /** Remembers a name (and the kind of account the id is, when the caller knows it). */
  remember(id: string | null | undefined, name: string | null | undefined, kind?: NameKind): void {
    if (!id || !name) return
    // The book unread (a command that shows no names): noted only; save() writes what changed.
    if (!this.names) {
      const k = kind ?? this.learnt.get(id)?.kind
      this.learnt.delete(id)
      this.learnt.set(id, k ? {name, kind: k} : {name})
      return
    }
    const names = this.names
    const known = names.get(id)
    // A kind once learnt is kept when a later caller does not know it.
    const k = kind ?? known?.kind
    const entry: Entry = k ? {name, kind: k} : {name}
    if (known && known.name === entry.name && known.kind === entry.kind) return
    names.delete(id)
    names.set(id, entry)
    this.learnt.delete(id)
    this.learnt.set(id, entry)
  }

  /** Takes in names the team learnt (they are this machine's copy already). */
  private merge(entries: readonly NameEntry[]): void {
    const names = this.load()
    for (const e of entries) {
      names.delete(e.id)
      names.set(e.id, entryOf(e))
    }
  }

  /** Writes what this command learnt into this machine's book; how many names it changed there. */
  save(): number {
    if (!this.learnt.size) return 0
    const entries = [...this.learnt].map(([id, e]) => ({id, name: e.name, kind: e.kind ?? null}))
    const changed = withLocalNames(this.dir, (b) => {
      const n = b.rememberNow(entries)
      if (n) b.pruneNames(MAX_NAMES)
      return n
    })
    this.learnt.clear()
    return changed ?? 0
  }

  /** With a team store: gives and takes names once per command (the first API call of a command that shows names awaits it). */
  joinTeam(ctx: CommandContext, quiet = false): Promise<unknown> {
    // The team's part (and the control store's code) loads only with a team store bound (as
    // teamBinding in src/control/index.ts reads it: the environment, then the profile).
    const bound = ctx.io.env.PAYOPS_TEAM_DATABASE_URL?.trim() || ctx.profile.profile?.team_database_url
    if (!bound) return (this.team ??= Promise.resolve(undefined))
    return (this.team ??= import('../control/names.js').then(({TeamNames}) => TeamNames.open(ctx, (entries) => this.merge(entries), quiet)))
  }

  /**
   * At the command's end: this command's names into this machine's book, then, with a team store,
   * to the team's (a command that learnt nothing new, and showed no names, never reaches it).
   */
  async close(ctx: CommandContext): Promise<void> {
    let learnt = false
    try {
      learnt = this.save() > 0
    } catch {
      // The book of names is a cache: failing to keep it loses nothing.
    }
    if (learnt) void this.joinTeam(ctx, true)
    await (await this.team)?.close().catch(() => undefined)
  }
}

/** One id of the book, as {@link readRecentNames} gives it. */
export interface NamedId {
  id: string
  name: string
  kind?: NameKind
}

/**
 * The newest entries of the book, oldest first, read without loading the whole book: what shell
 * completion shows on every TAB, where a full book (50,000 names) would cost more than the whole
 * answer may take. Never reaches the network (a team's names are those of this machine's copy).
 */
export function readRecentNames(dir: string, limit = 5000): NamedId[] {
  try {
    const entries = withLocalNames(dir, (b) => b.recentNames(limit), {create: false}) ?? []
    return entries.map((e) => (e.kind && KINDS.includes(e.kind) ? {id: e.id, name: e.name, kind: e.kind as NameKind} : {id: e.id, name: e.name}))
  } catch {
    return []
  }
}

/**
 * The entries of these ids that the book holds, looked up one by one (what completion labels
 * pending moves with: a few ids, whatever their age in the book). Never reaches the network.
 */
export function readNamesOf(dir: string, ids: readonly string[]): Map<string, NamedId> {
  try {
    const entries = withLocalNames(dir, (b) => b.namesOf([...new Set(ids)]), {create: false}) ?? []
    return new Map(entries.map((e) => [e.id, e.kind && KINDS.includes(e.kind) ? {id: e.id, name: e.name, kind: e.kind as NameKind} : {id: e.id, name: e.name}]))
  } catch {
    return new Map()
  }
}

/** Passes items through, remembering each one's name on the way (lists stream as before). */
export async function* remembering<T>(items: AsyncIterable<T>, names: {remember(id: string, name: string, kind?: NameKind): void}, pick: (item: T) => [string, string], kind?: NameKind): AsyncIterable<T> {
  for await (const item of items) {
    names.remember(...pick(item), kind)
    yield item
  }
}
