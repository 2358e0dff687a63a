/**
 * The rows of a planned import in compact form: typed arrays by row (line, amount, currency,
 * source, destination, flags, content hash, key digest), so that a plan of a large file costs
 * tens of bytes a row rather than an object per row. Subaccount ids and currencies are stored
 * once each; keys derived from the batch id as their 16-byte digest (others, rare, by row).
 */
import {statSync} from 'node:fs'
import {UsageError} from '../errors.js'
import {derivedKeyPrefix} from './csv.js'
import type {MatchedRow} from './match.js'

const CURRENCY_GIVEN = 1
const PRIOR = 2
const DONE = 4

/** What the table stores of a row. */
export interface TableRow {
  line: number
  from_subaccount_id: string
  to_subaccount_id: string
  amount_in_minor_units: number
  currency: string
  currencyGiven: boolean
  key: string
  /** The journal knew the row. */
  prior?: unknown
  /** Where the parser starts reading the row in the file (see ImportRow.offset). */
  offset?: number
}

/** One row of a plan, as a (transient) view. */
export type PlannedRow = Omit<TableRow, 'prior'> & {
  /** The row's position among the valid rows of the file (0-based). */
  index: number
  /** The journal knew the row (sent before, not done). */
  prior: boolean
}

/**
 * Rows between two byte offsets kept in a table: the offset of every 1,024th row (0, 1024, ...),
 * enough to start reading a file near any row (a resume reads at most 1,023 rows it skips) at 8
 * bytes per 1,024 rows instead of 8 bytes a row.
 */
export const OFFSET_EVERY = 1024

/** How many offsets a table of `rows` rows keeps. */
export const offsetsOf = (rows: number) => Math.ceil(rows / OFFSET_EVERY)

/** The arrays of a table (see RowTable.dump), each `length` rows long (fp and digest 16 bytes a row; offset one per OFFSET_EVERY rows). */
export interface TableData {
  length: number
  line: Uint32Array
  /** 4 bytes a row while every amount fits, 8 otherwise (see RowTable). */
  amount: Uint32Array | Float64Array
  currency: Uint16Array
  /** 2 bytes a row while the file names at most 65,536 subaccounts, 4 otherwise. */
  from: Uint16Array | Uint32Array
  to: Uint16Array | Uint32Array
  /** CURRENCY_GIVEN (1) or 0, by row. */
  given: Uint8Array
  fp: Buffer
  digest: Buffer
  offset: Float64Array
  ids: string[]
  currencies: string[]
  otherKeys: Array<[number, string]>
  headerLine: number
  delimiter: string[]
}

/**
 * At most how many rows a file of this size holds (a valid row has two UUIDs, two commas, an
 * amount and a line end: at least 76 bytes), so that a table sized for it never grows: growing
 * holds the old and the new arrays at once. Pages of the arrays that no row fills are never
 * touched, so a generous size costs no memory.
 */
export function rowsAtMost(file: string): number {
  try {
    return Math.min(Math.ceil(statSync(file).size / 76) + 16, 50_000_000)
  } catch {
    return 1024
  }
}

export class RowTable {
  length = 0
  private line: Uint32Array
  // Amounts and subaccount numbers start narrow and are widened (copied once) by the first row that
  // does not fit: 6 bytes a row less for the usual file.
  private amount: Uint32Array | Float64Array
  private currency: Uint16Array
  private from: Uint16Array | Uint32Array
  private to: Uint16Array | Uint32Array
  private flags: Uint8Array
  private fp: Buffer
  private digest: Buffer
  private offset: Float64Array
  /** The currencies as planned, kept when the checks set some (setCurrency). */
  private planned?: Uint16Array
  private readonly otherKeys = new Map<number, string>()
  private readonly currencies: string[] = []
  private readonly currencyIndex = new Map<string, number>()
  private readonly ids: string[] = []
  private readonly idIndex = new Map<string, number>()
  private readonly prefix: string
  /** Rows still to send. */
  pending = 0
  /** Rows still to send that the journal did not know. */
  fresh = 0
  /** Every row's offset is known (the rows were read from a file): see resumePoint. */
  hasOffsets = true
  /** The header's line and the file's record delimiter (hex), when read from a file. */
  headerLine = 0
  delimiter?: string[]

