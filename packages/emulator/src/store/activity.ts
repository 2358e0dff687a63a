/**
 * Subaccount activity, kept compactly. A settled move is not copied into two activity records:
 * each subaccount's list holds a reference to the move, and its debit line (on the source) and
 * credit line (on the destination) are read from the move when they are listed or saved. Other
 * lines (bank-reported credits, and lines of state files saved before lines were derived) are kept
 * as records. Lists stay sorted by seq, so pagination is unchanged; the saved shape is the one of
 * activity records per subaccount id, and {@link ActivityBook.load} turns the lines it can derive
 * back into references.
 */
import {createHash} from 'node:crypto'
import {NOWHERE, type Holder, type Place, type Row, type Table} from './core.js'

export type ActivitySource = 'transfer' | 'bai2'
export type Direction = 'credit' | 'debit'

export interface ActivityRecord extends Row {
  subaccount_id: string
  source: ActivitySource
  direction: Direction
  amount_in_minor_units: number
  currency_code: string
  effective_at: string
  created_at: string
  /** The move or bank transaction this line comes from. */
  reference_id: string | null
}

/** What a settled move keeps that its two activity lines are read from. */
export interface SettledFlow extends Row {
  from_subaccount_id: string
  to_subaccount_id: string
  amount_in_minor_units: number
  currency_code: string
  status: string
  /** When it settled (ms since the epoch): the effective time of both lines. */
  settled_ms: number
  /** The seq of its debit line; the credit line's is one more. 0 while it has no derived lines. */
  line_seq: number
}

/** One entry of a subaccount's activity: a kept line, or a settled move (one of its two lines). */
export type ActivityEntry = ActivityRecord | SettledFlow

export const isFlow = (e: ActivityEntry): e is SettledFlow => (e as ActivityRecord).source === undefined

/**
 * The id of a move's debit or credit line: a name-based (version 5) UUID of the direction in the
 * move id's namespace, so that it is the same every time it is read and after a reload.
 */
