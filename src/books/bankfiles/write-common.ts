/** What the statement writers share: the day of a line and the account number a file names. */
import type {Statement} from '../statement.js'

/** A line's day (a subaccount's activity carries a time). */
export const lineDay = (date: string): string => date.slice(0, 10)

/** The account number the file names: the statement's account number, else its id without dashes. */
export const fileAccount = (s: Statement): string => s.account_number ?? s.id.replace(/-/g, '')

/** `2026-03-02` -> `260302`. */
export const yymmdd = (day: string): string => day.slice(2, 10).replace(/-/g, '')

/** A fee among debits: a bank line described as a fee. */
export const isFee = (l: Statement['lines'][number]): boolean => l.direction === 'debit' && /\bfee\b/i.test(l.description ?? '')