  constructor(batchId: string, capacity = 1024) {
    const n = Math.max(1, capacity)
    this.line = new Uint32Array(n)
    this.amount = new Uint32Array(n)
    this.currency = new Uint16Array(n)
    this.from = new Uint16Array(n)
    this.to = new Uint16Array(n)
    this.flags = new Uint8Array(n)
    this.fp = Buffer.alloc(16 * n)
    this.digest = Buffer.alloc(16 * n)
    this.offset = new Float64Array(offsetsOf(n))
    this.prefix = derivedKeyPrefix(batchId)
  }

  static of(rows: MatchedRow[], batchId: string, isDone: (key: string) => boolean, hashOf: (row: MatchedRow) => string): RowTable {
    const t = new RowTable(batchId, rows.length)
    for (const r of rows) t.push(r, isDone(r.key), hashOf(r))
    return t
  }

  private grow(): void {
    const n = this.line.length * 2
    const more = <T extends Uint32Array | Float64Array | Uint16Array | Uint8Array>(a: T, make: (n: number) => T): T => {
      const b = make(n)
      b.set(a)
      return b
    }
    const same = <T extends Uint32Array | Float64Array | Uint16Array>(a: T) => (k: number) => new (a.constructor as new (k: number) => T)(k)
    this.line = more(this.line, (k) => new Uint32Array(k))
    this.amount = more(this.amount, same(this.amount))
    this.currency = more(this.currency, (k) => new Uint16Array(k))
    this.from = more(this.from, same(this.from))
    this.to = more(this.to, same(this.to))
    this.flags = more(this.flags, (k) => new Uint8Array(k))
    const offset = new Float64Array(offsetsOf(n))
    offset.set(this.offset)
    this.offset = offset
    const fp = Buffer.alloc(16 * n)
    this.fp.copy(fp)
    this.fp = fp
    const digest = Buffer.alloc(16 * n)
    this.digest.copy(digest)
    this.digest = digest
  }

  private id(s: string): number {
    let i = this.idIndex.get(s)
    if (i === undefined) {
      i = this.ids.push(s) - 1
      this.idIndex.set(s, i)
      if (i > 0xffff && this.from instanceof Uint16Array) {
        this.from = Uint32Array.from(this.from)
        this.to = Uint32Array.from(this.to)
      }
    }
    return i
  }

  /** Appends a row; `hash` is the content hash of its fingerprint (32 hex digits). */
  push(r: TableRow, done: boolean, hash: string): void {
    if (this.length === this.line.length) this.grow()
    const i = this.length++
    this.line[i] = r.line
    const amount = r.amount_in_minor_units
    if (this.amount instanceof Uint32Array && !(Number.isInteger(amount) && amount >= 0 && amount <= 0xffffffff)) this.amount = Float64Array.from(this.amount)
    this.amount[i] = amount
    this.currency[i] = this.currencyOf(r.currency)
    // The numbers first: a new subaccount may widen the arrays written to.
    const from = this.id(r.from_subaccount_id)
    const to = this.id(r.to_subaccount_id)
    this.from[i] = from
    this.to[i] = to
    this.flags[i] = (r.currencyGiven ? CURRENCY_GIVEN : 0) | (r.prior ? PRIOR : 0) | (done ? DONE : 0)
    if (!done) {
      this.pending++
      if (!r.prior) this.fresh++
    }
    this.fp.write(hash, 16 * i, 'hex')
    if (r.offset === undefined) this.hasOffsets = false
    else if (i % OFFSET_EVERY === 0) this.offset[i / OFFSET_EVERY] = r.offset
    this.setKey(i, r.key)
  }

  /**
   * The journal knew row `i` (sent before with this row's key and content), and it is `done` or
   * not: for a table built as a first run (every row fresh and pending) and then matched.
   */
  markJournaled(i: number, done: boolean): void {
    if (this.flags[i] & (PRIOR | DONE)) return
    this.flags[i] |= PRIOR | (done ? DONE : 0)
    this.fresh--
    if (done) this.pending--
  }

