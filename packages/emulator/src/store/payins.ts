/**
 * Payins (created and advanced through the control API; the API only reads them). Each keeps the
 * payer's payment method and name as they were at creation.
 */
import type {PayinStatus} from '../interface/parties.js'
import {newId, type Row, type StoreCore, type Table} from './core.js'

/** A payin's status: the schema's {@link PayinStatus}. */
export type PayinStatusValue = PayinStatus

export interface PayinRecord extends Row {
  payer_id: string
  amount_in_minor_units: number
  currency_code: string
  rail: string
  status: PayinStatusValue
  status_recorded_at: string
  /** The payer's payment method at creation; `end_to_end_id` is set once initiated. */
  payment_method: {account_last_four: string; routing_number: string; end_to_end_id: string | null}
  /** The payer's name and email at creation. */
  payer: {name: string; email: string}
  client_metadata: Record<string, unknown>
  scheduled_date: string | null
  created_at: string
  updated_at: string
  /** Never advanced by the emulator's clock (a scenario's stuck payin); absent: advanced. */
  held?: boolean
}

export type NewPayin = Omit<PayinRecord, 'id' | 'seq' | 'status' | 'status_recorded_at' | 'created_at' | 'updated_at'> & {
  id?: string
  status?: PayinStatusValue
  created_at?: string
}

/** What an entity keeps for this area. */
export interface PayinTables {
  readonly payins: Table<PayinRecord>
}

export class PayinsStore {
  constructor(private readonly core: StoreCore) {}

  create(entity: PayinTables, input: NewPayin): PayinRecord {
    const at = input.created_at ?? this.core.now()
    const {id, created_at: _c, status, ...fields} = input
    const rec: PayinRecord = {...fields, id: id ?? newId(), seq: this.core.nextSeq(), status: status ?? 'created', status_recorded_at: at, created_at: at, updated_at: at}
    entity.payins.insert(rec)
    this.core.changedRecord(entity.payins, rec)
    return rec
  }

  /** Sets the status (and records the payin's other changes, such as its end-to-end id). */
  setStatus(entity: PayinTables, payin: PayinRecord, status: PayinStatusValue): void {
    this.core.setStatus(entity.payins, payin, status)
  }
}
