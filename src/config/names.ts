/**
 * A local book of names: subaccount names and treasury labels payops has seen, kept in the config
 * dir (names.json, 0600), so tables and the approval queue can show `Payroll (ef63a1b2…)` instead
 * of a bare id without asking the service again. Only names and ids; never a key.
 *
 * Names come from the service and are kept exactly as data (a name may hold anything). The book is
 * shared by every profile of the config dir, so a name is never trusted for display: every path that
 * shows one (table cells, the LIVE summary, outcome sentences, the approval checkbox) goes through
 * the one rule of src/output/safe.ts and shows its control and format characters escaped.
 */
import {randomBytes} from 'node:crypto'
import {existsSync, mkdirSync, readFileSync, renameSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

export const NAMES_FILE = 'names.json'
const MAX_NAMES = 50_000

export class NameBook {
  /** The name of an id, if payops has seen it. */
  private names?: Map<string, string>
  private dirty = false

  constructor(private readonly dir: string) {}

  private load(): Map<string, string> {
    if (this.names) return this.names
    this.names = new Map()
    const file = join(this.dir, NAMES_FILE)
    try {
      if (existsSync(file)) {
        const data = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>
        for (const [id, name] of Object.entries(data)) if (typeof name === 'string') this.names.set(id, name)
      }
    } catch {
      // A damaged book is only a cache: start afresh.
    }
    return this.names
  }

  get(id: string): string | undefined {
    return this.load().get(id)
  }

  remember(id: string | null | undefined, name: string | null | undefined): void {
    if (!id || !name) return
    const names = this.load()
    if (names.get(id) === name) return
    names.delete(id)
    names.set(id, name)
    while (names.size > MAX_NAMES) names.delete(names.keys().next().value as string)
    this.dirty = true
  }

  /** Writes the book if it changed (a fresh file renamed over the old one). */
  save(): void {
    if (!this.dirty || !this.names) return
    mkdirSync(this.dir, {recursive: true, mode: 0o700})
    const file = join(this.dir, NAMES_FILE)
    const tmp = `${file}.${randomBytes(6).toString('hex')}.tmp`
    writeFileSync(tmp, JSON.stringify(Object.fromEntries(this.names)), {mode: 0o600, flag: 'wx'})
    renameSync(tmp, file)
    this.dirty = false
  }
}

/** Passes items through, remembering each one's name on the way (lists stream as before). */
export async function* remembering<T>(items: AsyncIterable<T>, names: {remember(id: string, name: string): void}, pick: (item: T) => [string, string]): AsyncIterable<T> {
  for await (const item of items) {
    names.remember(...pick(item))
    yield item
  }
}