  /** Row `i`'s content hash equals the 16 bytes of `buf` at `at`. */
  contentIs(i: number, buf: Buffer, at: number): boolean {
    return this.fp.compare(buf, at, at + 16, 16 * i, 16 * i + 16) === 0
  }

  /** Row `i`'s key is derived from the batch id, with the 16-byte digest of `buf` at `at`. */
  derivedKeyIs(i: number, buf: Buffer, at: number): boolean {
    return !this.otherKeys.has(i) && this.digest.compare(buf, at, at + 16, 16 * i, 16 * i + 16) === 0
  }

  /** Row `i`'s key is not derived from the batch id, and is `key`. */
  otherKeyIs(i: number, key: string): boolean {
    return this.otherKeys.get(i) === key
  }

  /** The first row still to send (the table's length when none is). */
  firstPending(): number {
    let i = 0
    while (i < this.length && this.isDone(i)) i++
    return i
  }

  /**
   * Where to read the file from to read row `i` and those after it (see ResumePoint): the nearest
   * row at or before `i` whose offset is kept (`row`), so that rows `row` to `i - 1` are read again;
   * undefined when unknown or when that row is the first.
   */
  resumePoint(i: number): {row: number; offset: number; line: number; delimiter: string[]} | undefined {
    const row = i - (i % OFFSET_EVERY)
    if (!this.hasOffsets || !this.delimiter || row <= 0 || i >= this.length) return undefined
    return {row, offset: this.offset[row / OFFSET_EVERY], line: this.line[row - 1], delimiter: this.delimiter}
  }

  /** The table as planned (before the checks set any currency, before the journal marked any row), for the plan cache. */
  dump(): TableData {
    const n = this.length
    return {
      length: n,
      line: this.line.subarray(0, n),
      amount: this.amount.subarray(0, n),
      currency: (this.planned ?? this.currency).subarray(0, n),
      from: this.from.subarray(0, n),
      to: this.to.subarray(0, n),
      given: this.flags.subarray(0, n).map((f) => f & CURRENCY_GIVEN),
      fp: this.fp.subarray(0, 16 * n),
      digest: this.digest.subarray(0, 16 * n),
      offset: this.offset.subarray(0, offsetsOf(n)),
      ids: this.ids,
      currencies: this.currencies,
      otherKeys: [...this.otherKeys],
      headerLine: this.headerLine,
      delimiter: this.delimiter ?? [],
    }
  }

  /** A table of a batch's first run (every row fresh and pending) from what dump() gave. */
  static restore(batchId: string, d: TableData): RowTable {
    const t = new RowTable(batchId, 1)
    const n = d.length
    t.length = n
    t.line = d.line
    t.amount = d.amount
    t.currency = d.currency
    t.from = d.from
    t.to = d.to
    t.flags = d.given
    t.fp = d.fp
    t.digest = d.digest
    t.offset = d.offset
    for (const s of d.ids) t.id(s)
    for (const c of d.currencies) t.currencyOf(c)
    for (const [i, k] of d.otherKeys) t.otherKeys.set(i, k)
    t.headerLine = d.headerLine
    t.delimiter = d.delimiter
    t.pending = n
    t.fresh = n
    return t
  }

  setKey(i: number, key: string): void {
    const tail = key.slice(this.prefix.length)
    if (key.length === this.prefix.length + 32 && key.startsWith(this.prefix) && /^[0-9a-f]{32}$/.test(tail)) {
      this.digest.write(tail, 16 * i, 'hex')
      this.otherKeys.delete(i)
    } else this.otherKeys.set(i, key)
  }

  private currencyOf(c: string): number {
    let i = this.currencyIndex.get(c)
    if (i === undefined) {
      i = this.currencies.push(c) - 1
      this.currencyIndex.set(c, i)
    }
    return i
  }

  get alreadyDone(): number {
    return this.length - this.pending
  }

