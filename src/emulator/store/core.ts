/**
 * The core every area of the emulator's store builds on: records ({@link Row}) kept in tables
 * sorted by a store-wide sequence number, a clock that never goes backwards, change notification
 * (persistence listens to it), and the small checks every area shares.
 *
 * Ordering: every record gets a store-wide, strictly increasing `seq`, and `created_at` comes from
 * a clock that never goes backwards, so ordering by seq is ordering by (created_at, seq).
 */
import {randomFillSync, randomInt} from 'node:crypto'

export type Mode = 'test' | 'live'
export const ENTITY_ROLES = ['test', 'test_other', 'live'] as const
export type EntityRole = (typeof ENTITY_ROLES)[number]

/** A record kept in a {@link Table}: unique id plus the store-wide sequence number. */
export interface Row {
  id: string
  seq: number
}

/**
 * Records of one kind, by id and as an array sorted by seq (append-only in practice), so that
 * cursor pagination can binary-search its position instead of scanning.
 */
export class Table<T extends Row> {
  readonly items: T[] = []
  private readonly byId = new Map<string, T>()

  get size(): number {
    return this.items.length
  }

  get(id: string): T | undefined {
    return this.byId.get(id)
  }

  has(id: string): boolean {
    return this.byId.has(id)
  }

  insert(row: T): T {
    if (this.byId.has(row.id)) throw new Error(`duplicate id ${row.id}`)
    const last = this.items[this.items.length - 1]
    if (!last || last.seq < row.seq) this.items.push(row)
    else this.items.splice(lowerBound(this.items, row.seq), 0, row)
    this.byId.set(row.id, row)
    return row
  }

  delete(id: string): boolean {
    const row = this.byId.get(id)
    if (!row) return false
    this.byId.delete(id)
    const i = lowerBound(this.items, row.seq)
    if (this.items[i] === row) this.items.splice(i, 1)
    return true
  }

  clear(): void {
    this.items.length = 0
    this.byId.clear()
  }

  load(rows: readonly T[]): void {
    this.clear()
    for (const r of [...rows].sort((a, b) => a.seq - b.seq)) this.insert(r)
  }

  toJSON(): T[] {
    return this.items
  }
}

/** Tables keyed by a parent id (activity per subaccount, bank lines per treasury account). */
export class Grouped<T extends Row> {
  private readonly groups = new Map<string, Table<T>>()

  get(key: string): Table<T> | undefined {
    return this.groups.get(key)
  }

  /** The table of `key`, created when missing. */
  table(key: string): Table<T> {
    let t = this.groups.get(key)
    if (!t) {
      t = new Table<T>()
      this.groups.set(key, t)
    }
    return t
  }

  keys(): IterableIterator<string> {
    return this.groups.keys()
  }

  clear(): void {
    this.groups.clear()
  }

  load(obj: Record<string, readonly T[]>): void {
    this.clear()
    for (const [k, rows] of Object.entries(obj)) this.table(k).load(rows)
  }

  toJSON(): Record<string, T[]> {
    const out: Record<string, T[]> = {}
    for (const [k, t] of this.groups) out[k] = t.items
    return out
  }
}

/** Milliseconds since the epoch as the ISO 8601 text the API shows. */
export function iso(ms: number): string {
  return new Date(ms).toISOString()
}

/** Index of the first item whose seq is >= `seq` (items sorted by seq). */
export function lowerBound(items: readonly Row[], seq: number): number {
  let lo = 0
  let hi = items.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (items[mid].seq < seq) lo = mid + 1
    else hi = mid
  }
  return lo
}

/** Index of the first item whose seq is > `seq` (items sorted by seq). */
export function upperBound(items: readonly Row[], seq: number): number {
  let lo = 0
  let hi = items.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (items[mid].seq <= seq) lo = mid + 1
    else hi = mid
  }
  return lo
}

/** Sequence numbers, the clock and change listeners: what every area's operations stamp records with. */
export class StoreCore {
  protected seq = 0
  protected clock = 0
  private readonly listeners = new Set<() => void>()

  /** A fresh, strictly increasing sequence number. */
  nextSeq(): number {
    return ++this.seq
  }

