/** The writer of each bank file format `report statement --format` offers (OFX is written by ../ofx.ts). */
import {UsageError} from '../../errors.js'
import type {Statement} from '../statement.js'
import {writeBai2} from './bai2-write.js'
import {writeCamt053} from './camt-write.js'
import type {StatementFormat} from './formats.js'
import type {BalancedStatement} from './balanced.js'
import {writeMt940} from './mt940-write.js'

/**
 * The statement as a bank file states it, or the refusal (exit 2): a balance payops cannot read
 * exactly, or a line whose direction the spec does not list (it moves no balance, and no bank
 * format has a line that is neither credit nor debit), is never written as something else.
 */
export function balanced(s: Statement, format: string): BalancedStatement {
  if (s.opening_balance_in_minor_units === null || s.closing_balance_in_minor_units === null) {
    throw new UsageError(`${s.unreadable ?? 'The balance is unreadable'}; a ${format} statement needs it, so none was written (-o json or csv show the lines).`)
  }
  const odd = s.lines.filter((l) => l.direction !== 'credit' && l.direction !== 'debit')
  if (odd.length) throw new UsageError(`${odd.length} line${odd.length === 1 ? '' : 's'} of ${s.month} with a direction other than credit or debit (first: ${odd[0].id}); a ${format} statement cannot state ${odd.length === 1 ? 'it' : 'them'}, so none was written (-o json or csv show the lines).`)
  return s as BalancedStatement
}

const WRITERS: Record<Exclude<StatementFormat, 'ofx'>, (s: BalancedStatement, nowIso: string) => string> = {
  camt053: writeCamt053,
  bai2: writeBai2,
  mt940: writeMt940,
}

export const BANK_FILE_WRITERS: Record<Exclude<StatementFormat, 'ofx'>, (s: Statement, nowIso: string) => string> = {
  camt053: (s, at) => WRITERS.camt053(balanced(s, 'camt053'), at),
  bai2: (s, at) => WRITERS.bai2(balanced(s, 'bai2'), at),
  mt940: (s, at) => WRITERS.mt940(balanced(s, 'mt940'), at),
}
