/**
 * A local book of names: subaccount names and treasury labels payops has seen, kept in the config
 * dir (names.json, 0600), so tables and the approval queue can show `Payroll (ef63a1b2…)` instead
 * of a bare id without asking the service again. Only names, ids and what kind of account each id
 * is (so that shell completion offers subaccounts where a subaccount is asked for); never a key.
 *
 * names.json maps an id to its name (a string, as older versions wrote it, kind unknown) or to
 * `[name, kind]`.
 *
 * Names come from the service and are kept exactly as data (a name may hold anything). The book is
 * shared by every profile of the config dir, so a name is never trusted for display: every path that
 * shows one (table cells, the LIVE summary, outcome sentences, the approval checkbox) goes through
 * the one rule of src/output/safe.ts and shows its control and format characters escaped.
 */
import {randomBytes} from 'node:crypto'
import {closeSync, constants, existsSync, mkdirSync, openSync, readFileSync, renameSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {readTail} from '../files.js'

export const NAMES_FILE = 'names.json'
const MAX_NAMES = 50_000

/** What an id in the book names. */
export type NameKind = 'subaccount' | 'treasury-account'
const KINDS: readonly string[] = ['subaccount', 'treasury-account'] satisfies NameKind[]

/** One entry: the name and, where known, the kind. */
interface Entry {
  name: string
  kind?: NameKind
}

export class NameBook {
  /** The name of an id, if payops has seen it. */
  private names?: Map<string, Entry>
  private dirty = false

  constructor(private readonly dir: string) {}

  private load(): Map<string, Entry> {
    if (this.names) return this.names
    this.names = new Map()
    const file = join(this.dir, NAMES_FILE)
    try {
      if (existsSync(file)) {
        // Never through a symbolic link (ELOOP: the book starts afresh, and its save replaces the link).
        const fd = openSync(file, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0))
        let text: string
        try {
          text = readFileSync(fd, 'utf8')
        } finally {
          closeSync(fd)
        }
        const data = JSON.parse(text) as Record<string, unknown>
        for (const [id, value] of Object.entries(data)) {
          if (typeof value === 'string') this.names.set(id, {name: value})
          else if (Array.isArray(value) && typeof value[0] === 'string') this.names.set(id, KINDS.includes(value[1]) ? {name: value[0], kind: value[1] as NameKind} : {name: value[0]})
        }
      }
    } catch {
      // A damaged book is only a cache: start afresh.
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
    const names = this.load()
    const known = names.get(id)
    // A kind once learnt is kept when a later caller does not know it.
    const entry: Entry = {name, kind: kind ?? known?.kind}
    if (known && known.name === entry.name && known.kind === entry.kind) return
    names.delete(id)
    names.set(id, entry.kind ? entry : {name})
    while (names.size > MAX_NAMES) names.delete(names.keys().next().value as string)
    this.dirty = true
  }

  /** Writes the book if it changed (a fresh file renamed over the old one). */
  save(): void {
    if (!this.dirty || !this.names) return
    mkdirSync(this.dir, {recursive: true, mode: 0o700})
    const file = join(this.dir, NAMES_FILE)
    const tmp = `${file}.${randomBytes(6).toString('hex')}.tmp`
    const data = Object.fromEntries([...this.names].map(([id, e]) => [id, e.kind ? [e.name, e.kind] : e.name]))
    writeFileSync(tmp, JSON.stringify(data), {mode: 0o600, flag: 'wx'})
    renameSync(tmp, file)
    this.dirty = false
  }
}

/** One id of the book, as {@link readRecentNames} gives it. */
export interface NamedId {
  id: string
  name: string
  kind?: NameKind
}

// An entry of names.json: `"id":"name"` or `"id":["name","kind"]` (JSON strings, escapes and all).
const STR = '"((?:[^"\\\\]|\\\\.)*)"'
const ENTRY = new RegExp(`${STR}:(?:${STR}|\\[${STR},"(subaccount|treasury-account)"\\])`, 'g')
const unjson = (s: string) => {
  try {
    return JSON.parse(`"${s}"`) as string
  } catch {
    return undefined
  }
}

/**
 * The newest entries of the book (the last `maxBytes` of names.json), oldest first, read without
 * parsing the whole file: what shell completion shows on every TAB, where a full book (50,000
 * names) would cost more than the whole answer may take. A book that fits is read whole.
 */
export function readRecentNames(dir: string, maxBytes = 256 << 10): NamedId[] {
  const text = readTail(join(dir, NAMES_FILE), maxBytes)?.text
  if (text === undefined) return []
  const out: NamedId[] = []
  for (const m of text.matchAll(ENTRY)) {
    const id = unjson(m[1])
    const name = unjson(m[2] ?? m[3])
    if (id === undefined || name === undefined) continue
    out.push(m[4] ? {id, name, kind: m[4] as NameKind} : {id, name})
  }
  return out
}

/** Passes items through, remembering each one's name on the way (lists stream as before). */
export async function* remembering<T>(items: AsyncIterable<T>, names: {remember(id: string, name: string, kind?: NameKind): void}, pick: (item: T) => [string, string], kind?: NameKind): AsyncIterable<T> {
  for await (const item of items) {
    names.remember(...pick(item), kind)
    yield item
  }
}
