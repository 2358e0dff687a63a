/**
 * What every reader of a bank's statement file gives (BAI2, camt.052/053/054, MT940), and the
 * rules they share: the size and line caps, exact amounts, and the one-line refusal of a
 * malformed file that names the record and the line.
 */
import {UsageError} from '../../errors.js'
import {currencyExponent} from '../../money.js'
import {oneLine, replaceUnsafeChars} from '../../text.js'

export const BANK_FILE_FORMATS = ['bai2', 'camt.052', 'camt.053', 'camt.054', 'mt940'] as const
export type BankFileFormat = (typeof BANK_FILE_FORMATS)[number]

/** A statement file larger than this is refused before it is parsed. */
export const MAX_BANK_FILE_BYTES = 64 * 1024 * 1024
/** A line of a text format (BAI2, MT940) longer than this is refused. */
export const MAX_BANK_FILE_LINE = 1024
/** Text taken from a file (descriptions, counterparties) is cut to this many characters. */
export const MAX_TEXT = 500

/** One line of the bank's file, shaped as the API's bank-reported transaction. */
export interface BankFileLine {
  id: string
  transaction_date: string
  direction: 'credit' | 'debit' | null
  amount_in_minor_units: number
  currency_code: string
  sender_info: string | null
  receiver_info: string | null
  description: string | null
}

/** One account the file reports on. */
export interface BankFileAccount {
  /** As the file gives it. */
  number: string
  currency: string
  lines: number
  /** First and last day of its lines (null: no lines). */
  from: string | null
  to: string | null
  /** The balances the file states, when it does: the first opening, the last closing. */
  opening_balance_in_minor_units: number | null
  closing_balance_in_minor_units: number | null
}

export interface BankFile {
  format: BankFileFormat
  /** The statement's own identifiers (BAI2 sender and file id; camt MsgId and Stmt Id; MT940 :20:). */
  statement_id: string
  accounts: BankFileAccount[]
  /** The lines of one account (by its number as the file gives it), in file order. */
  lines(accountNumber: string): Iterable<BankFileLine>
  /** Lets go of the file's text and lines once they have been read (lines() is then empty). */
  release(): void
}

/** The refusal of a malformed file: one line naming the file, the record and the line. */
export function malformed(file: string, format: string, line: number | null, record: string, why: string): UsageError {
  const where = line === null ? record : `line ${line} (${record})`
  const plain = (s: string, n: number) => oneLine(replaceUnsafeChars(s), n)
  return new UsageError(`${plain(file, 200)} is not a well-formed ${format} file: ${where}: ${plain(why, 300)}; nothing was reconciled.`)
}

/** Text of the file as data: unsafe characters as spaces, runs of spaces as one, cut; null when empty. */
export function fileText(s: string | null | undefined, max = MAX_TEXT): string | null {
  if (s === null || s === undefined) return null
  const t = replaceUnsafeChars(String(s)).replace(/\s+/g, ' ').trim().slice(0, max)
  return t === '' ? null : t
}

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER)

/**
 * A decimal amount of the file (`1234.56`, or `1234,56` in MT940) in minor units of `currency`,
 * exactly; a string saying what is wrong when it is not one.
 */
export function decimalToMinor(raw: string, currency: string, decimalMark: '.' | ','): number | string {
  const s = raw.trim()
  const m = (decimalMark === '.' ? /^([+-]?)(\d+)(?:\.(\d*))?$/ : /^([+-]?)(\d+)(?:,(\d*))?$/).exec(s)
  if (!m) return `amount "${oneLine(s, 40)}" is not a decimal number`
  const exp = currencyExponent(currency)
  const frac = (m[3] ?? '').replace(/0+$/, '')
  if (frac.length > exp) return `amount "${s}" has more decimals than ${currency} has (${exp})`
  return digitsToMinor(m[1] + m[2] + frac.padEnd(exp, '0'), s)
}

/** A whole number of minor units (`-12345`), exactly, within 2^53. */
export function digitsToMinor(digits: string, shown = digits): number | string {
  if (!/^[+-]?\d+$/.test(digits)) return `amount "${oneLine(shown, 40)}" is not a whole number`
  const v = BigInt(digits)
  if (v > MAX_SAFE || v < -MAX_SAFE) return `amount ${oneLine(shown, 40)} is past what payops counts exactly (2^53 minor units)`
  return Number(v)
}

/** A real calendar day `YYYY-MM-DD`, else null. */
export function calendarDay(s: string): string | null {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(s)) return null
  const d = new Date(`${s}T00:00:00Z`)
  return !Number.isNaN(d.getTime()) && d.toISOString().startsWith(s) ? s : null
}

/** A line id fit for a reconciliation key: no spaces or colons, at most 200 characters. */
export function keyId(s: string): string {
  return replaceUnsafeChars(s, '').replace(/[\s:]+/g, '_').slice(0, 200)
}

/** The number of an account as compared with `last_four_digits`: letters and digits only. */
export const accountDigits = (s: string): string => s.replace(/[^0-9A-Za-z]/g, '').toUpperCase()

/** Keeps the first and last day seen. */
export function widen(a: {from: string | null; to: string | null}, day: string): void {
  if (a.from === null || day < a.from) a.from = day
  if (a.to === null || day > a.to) a.to = day
}
