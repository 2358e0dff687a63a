/**
 * Moves between subaccounts: creation (bound to its Idempotency-Key), status changes and
 * settlement, which books a debit and a credit through the subaccounts area. A move that could not
 * settle (a total would leave the exact range) is refused before anything is written.
 */
import type {MoveStatus} from '../../api/schemas/moves.js'
import {flat, newId, type Row, type StoreCore, type Table} from './core.js'
import type {SubaccountTables, SubaccountsStore} from './subaccounts.js'

export type {MoveStatus} from '../../api/schemas/moves.js'

export interface MoveRecord extends Row {
  from_subaccount_id: string
  to_subaccount_id: string
  amount_in_minor_units: number
  currency_code: string
  status: MoveStatus
  status_recorded_at: string
  client_metadata: Record<string, string>
  idempotency_key: string | null
  settled_at: string | null
  created_at: string
  updated_at: string
}

export interface NewMove {
  from_subaccount_id: string
  to_subaccount_id: string
  amount_in_minor_units: number
  currency_code: string
  client_metadata?: Record<string, string>
  idempotency_key?: string | null
}

/** What an entity keeps for this area. */
export interface MoveTables {
  readonly moves: Table<MoveRecord>
  /** Idempotency-Key -> move id. */
  readonly moveIdempotencyKeys: Map<string, string>
}

type MoveOwner = MoveTables & SubaccountTables

export class MovesStore {
  constructor(
    private readonly core: StoreCore,
    private readonly subaccounts: SubaccountsStore,
    /** Every entity, to find the one a move belongs to. */
    private readonly entities: () => Iterable<MoveOwner>,
  ) {}

  /**
   * Creates a move in `created` and binds its Idempotency-Key (if any) to it. A move that could not
   * settle now (a total would leave the exact range) is refused here, so an auto-approving create
   * fails before the move exists.
   */
  create(entity: MoveOwner, input: NewMove): MoveRecord {
    this.assertCanSettle(entity, input)
    const now = this.core.now()
    const rec: MoveRecord = {
      id: newId(),
      seq: this.core.nextSeq(),
      from_subaccount_id: input.from_subaccount_id,
      to_subaccount_id: input.to_subaccount_id,
      amount_in_minor_units: input.amount_in_minor_units,
      currency_code: input.currency_code,
      status: 'created',
      status_recorded_at: now,
      client_metadata: input.client_metadata ?? {},
      idempotency_key: input.idempotency_key == null ? null : flat(input.idempotency_key),
      settled_at: null,
      created_at: now,
      updated_at: now,
    }
    entity.moves.insert(rec)
    if (rec.idempotency_key !== null) entity.moveIdempotencyKeys.set(rec.idempotency_key, rec.id)
    this.core.changed()
    return rec
  }

  /** The move an Idempotency-Key was used for, if any. */
  byIdempotencyKey(entity: MoveTables, key: string): MoveRecord | undefined {
    const id = entity.moveIdempotencyKeys.get(key)
    return id === undefined ? undefined : entity.moves.get(id)
  }

  /** Refuses (400) a move whose settlement would take either subaccount's total out of range. */
  assertCanSettle(entity: SubaccountTables, move: Pick<MoveRecord, 'from_subaccount_id' | 'to_subaccount_id' | 'amount_in_minor_units'>): void {
    const amount = move.amount_in_minor_units
    this.subaccounts.assertCanBook(entity, [
      {subaccount_id: move.from_subaccount_id, direction: 'debit', amount_in_minor_units: amount},
      {subaccount_id: move.to_subaccount_id, direction: 'credit', amount_in_minor_units: amount},
    ])
  }

  /** Approval checks first that the move can settle, so a refused approve leaves it `created`. */
  setStatus(move: MoveRecord, status: MoveStatus, at?: string): void {
    if (status === 'approved') {
      const entity = [...this.entities()].find((e) => e.moves.get(move.id) === move)
      if (entity) this.assertCanSettle(entity, move)
    }
    this.core.setStatus(move, status, at)
  }

  /** Settles an approved move: debit on the source, credit on the destination, status `settled`. */
  settle(entity: MoveOwner, move: MoveRecord): void {
    if (move.status !== 'approved') throw new Error(`move ${move.id} is ${move.status}, not approved`)
    this.assertCanSettle(entity, move)
    const at = this.core.now()
    const common = {source: 'transfer' as const, amount_in_minor_units: move.amount_in_minor_units, currency_code: move.currency_code, effective_at: at, reference_id: move.id}
    this.subaccounts.bookFlow(entity, move.from_subaccount_id, {...common, direction: 'debit'})
    this.subaccounts.bookFlow(entity, move.to_subaccount_id, {...common, direction: 'credit'})
    move.settled_at = at
    this.setStatus(move, 'settled', at)
  }
}
