/**
 * Account transfers between two treasury accounts: creation (bound to its Idempotency-Key) and
 * status changes. Their bank lines are added through the treasury area by the routes.
 */
import type {TransferStatus} from '../interface/transfers.js'
import {newId, type Row, type StoreCore, type Table} from './core.js'

export type {TransferStatus} from '../interface/transfers.js'

export interface AccountTransferRecord extends Row {
  from_account_id: string
  to_account_id: string
  amount_in_minor_units: number
  currency_code: string
  rail: string
  status: TransferStatus
  status_recorded_at: string
  client_metadata: Record<string, unknown> | null
  scheduled_date: string | null
  idempotency_key: string | null
  created_at: string
  updated_at: string
  /** Never advanced by the emulator's clock (a scenario's stuck transfer); absent: advanced. */
  held?: boolean
}

export interface NewAccountTransfer {
  from_account_id: string
  to_account_id: string
  amount_in_minor_units: number
  currency_code: string
  rail: string
  client_metadata?: Record<string, unknown> | null
  scheduled_date?: string | null
  idempotency_key?: string | null
}

/** What an entity keeps for this area. */
export interface TransferTables {
  readonly accountTransfers: Table<AccountTransferRecord>
  /** Idempotency-Key -> account transfer id. */
  readonly transferIdempotencyKeys: Map<string, string>
  /** Async initiation of account transfers: `delay_ms` -> milliseconds (absent: synchronous). */
  readonly transferSettings: Map<string, string>
}

export class TransfersStore {
  constructor(private readonly core: StoreCore) {}

  /** Creates an account transfer in `created` and binds its Idempotency-Key (if any) to it. */
  create(entity: TransferTables, input: NewAccountTransfer): AccountTransferRecord {
    const now = this.core.now()
    const rec: AccountTransferRecord = {
      id: newId(),
      seq: this.core.nextSeq(),
      from_account_id: input.from_account_id,
      to_account_id: input.to_account_id,
      amount_in_minor_units: input.amount_in_minor_units,
      currency_code: input.currency_code,
      rail: input.rail,
      status: 'created',
      status_recorded_at: now,
      client_metadata: input.client_metadata ?? null,
      scheduled_date: input.scheduled_date ?? null,
      idempotency_key: input.idempotency_key ?? null,
      created_at: now,
      updated_at: now,
    }
    entity.accountTransfers.insert(rec)
    if (rec.idempotency_key !== null) entity.transferIdempotencyKeys.set(rec.idempotency_key, rec.id)
    this.core.changedRecord(entity.accountTransfers, rec)
    return rec
  }

  byIdempotencyKey(entity: TransferTables, key: string): AccountTransferRecord | undefined {
    const id = entity.transferIdempotencyKeys.get(key)
    return id === undefined ? undefined : entity.accountTransfers.get(id)
  }

  setStatus(entity: TransferTables, transfer: AccountTransferRecord, status: TransferStatus): void {
    this.core.setStatus(entity.accountTransfers, transfer, status)
  }
}
