/**
 * This machine's book of names in controls.sqlite, apart from the team's (names.ts): what a command
 * that reads and shows names needs, and nothing of the control store's code (a one-shot read loads
 * this, the SQLite binding and the schema, no more).
 */
import {closeSync, constants, existsSync, mkdirSync, openSync, readFileSync} from 'node:fs'
import {putAside} from './aside.js'
import {join} from 'node:path'
import {openDatabase} from '../db/index.js'
import {SqliteRecords} from './records-sqlite.js'
import type {NameEntry} from './records-types.js'
import {CONTROLS_FILE, CONTROLS_SCHEMA} from './sqlite-schema.js'
import {systemClock} from '../context/host.js'

export const NAMES_FILE = 'names.json'
const KINDS = new Set(['subaccount', 'treasury-account'])

/** The entries of a names.json (`id: name`, or `id: [name, kind]`), in its order; a damaged file gives none. */
function readNamesFile(file: string): NameEntry[] {
  try {
    // Never through a symbolic link.
    const fd = openSync(file, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0))
    let text: string
    try {
      text = readFileSync(fd, 'utf8')
    } finally {
      closeSync(fd)
    }
    const out: NameEntry[] = []
    for (const [id, value] of Object.entries(JSON.parse(text) as Record<string, unknown>)) {
      if (typeof value === 'string') out.push({id, name: value, kind: null})
      else if (Array.isArray(value) && typeof value[0] === 'string') out.push({id, name: value[0], kind: KINDS.has(value[1] as string) ? (value[1] as string) : null})
    }
    return out
  } catch {
    return []
  }
}

/** This machine's book (controls.sqlite), names.json moved into it first when it is still there. */
export function withLocalNames<T>(dir: string, fn: (book: SqliteRecords) => T, opts: {create?: boolean} = {}): T | undefined {
  const file = join(dir, CONTROLS_FILE)
  const legacy = join(dir, NAMES_FILE)
  if (!existsSync(file) && !existsSync(legacy) && opts.create === false) return undefined
  mkdirSync(dir, {recursive: true, mode: 0o700})
  const db = openDatabase(file, CONTROLS_SCHEMA, {synchronous: 'FULL'})
  try {
    const book = new SqliteRecords(db, '', () => new Date(systemClock.now()).toISOString())
    if (existsSync(legacy)) {
      book.rememberNow(readNamesFile(legacy))
      putAside(legacy)
    }
    return fn(book)
  } finally {
    db.close()
  }
}

