/**
 * The events `webhooks listen` received, kept in `webhook-events.sqlite` in the config dir: every
 * verified event once (by its id), with its raw body byte for byte, the request's headers (those
 * that carry credentials left out), when it arrived, and every forward and resend of it with its
 * result. `webhooks events list/get/resend` read it.
 *
 * Bounded three ways, oldest first out: at most `maxEvents` events (--keep-events), none older
 * than `maxAgeDays` (--keep-days), and at most MAX_STORE_BYTES of bodies. WAL with synchronous
 * NORMAL: an event committed survives a killed listener; the listener never waits on a disk flush.
 */
import {existsSync} from 'node:fs'
import {join} from 'node:path'
import {openDatabase, type Database, type Schema, type Statement} from '../db/index.js'
import {LocalNotFoundError} from '../errors.js'
import {matchesPattern} from './routes.js'
import {isCredentialHeader} from '../api/redact.js'
import {SIGNATURE_HEADER, TIMESTAMP_HEADER} from './signature.js'

export const EVENTS_FILE = 'webhook-events.sqlite'
export const DEFAULT_KEEP_EVENTS = 10_000
export const DEFAULT_KEEP_DAYS = 30
/** The bodies kept, in bytes, at most (256 MB): past it the oldest events go. */
export const MAX_STORE_BYTES = 256 * 1024 * 1024
/** The byte bound is checked every this many events (the count and age bounds at each one). */
const BYTES_CHECK_EVERY = 32
const DAY_MS = 86_400_000

export const EVENTS_SCHEMA: Schema = {
  purpose: 'webhook-events',
  migrations: [
    `CREATE TABLE event (seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, type TEXT NOT NULL, received_at TEXT NOT NULL,
       received_ms INTEGER NOT NULL, signature_timestamp TEXT NOT NULL, secret_index INTEGER NOT NULL, headers TEXT NOT NULL,
       body BLOB NOT NULL, size INTEGER NOT NULL);
     CREATE INDEX event_received ON event (received_ms);
     CREATE TABLE delivery (event_seq INTEGER NOT NULL REFERENCES event (seq) ON DELETE CASCADE, kind TEXT NOT NULL, route TEXT,
       url TEXT NOT NULL, status INTEGER, ok INTEGER NOT NULL, error TEXT, duration_ms INTEGER NOT NULL, at TEXT NOT NULL);
     CREATE INDEX delivery_event ON delivery (event_seq);`,
  ],
}

/** The event's own signature headers: what a resend with the original headers carries, and nothing else. */
export const OWN_SIGNATURE_HEADERS: ReadonlySet<string> = new Set([SIGNATURE_HEADER, TIMESTAMP_HEADER])

export interface ReceivedEvent {
  id: string
  type: string
  /** The raw body, exactly as it arrived. */
  body: Buffer
  /** Header name and value pairs as they arrived (Node's rawHeaders, flat). */
  rawHeaders: readonly string[]
  signatureTimestamp: string
  secretIndex: number
  receivedAt: string
}

export interface DeliveryResult {
  /** `forward` (by the listener) or `resend`. */
  kind: 'forward' | 'resend'
  /** The route's pattern (null for --forward-to, or a resend). */
  route: string | null
  url: string
  status: number | null
  ok: boolean
  error: string | null
  duration_ms: number
  at: string
}

export interface StoredEvent {
  id: string
  type: string
  received_at: string
  signature_timestamp: string
  secret_index: number
  size: number
  headers: Array<[string, string]>
  body: Buffer
  deliveries: DeliveryResult[]
}

export interface StoreBounds {
  maxEvents: number
  maxAgeDays: number
  /** Bytes of bodies kept at most (default MAX_STORE_BYTES). */
  maxBytes?: number
}

export interface ListFilter {
  /** An event type or a pattern (`payin.*`). */
  type?: string
  /** Epoch ms: events received at or after it. */
  sinceMs?: number
  limit?: number
}

type EventRow = {seq: number; id: string; type: string; received_at: string; signature_timestamp: string; secret_index: number; size: number; headers: string; body: Uint8Array}
type DeliveryRow = {kind: string; route: string | null; url: string; status: number | null; ok: number; error: string | null; duration_ms: number; at: string}

