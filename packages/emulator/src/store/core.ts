/**
 * The core every area of the emulator's store builds on: records ({@link Row}) kept in tables
 * sorted by a store-wide sequence number, a clock that never goes backwards, change notification
 * (persistence listens to it), and the small checks every area shares.
 *
 * Change notification names what changed, so that persistence writes only that: every record is
 * kept in a {@link Holder} (a table, or one subaccount's activity list) that knows its
 * {@link Place} (the entity that owns it, the entity's field, the group within a grouped field),
 * and an area that adds or changes a record reports it with {@link StoreCore.changedRecord}
 * (`removedRecord` for a deletion). What is not a record (entities, API keys, an entity's maps and
 * settings, the signing secret) is reported with {@link StoreCore.changed}; a reset with
 * {@link StoreCore.cleared}.
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
 * Where a record is kept, as persistence names it: the id of the entity that owns it, the entity's
 * field (`moves`, `subaccounts`, `activity`, `bankTransactions`…), and the key of its group within a
 * grouped field (the subaccount of an activity line, the treasury account of a bank line; '' for
 * none).
 */
export interface Place {
  readonly owner: string
  readonly kind: string
  readonly group: string
}

/** A place not bound to an entity (a table made on its own, as tests do). */
export const NOWHERE: Place = Object.freeze({owner: '', kind: '', group: ''})

/** What keeps records: its place, and each record as it is saved. */
export interface Holder {
  readonly place: Place
  /** The record as a state keeps it (JSON-serialisable). */
  saved(row: Row): unknown
}

/** What persistence hears from a store. */
export interface StoreListener {
  /** `row` was added to or changed in `holder` (`removed`: deleted from it). */
  record(holder: Holder, row: Row, removed: boolean): void
  /** Something that is not a record changed: entities, API keys, an entity's maps, the signing secret. */
  other(): void
  /** Every entity and all their records were dropped (a reset); API keys stay. */
  cleared(): void
}

/**
 * Records of one kind, by id and as an array sorted by seq (append-only in practice), so that
 * cursor pagination can binary-search its position instead of scanning.
 */
export class Table<T extends Row> implements Holder {
  readonly items: T[] = []
  private readonly byId = new Map<string, T>()
  /** Set by the entity (or grouped field) that holds the table. */
  place: Place = NOWHERE

  /** Names the table's place (see {@link Place}). */
  bind(owner: string, kind: string, group = ''): void {
    this.place = {owner, kind, group}
  }

  /** A record as a state keeps it (the record itself, unless a table keeps a compact form). */
  saved(row: T): unknown {
    return row
  }

  /** A saved record back as the table keeps it (see {@link saved}). */
  restore(saved: unknown): T {
    return saved as T
  }

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
  private owner = ''
  private kind = ''

  /** Names the field's place: each group's table is placed in group `key` of it. */
  bind(owner: string, kind: string): void {
    this.owner = owner
    this.kind = kind
    for (const [k, t] of this.groups) t.bind(owner, kind, k)
  }

  get(key: string): Table<T> | undefined {
    return this.groups.get(key)
  }

  /** The table of `key`, created when missing. */
  table(key: string): Table<T> {
    let t = this.groups.get(key)
    if (!t) {
      t = new Table<T>()
      t.bind(this.owner, this.kind, key)
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
  /** Milliseconds added to the wall clock: where `emulator clock advance|set` (or `--clock`) moved the time. */
  protected offset = 0
  /** While true, the clock stands still (a clock move stamps each step with the instant it was due). */
  private frozen = false
  private readonly listeners = new Set<StoreListener>()

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
    const t = this.frozen ? this.clock : Date.now() + this.offset
    if (t > this.clock) this.clock = t
    return this.clock
  }

  /** The clock as {@link nowMs} reads it, without handing the instant out (an answer's HTTP Date). */
  peekMs(): number {
    return Math.max(this.clock, this.frozen ? this.clock : Date.now() + this.offset)
  }

  /**
   * Moves the clock to `ms` and lets it run on from there. Never backwards (sequence order is time
   * order): an instant before {@link nowMs} throws, unless `rewind` (a store whose records were all
   * dropped, as a scenario load does).
   */
  setClock(ms: number, rewind = false): void {
    if (!rewind && ms < this.nowMs()) throw new RangeError(`${iso(ms)} is before the emulator's clock (${iso(this.nowMs())})`)
    this.offset = ms - Date.now()
    this.clock = ms
    this.changed()
  }

  /** Runs `fn` with the clock standing still except where {@link setClock} moves it; it runs on after. */
  withClockHeld<T>(fn: () => T): T {
    const was = this.frozen
    this.nowMs()
    this.frozen = true
    try {
      return fn()
    } finally {
      this.frozen = was
      if (!was) this.offset = this.clock - Date.now()
    }
  }

  /** The last sequence number handed out, the clock and its offset: what a saved state keeps of them. */
  counters(): {seq: number; clock: number; offset: number} {
    return {seq: this.seq, clock: this.clock, offset: this.offset}
  }

  /** Call after a change that is not a record's (entities, keys, maps, the signing secret). */
  changed(): void {
    for (const l of this.listeners) l.other()
  }

  /** Call after adding `row` to `holder` or changing it there: persistence writes that record. */
  changedRecord(holder: Holder, row: Row): void {
    for (const l of this.listeners) l.record(holder, row, false)
  }

  /** Call after deleting `row` from `holder`. */
  removedRecord(holder: Holder, row: Row): void {
    for (const l of this.listeners) l.record(holder, row, true)
  }

  /** Call after dropping every entity and their records (API keys stay). */
  cleared(): void {
    for (const l of this.listeners) l.cleared()
  }

  /** Listens to every change; returns the function that stops it. */
  listen(listener: StoreListener): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  /** Records a status change of `rec` (kept in `holder`) at `at` (default: now), so that what one operation books shares one time. */
  setStatus<T extends Row & {status: string; status_recorded_at: string; updated_at: string}>(holder: Holder, rec: T, status: T['status'], at?: string): void {
    const now = at ?? this.now()
    rec.status = status
    rec.status_recorded_at = now
    rec.updated_at = now
    this.changedRecord(holder, rec)
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