export function lineId(moveId: string, direction: Direction): string {
  const ns = Buffer.from(moveId.replace(/-/g, ''), 'hex')
  const h = createHash('sha1').update(ns).update(direction).digest()
  h[6] = (h[6] & 0x0f) | 0x50
  h[8] = (h[8] & 0x3f) | 0x80
  const x = h.toString('hex', 0, 16)
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20)}`
}

/** One subaccount's activity, sorted by seq. Its kept lines are its records (a move's lines are the move's). */
export class ActivityList implements Holder {
  private readonly entries: ActivityEntry[] = []

  constructor(
    readonly subaccountId: string,
    readonly place: Place = NOWHERE,
  ) {}

  /** A kept line as a state keeps it. */
  saved(row: Row): unknown {
    return row
  }

  get length(): number {
    return this.entries.length
  }

  at(i: number): ActivityEntry {
    return this.entries[i]
  }

  seqAt(i: number): number {
    return this.seqOf(this.entries[i])
  }

  seqOf(e: ActivityEntry): number {
    return isFlow(e) ? e.line_seq + (e.from_subaccount_id === this.subaccountId ? 0 : 1) : e.seq
  }

  directionOf(e: ActivityEntry): Direction {
    return isFlow(e) ? (e.from_subaccount_id === this.subaccountId ? 'debit' : 'credit') : e.direction
  }

  /** When the line took effect, in ms since the epoch. */
  effectiveMsOf(e: ActivityEntry): number {
    return isFlow(e) ? e.settled_ms : Date.parse(e.effective_at)
  }

  /** The line as a record (a move's line is built from the move). */
  line(e: ActivityEntry): ActivityRecord {
    if (!isFlow(e)) return e
    const direction = this.directionOf(e)
    const at = new Date(e.settled_ms).toISOString()
    return {
      id: lineId(e.id, direction),
      seq: this.seqOf(e),
      subaccount_id: this.subaccountId,
      source: 'transfer',
      direction,
      amount_in_minor_units: e.amount_in_minor_units,
      currency_code: e.currency_code,
      effective_at: at,
      created_at: at,
      reference_id: e.id,
    }
  }

  /** Adds an entry in seq order (appended, unless it is older than the last one). */
  add(e: ActivityEntry): void {
    const n = this.entries.length
    const seq = this.seqOf(e)
    if (n === 0 || this.seqAt(n - 1) < seq) {
      this.entries.push(e)
      return
    }
    let lo = 0
    let hi = n
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      if (this.seqAt(mid) < seq) lo = mid + 1
      else hi = mid
    }
    this.entries.splice(lo, 0, e)
  }

  /** Appends an entry without keeping the order; {@link sort} restores it (loading a state). */
  push(e: ActivityEntry): void {
    this.entries.push(e)
  }

  /** Sorts the entries by seq, after {@link push}es (nothing to do when they came in order). */
  sort(): void {
    const n = this.entries.length
    let sorted = true
    for (let i = 1; i < n && sorted; i++) sorted = this.seqAt(i - 1) < this.seqAt(i)
    if (!sorted) this.entries.sort((a, b) => this.seqOf(a) - this.seqOf(b))
  }

  /** Each entry in order (kept lines and settled moves). */
  values(): IterableIterator<ActivityEntry> {
    return this.entries.values()
  }

  lastSeq(): number {
    return this.entries.length === 0 ? 0 : this.seqAt(this.entries.length - 1)
  }

  toJSON(): ActivityRecord[] {
    return this.entries.map((e) => this.line(e))
  }
}

/** Activity lists per subaccount id (what an entity keeps as `activity`). */
export class ActivityBook {
  private readonly lists = new Map<string, ActivityList>()
  private owner = ''
  private kind = ''

  /** Names the field's place: each subaccount's list is group `subaccount id` of it. */
  bind(owner: string, kind: string): void {
    this.owner = owner
    this.kind = kind
  }

  get(subaccountId: string): ActivityList | undefined {
    return this.lists.get(subaccountId)
  }

  /** The list of `subaccountId`, created when missing. */
  list(subaccountId: string): ActivityList {
    let l = this.lists.get(subaccountId)
    if (!l) {
      l = new ActivityList(subaccountId, this.kind ? {owner: this.owner, kind: this.kind, group: subaccountId} : NOWHERE)
      this.lists.set(subaccountId, l)
    }
    return l
  }

  keys(): IterableIterator<string> {
    return this.lists.keys()
  }

  values(): IterableIterator<ActivityList> {
    return this.lists.values()
  }

  /** The largest seq of any line. */
  maxSeq(): number {
    let max = 0
    for (const l of this.lists.values()) max = Math.max(max, l.lastSeq())
    return max
  }

  clear(): void {
    this.lists.clear()
  }

  toJSON(): Record<string, ActivityRecord[]> {
    const out: Record<string, ActivityRecord[]> = {}
    for (const [k, l] of this.lists) out[k] = l.toJSON()
    return out
  }

  /**
   * Loads saved lines. A line that is exactly what a settled move of `moves` derives (its id, side,
   * amount, currency, time and seq) becomes a reference to the move again; every other line is kept
   * as it was saved. Debits are matched before credits, since a credit's seq follows its debit's.
   */
  load(saved: Record<string, readonly ActivityRecord[]>, moves: Pick<Table<SettledFlow>, 'get'>): void {
    this.clear()
    const derived = new Set<ActivityRecord>()
    const ids = new Set<string>()
    for (const direction of ['debit', 'credit'] as const) {
      for (const [subId, rows] of Object.entries(saved)) {
        for (const row of rows) {
          if (row.direction !== direction || row.source !== 'transfer' || typeof row.reference_id !== 'string') continue
          const m = moves.get(row.reference_id)
          if (!m || !derivable(m, row, subId)) continue
          const debitSeq = direction === 'debit' ? row.seq : row.seq - 1
          if ((m.line_seq !== 0 && m.line_seq !== debitSeq) || ids.has(row.id)) continue
          m.line_seq = debitSeq
          ids.add(row.id)
          derived.add(row)
        }
      }
    }
    for (const [subId, rows] of Object.entries(saved)) {
      const list = this.list(subId)
      for (const row of [...rows].sort((a, b) => a.seq - b.seq)) {
        list.add(derived.has(row) ? (moves.get(row.reference_id!) as SettledFlow) : row)
      }
    }
  }
}

function derivable(m: SettledFlow, row: ActivityRecord, subId: string): boolean {
  const side = row.direction === 'debit' ? m.from_subaccount_id : m.to_subaccount_id
  return (
    m.status === 'settled' &&
    m.from_subaccount_id !== m.to_subaccount_id &&
    side === subId &&
    (row.subaccount_id === undefined || row.subaccount_id === subId) &&
    row.id === lineId(m.id, row.direction) &&
    row.amount_in_minor_units === m.amount_in_minor_units &&
    row.currency_code === m.currency_code &&
    Number.isFinite(m.settled_ms) &&
    row.effective_at === new Date(m.settled_ms).toISOString()
  )
}