/**
 * The stored header pairs of a request: credential headers (isCredentialHeader, the rule traces
 * follow too) left out, except the event's own signature and timestamp.
 */
export function storableHeaders(raw: readonly string[]): Array<[string, string]> {
  const out: Array<[string, string]> = []
  for (let i = 0; i + 1 < raw.length; i += 2) {
    if (OWN_SIGNATURE_HEADERS.has(raw[i].toLowerCase()) || !isCredentialHeader(raw[i])) out.push([raw[i], raw[i + 1]])
  }
  return out
}

/** An event id the store does not hold: exit 4. */
export function eventNotFound(id: string): LocalNotFoundError {
  return new LocalNotFoundError(`No stored event ${id}: \`payops webhooks events list\` shows the events kept.`)
}

export class EventStore {
  private inserts = 0
  /** A write transaction is open, committed on the next turn of the event loop (or at close). */
  private open = false
  private readonly statements = new Map<string, Statement>()

  private constructor(
    readonly db: Database,
    private readonly bounds: StoreBounds,
    private readonly now: () => number,
  ) {}

  static pathIn(configDir: string): string {
    return join(configDir, EVENTS_FILE)
  }

  /** Opens (or creates) the store of `configDir` and applies its bounds. */
  static open(configDir: string, bounds: StoreBounds = {maxEvents: DEFAULT_KEEP_EVENTS, maxAgeDays: DEFAULT_KEEP_DAYS}, now: () => number = Date.now): EventStore {
    const store = new EventStore(openDatabase(EventStore.pathIn(configDir), EVENTS_SCHEMA, {synchronous: 'NORMAL'}), bounds, now)
    store.prune(true)
    return store
  }

  /** The store of `configDir` for reading and recording resends; undefined when no event was ever stored. */
  static existing(configDir: string, now: () => number = Date.now): EventStore | undefined {
    if (!existsSync(EventStore.pathIn(configDir))) return undefined
    return new EventStore(openDatabase(EventStore.pathIn(configDir), EVENTS_SCHEMA, {synchronous: 'NORMAL', create: false}), {maxEvents: Number.MAX_SAFE_INTEGER, maxAgeDays: Number.MAX_SAFE_INTEGER}, now)
  }

  /** One prepared statement per SQL text, made once. */
  private st(sql: string): Statement {
    let s = this.statements.get(sql)
    if (!s) this.statements.set(sql, (s = this.db.prepare(sql)))
    return s
  }

  /**
   * Writes join one transaction per turn of the event loop: a burst of deliveries costs one commit,
   * not one each. What was written is visible to this store at once and on disk at the next turn.
   */
  private write<T>(fn: () => T): T {
    if (!this.open) {
      this.db.exec('BEGIN IMMEDIATE')
      this.open = true
      setImmediate(() => this.commit())
    }
    return fn()
  }

  private commit(): void {
    if (!this.open) return
    this.open = false
    this.db.exec('COMMIT')
  }

  /** Keeps a verified event; false when an event with its id is already kept (the first is kept). */
  record(e: ReceivedEvent): boolean {
    return this.write(() => this.insert(e))
  }

  private insert(e: ReceivedEvent): boolean {
    const r = this
      .st(
        `INSERT INTO event (id, type, received_at, received_ms, signature_timestamp, secret_index, headers, body, size)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING`,
      )
      .run(e.id, e.type, e.receivedAt, Date.parse(e.receivedAt), e.signatureTimestamp, e.secretIndex, JSON.stringify(storableHeaders(e.rawHeaders)), e.body, e.body.length)
    if (r.changes === 0) return false
    this.inserts++
    if (this.bytes !== undefined) this.bytes += e.body.length
    // Seqs only grow: the rows above this one's seq minus the bound are at most the bound.
    this.dropped(this.st('DELETE FROM event WHERE seq <= ? RETURNING size').all<{size: number}>(Number(r.lastInsertRowid) - this.bounds.maxEvents))
    this.prune(this.inserts % BYTES_CHECK_EVERY === 0)
    return true
  }

  /** The bytes of bodies kept, counted once and then kept up to date as rows come and go. */
  private bytes?: number

  private dropped(rows: Array<{size: number}>): void {
    if (this.bytes !== undefined) for (const r of rows) this.bytes -= Number(r.size)
  }

