/** What reconciliation reads and reports: its kinds of items, their windows, options and report. */
import type {BankTransaction, TreasuryAccount} from '../api/schemas/treasury.js'

export const KINDS = ['matched', 'bank_only', 'transfer_only', 'stuck', 'amount_mismatch', 'pending'] as const
export type Kind = (typeof KINDS)[number]
export const EXCEPTION_KINDS: ReadonlySet<string> = new Set(['bank_only', 'transfer_only', 'stuck', 'amount_mismatch'])

/** Days after its send day past which a transfer still approved or initiated is `stuck`, per rail. */
export const STUCK_AFTER_DAYS: Readonly<Record<string, number>> = {
  instant_card: 1,
  instant_bank: 1,
  wire: 1,
  same_day_ach: 1,
  standard_ach: 3,
}
/** For a rail not in the table. */
export const STUCK_AFTER_DAYS_OTHER = 3
/** Transfers created this many days before the widened period are not read. */
export const LOOKBACK_DAYS = 90
export const DEFAULT_WINDOW_DAYS = 3
export const MAX_WINDOW_DAYS = 31


export interface ReconcileOptions {
  account: string
  from: string
  to: string
  window: number
  subaccounts: string[]
  /** Leave matched items out of the list (they are still counted). */
  hideMatched?: boolean
  /** Where the bank lines come from: the API's bank lines of the account (the default), or another source such as the bank's own file. */
  bankLines?: BankLineSource
}

/** Bank lines shaped as the API's, for the account (as the API lists it) over the widened period `from`..`to`. */
export type BankLineSource = (account: TreasuryAccount, from: string, to: string) => AsyncIterable<BankLine> | Iterable<BankLine>
export type BankLine = Pick<BankTransaction, 'id' | 'amount_in_minor_units' | 'currency_code' | 'description' | 'sender_info' | 'receiver_info' | 'direction' | 'transaction_date'>

export interface ReconcileItem {
  key: string
  /**
   * What `reconcile resolve` also takes for the key: for an exception, the start of its ids, as
   * short as is unique among the items seen here (8 characters, or more); otherwise its kind and
   * the start of its first id (resolve refuses those: they are not exceptions).
   */
  short_key: string
  kind: Kind
  /** An exception not resolved. */
  exception: boolean
  date: string
  direction: string | null
  /** The expected side's amount in its own currency (a transfer's, even when it lands converted), else the bank line's. */
  amount_in_minor_units: number | null
  currency_code: string
  counterparty: string | null
  bank_transaction_id: string | null
  bank_date: string | null
  bank_amount_in_minor_units: number | null
  bank_currency_code: string | null
  bank_description: string | null
  source: 'transfer' | 'bai2' | null
  expected_id: string | null
  expected_date: string | null
  expected_amount_in_minor_units: number | null
  expected_currency_code: string | null
  status: string | null
  rail: string | null
  gap_days: number | null
  resolution: {label: string; note: string | null; decided_at: string} | null
}

export interface ReconcileReport {
  account_id: string
  currency_code: string
  from: string
  to: string
  window_days: number
  summary: Record<Kind | 'resolved' | 'exceptions', number>
  items: ReconcileItem[]
}
