/**
 * Subaccounts and their activity: creation (with a unique account number), activity lines, and
 * booking money in or out (the one range check on their totals). Moves, simulated credits and the
 * bulk control API book through here.
 */
import {randomInt} from 'node:crypto'
import {validationError} from '../lib/http-error.js'
import type {ActivityBook, ActivityRecord, ActivitySource, Direction, SettledFlow} from './activity.js'
import {canAdd, newId, type Holder, type Row, type StoreCore, type Table} from './core.js'

export type {ActivityEntry, ActivityRecord, ActivitySource, Direction, SettledFlow} from './activity.js'
export {ActivityBook, ActivityList, lineId} from './activity.js'

export interface SubaccountRecord extends Row {
  name: string
  account_number: string
  routing_numbers: {ach: string; wire: string}
  total_incoming_in_minor_units: number
  total_outgoing_in_minor_units: number
  currency_code: string
  created_at: string
  updated_at: string
}

export interface NewActivity {
  source: ActivitySource
  direction: Direction
  amount_in_minor_units: number
  currency_code?: string
  /** Defaults to now. */
  effective_at?: string
  reference_id?: string | null
}

export interface Booking {
  subaccount_id: string
  direction: Direction
  amount_in_minor_units: number
}

/** What an entity keeps for this area. */
export interface SubaccountTables {
  readonly id: string
  /** The ABA routing number of the entity's bank: every subaccount's ACH and wire routing number. */
  readonly routing_number: string
  readonly subaccounts: Table<SubaccountRecord>
  /** Activity lines per subaccount id. */
  readonly activity: ActivityBook
  /** Where the entity's moves are kept: a settled move is the record its two lines are read from. */
  readonly moves: Holder
}

export class SubaccountsStore {
  /** Every account number handed out, so that none is given twice. */
  private readonly accountNumbers = new Set<string>()

  constructor(private readonly core: StoreCore) {}

  create(entity: SubaccountTables, init: {name: string; currency_code: string}): SubaccountRecord {
    const now = this.core.now()
    const rec: SubaccountRecord = {
      id: newId(),
      seq: this.core.nextSeq(),
      name: init.name,
      account_number: this.newAccountNumber(),
      routing_numbers: {ach: entity.routing_number, wire: entity.routing_number},
      total_incoming_in_minor_units: 0,
      total_outgoing_in_minor_units: 0,
      currency_code: init.currency_code,
      created_at: now,
      updated_at: now,
    }
    entity.subaccounts.insert(rec)
    this.core.changedRecord(entity.subaccounts, rec)
    return rec
  }

  /** Appends an activity line to a subaccount without touching its totals. */
  addActivity(entity: SubaccountTables, subaccountId: string, input: NewActivity): ActivityRecord {
    const sub = entity.subaccounts.get(subaccountId)
    if (!sub) throw new Error(`subaccount ${subaccountId} does not exist in entity ${entity.id}`)
    const now = this.core.now()
    const rec: ActivityRecord = {
      id: newId(),
      seq: this.core.nextSeq(),
      subaccount_id: subaccountId,
      source: input.source,
      direction: input.direction,
      amount_in_minor_units: input.amount_in_minor_units,
      currency_code: input.currency_code ?? sub.currency_code,
      effective_at: input.effective_at ?? now,
      created_at: now,
      reference_id: input.reference_id ?? null,
    }
    const list = entity.activity.list(subaccountId)
    list.add(rec)
    this.core.changedRecord(list, rec)
    return rec
  }

  /**
   * The one range check on subaccount totals: throws 400 VALIDATION_ERROR, before anything is
   * written, when a booking would take an incoming or outgoing total past Number.MAX_SAFE_INTEGER.
   */
  assertCanBook(entity: SubaccountTables, bookings: Booking[]): void {
    for (const b of bookings) {
      const sub = entity.subaccounts.get(b.subaccount_id)
      if (!sub) continue
      const which = b.direction === 'credit' ? 'incoming' : 'outgoing'
      const total = b.direction === 'credit' ? sub.total_incoming_in_minor_units : sub.total_outgoing_in_minor_units
      if (!canAdd(total, b.amount_in_minor_units)) {
        throw validationError(
          `amount_in_minor_units ${b.amount_in_minor_units} would take the total ${which} of subaccount ${sub.id} past ${Number.MAX_SAFE_INTEGER}, the largest exact amount`,
        )
      }
    }
  }

  /**
   * Books money into or out of a subaccount: updates the incoming/outgoing total and appends the
   * matching activity line. Balances may go negative (no minimum is enforced).
   */
  bookFlow(entity: SubaccountTables, subaccountId: string, input: NewActivity): ActivityRecord {
    const sub = entity.subaccounts.get(subaccountId)
    if (!sub) throw new Error(`subaccount ${subaccountId} does not exist in entity ${entity.id}`)
    this.assertCanBook(entity, [{subaccount_id: subaccountId, direction: input.direction, amount_in_minor_units: input.amount_in_minor_units}])
    const line = this.addActivity(entity, subaccountId, input)
    if (input.direction === 'credit') sub.total_incoming_in_minor_units += input.amount_in_minor_units
    else sub.total_outgoing_in_minor_units += input.amount_in_minor_units
    sub.updated_at = line.created_at
    this.core.changedRecord(entity.subaccounts, sub)
    return line
  }

  /**
   * Books a settled move: its amount out of the source and into the destination (totals and one
   * activity entry each, the lines read from the move), with the seqs of its debit and credit
   * lines. Both bookings are checked before either is written.
   */
  bookMove(entity: SubaccountTables, move: SettledFlow): void {
    const from = entity.subaccounts.get(move.from_subaccount_id)
    const to = entity.subaccounts.get(move.to_subaccount_id)
    if (!from || !to) throw new Error(`move ${move.id} names a subaccount that does not exist in entity ${entity.id}`)
    const amount = move.amount_in_minor_units
    this.assertCanBook(entity, [
      {subaccount_id: from.id, direction: 'debit', amount_in_minor_units: amount},
      {subaccount_id: to.id, direction: 'credit', amount_in_minor_units: amount},
    ])
    move.line_seq = this.core.nextSeq()
    this.core.nextSeq()
    entity.activity.list(from.id).add(move)
    entity.activity.list(to.id).add(move)
    from.total_outgoing_in_minor_units += amount
    to.total_incoming_in_minor_units += amount
    const at = new Date(move.settled_ms).toISOString()
    from.updated_at = at
    to.updated_at = at
    // The move's debit and credit lines are read from it: the move (with its line seq) is the record.
    this.core.changedRecord(entity.moves, move)
    this.core.changedRecord(entity.subaccounts, from)
    this.core.changedRecord(entity.subaccounts, to)
  }

  /** Marks the account numbers of loaded subaccounts as taken. */
  remember(entity: SubaccountTables): void {
    for (const sub of entity.subaccounts.items) this.accountNumbers.add(sub.account_number)
  }

  /** Forgets every account number (all data was dropped). */
  clear(): void {
    this.accountNumbers.clear()
  }

  private newAccountNumber(): string {
    for (;;) {
      const n = String(randomInt(100_000_000_000, 1_000_000_000_000))
      if (!this.accountNumbers.has(n)) {
        this.accountNumbers.add(n)
        return n
      }
    }
  }
}