  /** Adds the result of a forward or resend of the event `id` (nothing when it is no longer kept). */
  addDelivery(id: string, d: DeliveryResult): void {
    this.write(() =>
      this.st('INSERT INTO delivery (event_seq, kind, route, url, status, ok, error, duration_ms, at) SELECT seq, ?, ?, ?, ?, ?, ?, ?, ? FROM event WHERE id = ?').run(
        d.kind, d.route, d.url, d.status, d.ok ? 1 : 0, d.error, Math.round(d.duration_ms), d.at, id,
      ),
    )
  }

  /** Drops events past the age bound (and, with `bytes`, past the byte bound). */
  prune(bytes = false): void {
    const cutoff = this.now() - this.bounds.maxAgeDays * DAY_MS
    if (Number.isFinite(cutoff) && this.bounds.maxAgeDays < Number.MAX_SAFE_INTEGER) this.dropped(this.st('DELETE FROM event WHERE received_ms < ? RETURNING size').all<{size: number}>(cutoff))
    if (!bytes) return
    const first = this.st('SELECT COALESCE(MAX(seq), 0) - ? AS s FROM event').get<{s: number}>(this.bounds.maxEvents)
    if (first && first.s > 0) this.dropped(this.st('DELETE FROM event WHERE seq <= ? RETURNING size').all<{size: number}>(first.s))
    const max = this.bounds.maxBytes ?? MAX_STORE_BYTES
    this.bytes ??= Number(this.st('SELECT COALESCE(SUM(size), 0) AS n FROM event').get<{n: number}>()?.n ?? 0)
    // Only a store over its byte bound pays for the scan that finds where to cut.
    if (this.bytes <= max) return
    this.dropped(
      this.st(`DELETE FROM event WHERE seq <= (SELECT seq FROM (SELECT seq, SUM(size) OVER (ORDER BY seq DESC) AS kept FROM event) WHERE kept > ? ORDER BY seq DESC LIMIT 1) RETURNING size`).all<{size: number}>(max),
    )
  }

  /** Events newest first. */
  list(filter: ListFilter = {}): StoredEvent[] {
    const rows = this.db
      .prepare('SELECT * FROM event WHERE received_ms >= ? ORDER BY seq DESC')
      .iterate<EventRow>(filter.sinceMs ?? 0)
    const out: StoredEvent[] = []
    for (const row of rows) {
      if (filter.type && !matchesPattern(filter.type, row.type)) continue
      out.push(this.toEvent(row))
      if (filter.limit !== undefined && out.length >= filter.limit) break
    }
    return out
  }

  /** Whether an event with this id is kept (a delivery of it after a restart is a duplicate). */
  has(id: string): boolean {
    return this.st('SELECT 1 AS x FROM event WHERE id = ?').get<{x: number}>(id) !== undefined
  }

  get(id: string): StoredEvent | undefined {
    const row = this.db.prepare('SELECT * FROM event WHERE id = ?').get<EventRow>(id)
    return row ? this.toEvent(row) : undefined
  }

  /** The event `id`, or a not-found error (exit 4). */
  require(id: string): StoredEvent {
    const e = this.get(id)
    if (!e) throw eventNotFound(id)
    return e
  }

  count(): number {
    return Number(this.db.prepare('SELECT COUNT(*) AS n FROM event').get<{n: number}>()?.n ?? 0)
  }

  close(): void {
    this.commit()
    this.db.close()
  }

  private toEvent(row: EventRow): StoredEvent {
    const deliveries = this.db.prepare('SELECT kind, route, url, status, ok, error, duration_ms, at FROM delivery WHERE event_seq = ? ORDER BY rowid').all<DeliveryRow>(row.seq)
    return {
      id: row.id,
      type: row.type,
      received_at: row.received_at,
      signature_timestamp: row.signature_timestamp,
      secret_index: Number(row.secret_index),
      size: Number(row.size),
      // Rows an older payops stored under a narrower rule are read under today's.
      headers: storableHeaders((JSON.parse(row.headers) as Array<[string, string]>).flat()),
      body: Buffer.from(row.body),
      deliveries: deliveries.map((d) => ({...d, kind: d.kind as DeliveryResult['kind'], ok: d.ok === 1, status: d.status === null ? null : Number(d.status), duration_ms: Number(d.duration_ms)})),
    }
  }
}
