import type {Statement} from '../statement.js'

/** A statement a bank file can state: both balances known and every line a credit or a debit (writers.ts checks it). */
export type BalancedStatement = Statement & {opening_balance_in_minor_units: number; closing_balance_in_minor_units: number}
