/** Payers and payees (one field set), each with an internal default payment method. */
import {newId, type Row, type StoreCore, type Table} from './core.js'

/** A payer's or payee's default payment method (an internal record: the spec shows no shape). */
export interface PaymentMethodRecord {
  account_last_four: string
  routing_number: string
}

export type PartyKind = 'payer' | 'payee'

/** A payer or payee (same field set); `default_payment_method` backs the `has_default` filter. */
export interface PartyRecord extends Row {
  name: string
  email: string
  country_code: 'US' | 'GB' | 'IN' | null
  country_sub_division: string | null
  city: string | null
  address_line: string | null
  postal_code: string | null
  client_metadata: Record<string, string>
  default_payment_method: PaymentMethodRecord | null
  created_at: string
  updated_at: string
}

export type NewParty = Omit<PartyRecord, 'id' | 'seq' | 'created_at' | 'updated_at'> & {id?: string; created_at?: string}

/** What an entity keeps for this area. */
export interface PartyTables {
  readonly payers: Table<PartyRecord>
  readonly payees: Table<PartyRecord>
}

export class PartiesStore {
  constructor(private readonly core: StoreCore) {}

  /**
   * Adds a payer or payee. `created_at` may be given (seeding) only in increasing order, so that
   * the table's seq order stays its created_at order.
   */
  create(entity: PartyTables, kind: PartyKind, input: NewParty): PartyRecord {
    const at = input.created_at ?? this.core.now()
    const {id, created_at: _c, ...fields} = input
    const rec: PartyRecord = {...fields, id: id ?? newId(), seq: this.core.nextSeq(), created_at: at, updated_at: at}
    const table = kind === 'payer' ? entity.payers : entity.payees
    table.insert(rec)
    this.core.changedRecord(table, rec)
    return rec
  }
}