  isDone(i: number): boolean {
    return (this.flags[i] & DONE) !== 0
  }

  keyOf(i: number): string {
    return this.otherKeys.get(i) ?? this.prefix + this.digest.toString('hex', 16 * i, 16 * i + 16)
  }

  lineOf(i: number): number {
    return this.line[i]
  }

  currencyAt(i: number): string {
    return this.currencies[this.currency[i]]
  }

  /** The row's content hash (contentHash of its fingerprint) is `hash`. */
  hasContent(i: number, hash: string): boolean {
    return this.fp.toString('hex', 16 * i, 16 * i + 16) === hash
  }

  /** 31 bits of row `i`'s content hash. */
  hashBits(i: number): number {
    return this.fp.readUInt32LE(16 * i) >>> 1
  }

  /** Rows `i` and `j` have the same content hash. */
  sameContent(i: number, j: number): boolean {
    return this.fp.compare(this.fp, 16 * j, 16 * j + 16, 16 * i, 16 * i + 16) === 0
  }

  setCurrency(i: number, currency: string): void {
    this.planned ??= this.currency.slice()
    this.currency[i] = this.currencyOf(currency)
  }

  at(i: number): PlannedRow {
    return {
      index: i,
      line: this.line[i],
      from_subaccount_id: this.ids[this.from[i]],
      to_subaccount_id: this.ids[this.to[i]],
      amount_in_minor_units: this.amount[i],
      currency: this.currencyAt(i),
      currencyGiven: (this.flags[i] & CURRENCY_GIVEN) !== 0,
      key: this.keyOf(i),
      prior: (this.flags[i] & PRIOR) !== 0,
    }
  }

  /** Every row still to send, in file order. */
  *pendingRows(): Generator<PlannedRow> {
    for (let i = 0; i < this.length; i++) if (!this.isDone(i)) yield this.at(i)
  }

  /** Per currency, in minor units: of the rows still to send (`done` false) or of those done. */
  totals(done: boolean): Record<string, number> {
    const out: Record<string, number> = {}
    for (let i = 0; i < this.length; i++) {
      if (this.isDone(i) !== done) continue
      const c = this.currencyAt(i)
      out[c] = (out[c] ?? 0) + this.amount[i]
      if (!Number.isSafeInteger(out[c])) throw new UsageError(`The total in ${c} is too large to handle exactly.`)
    }
    return out
  }
}

/**
 * Counts the rows of each content in a table as they are added, in a few bytes a row: an
 * open-addressing set of row numbers keyed by the rows' content hashes (stored in the table), and
 * the count of each content kept at its first row.
 */
export class ContentCounter {
  private slots = new Int32Array(1024)
  private used = 0
  private counts = new Uint32Array(1024)

  constructor(private readonly table: RowTable) {}

  /** The occurrence number (from 1) of the content of row `i`, counting this row. */
  next(i: number): number {
    if ((this.used + 1) * 2 > this.slots.length) this.rehash()
    const first = this.find(i)
    if (first === i) {
      this.used++
      if (this.counts.length <= i) {
        const c = new Uint32Array(Math.max(this.counts.length * 2, i + 1))
        c.set(this.counts)
        this.counts = c
      }
      this.counts[i] = 1
      return 1
    }
    return ++this.counts[first]
  }

  /** The first row with the content of row `i` (row `i` is added when it is the first). */
  private find(i: number): number {
    const mask = this.slots.length - 1
    for (let s = this.table.hashBits(i) & mask; ; s = (s + 1) & mask) {
      const v = this.slots[s]
      if (v === 0) {
        this.slots[s] = i + 1
        return i
      }
      if (this.table.sameContent(v - 1, i)) return v - 1
    }
  }

  private rehash(): void {
    const old = this.slots
    this.slots = new Int32Array(old.length * 2)
    const mask = this.slots.length - 1
    for (const v of old) {
      if (v === 0) continue
      let s = this.table.hashBits(v - 1) & mask
      while (this.slots[s] !== 0) s = (s + 1) & mask
      this.slots[s] = v
    }
  }
}
