/**
 * Bank lines a scenario dates after the emulator's clock: kept aside, and booked on the account
 * (as the bank would report them) when the clock reaches their `transaction_date` (scheduler.ts).
 */
import type {Row, Table} from './core.js'
import type {NewBankTransaction} from './treasury.js'

export interface PlannedBankLineRecord extends Row {
  account_id: string
  /** The line as it will be booked; `transaction_date` is the day it appears. */
  line: NewBankTransaction & {transaction_date: string}
}

/** What an entity keeps for this area. */
export interface PlannedTables {
  readonly plannedBankLines: Table<PlannedBankLineRecord>
}
