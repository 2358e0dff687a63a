/**
 * The rows of a planned import in compact form: typed arrays by row (line, amount, currency,
 * source, destination, flags, content hash, key digest), so that a plan of a large file costs
 * tens of bytes a row rather than an object per row. Subaccount ids and currencies are stored
 * once each; keys derived from the batch id as their 16-byte digest (others, rare, by row).
 */
import {UsageError} from '../errors.js'
import {derivedKeyPrefix} from './csv.js'
import type {MatchedRow} from './journal.js'

const CURRENCY_GIVEN = 1
const PRIOR = 2
const DONE = 4

/** One row of a plan, as a (transient) view. */
export interface PlannedRow {
  /** The row's position among the valid rows of the file (0-based). */
  index: number
  line: number
  from_subaccount_id: string
  to_subaccount_id: string
  amount_in_minor_units: number
  currency: string
  currencyGiven: boolean
  key: string
  /** The journal knew the row (sent before, not done). */
  prior: boolean
}

export class RowTable {
  readonly length: number
  private readonly line: Uint32Array
  private readonly amount: Float64Array
  private readonly currency: Uint16Array
  private readonly from: Uint32Array
  private readonly to: Uint32Array
  private readonly flags: Uint8Array
  private readonly fp: Buffer
  private readonly digest: Buffer
  private readonly otherKeys = new Map<number, string>()
  private readonly currencies: string[] = []
  private readonly currencyIndex = new Map<string, number>()
  private readonly ids: string[] = []
  private readonly prefix: string
  /** Rows still to send. */
  pending = 0
  /** Rows still to send that the journal did not know. */
  fresh = 0

  constructor(rows: MatchedRow[], batchId: string, isDone: (key: string) => boolean, hashOf: (row: MatchedRow) => string) {
    const n = rows.length
    this.length = n
    this.line = new Uint32Array(n)
    this.amount = new Float64Array(n)
    this.currency = new Uint16Array(n)
    this.from = new Uint32Array(n)
    this.to = new Uint32Array(n)
    this.flags = new Uint8Array(n)
    this.fp = Buffer.alloc(16 * n)
    this.digest = Buffer.alloc(16 * n)
    this.prefix = derivedKeyPrefix(batchId)
    const idIndex = new Map<string, number>()
    const id = (s: string) => {
      let i = idIndex.get(s)
      if (i === undefined) {
        i = this.ids.push(s) - 1
        idIndex.set(s, i)
      }
      return i
    }
    const hex = /^[0-9a-f]{32}$/
    rows.forEach((r, i) => {
      this.line[i] = r.line
      this.amount[i] = r.amount_in_minor_units
      this.currency[i] = this.currencyOf(r.currency)
      this.from[i] = id(r.from_subaccount_id)
      this.to[i] = id(r.to_subaccount_id)
      const done = isDone(r.key)
      this.flags[i] = (r.currencyGiven ? CURRENCY_GIVEN : 0) | (r.prior ? PRIOR : 0) | (done ? DONE : 0)
      if (!done) {
        this.pending++
        if (!r.prior) this.fresh++
      }
      this.fp.write(hashOf(r), 16 * i, 'hex')
      const tail = r.key.slice(this.prefix.length)
      if (r.key.length === this.prefix.length + 32 && r.key.startsWith(this.prefix) && hex.test(tail)) this.digest.write(tail, 16 * i, 'hex')
      else this.otherKeys.set(i, r.key)
    })
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

  setCurrency(i: number, currency: string): void {
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