  /** Current time as ISO 8601, never earlier than a time this store already handed out. */
  now(): string {
    return new Date(this.nowMs()).toISOString()
  }

  /** {@link now} as milliseconds since the epoch (what compact records keep). */
  nowMs(): number {
    const t = Date.now()
    if (t > this.clock) this.clock = t
    return this.clock
  }

  /** Call after every mutation: persistence listens to it. */
  changed(): void {
    for (const fn of this.listeners) fn()
  }

  onChange(fn: () => void): () => void {
    this.listeners.add(fn)
    return () => this.listeners.delete(fn)
  }

  /** Sets a record's status and stamps when it changed (moves, transfers, payins). */
  /** Records a status change at `at` (default: now), so that what one operation books shares one time. */
  setStatus<T extends {status: string; status_recorded_at: string; updated_at: string}>(rec: T, status: T['status'], at?: string): void {
    const now = at ?? this.now()
    rec.status = status
    rec.status_recorded_at = now
    rec.updated_at = now
    this.changed()
  }
}

/**
 * Whether `amount` can be added to `total` and the sum stay an exact integer (at most
 * Number.MAX_SAFE_INTEGER): past it JSON numbers lose precision and clients cannot read them.
 */
export function canAdd(total: number, amount: number): boolean {
  return Number.isSafeInteger(total) && Number.isSafeInteger(amount) && Number.isSafeInteger(total + amount)
}

const HEX = '0123456789abcdef'
const UUID_POOL = 256
const uuidPool = Buffer.alloc(16 * UUID_POOL)
let uuidNext = UUID_POOL
const uuidText = Buffer.alloc(36)

/**
 * A random (version 4) UUID as one flat string. `crypto.randomUUID()` returns a rope of about 20
 * concatenated pieces (some 700 bytes of heap as long as the id is kept); a store keeps millions of
 * ids, so it takes these, 56 bytes each.
 */
export function newId(): string {
  if (uuidNext === UUID_POOL) {
    randomFillSync(uuidPool)
    uuidNext = 0
  }
  const at = 16 * uuidNext++
  let o = 0
  for (let i = 0; i < 16; i++) {
    let b = uuidPool[at + i]
    if (i === 6) b = (b & 0x0f) | 0x40
    else if (i === 8) b = (b & 0x3f) | 0x80
    if (i === 4 || i === 6 || i === 8 || i === 10) uuidText[o++] = 0x2d
    uuidText[o++] = HEX.charCodeAt(b >> 4)
    uuidText[o++] = HEX.charCodeAt(b & 0x0f)
  }
  return uuidText.toString('latin1')
}

/**
 * `s` as one flat string (the same characters): a string built by concatenation is a rope of its
 * pieces, kept as long as the string is. For what a store keeps per record (Idempotency-Keys).
 */
export function flat(s: string): string {
  // latin1 keeps every character below U+0100 as one byte; anything else round-trips as UTF-16.
  // eslint-disable-next-line no-control-regex
  const enc = /^[\u0000-\u00ff]*$/.test(s) ? 'latin1' : 'utf16le'
  return Buffer.from(s, enc).toString(enc)
}

/** A random 9-digit ABA routing number with a valid Federal Reserve prefix and check digit. */
export function randomRoutingNumber(): string {
  const prefix = randomInt(0, 2) === 0 ? randomInt(1, 13) : randomInt(21, 33)
  const d = [...String(prefix).padStart(2, '0'), ...String(randomInt(0, 1_000_000)).padStart(6, '0')].map(Number)
  const sum = 3 * (d[0] + d[3] + d[6]) + 7 * (d[1] + d[4] + d[7]) + (d[2] + d[5])
  d.push((10 - (sum % 10)) % 10)
  return d.join('')
}

/** True for a 9-digit number whose ABA checksum holds. */
export function isValidRoutingNumber(n: string): boolean {
  if (!/^\d{9}$/.test(n)) return false
  const d = [...n].map(Number)
  return (3 * (d[0] + d[3] + d[6]) + 7 * (d[1] + d[4] + d[7]) + (d[2] + d[5] + d[8])) % 10 === 0
}
