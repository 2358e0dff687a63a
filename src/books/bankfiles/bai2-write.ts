/**
 * A statement as a BAI2 file: one group per day of the period (its as-of date), each with the
 * account's opening (010) and closing (015) ledger balance of that day and the day's lines as 16
 * transaction details: type 399 (credit), 699 (debit) or 698 (a fee); the amount in minor units;
 * funds type Z; the bank reference is the line's id; the text is the description, then `ORIG:` or
 * `BNF:` and the counterparty. Every trailer carries its control total and record count. The first
 * group's 010 is the statement's opening balance and the last group's 015 its closing balance.
 */
import {addDays} from '../dates.js'
import type {BalancedStatement} from './balanced.js'
import {fileText} from './types.js'
import {fileAccount, isFee, lineDay, yymmdd} from './write-common.js'

const SENDER = 'PAYOPS'

/** Text of a 16 record: no record break, no control characters. */
const text16 = (s: string | null) => (fileText(s, 300) ?? '').replace(/\//g, ' ')

export function writeBai2(s: BalancedStatement, nowIso: string): string {
  const out: string[] = []
  const account = fileAccount(s).replace(/[,/]/g, '')
  const cur = s.currency_code
  const receiver = account
  out.push(`01,${SENDER},${receiver},${yymmdd(nowIso)},${nowIso.slice(11, 16).replace(':', '')},${s.month.replace('-', '')}${yymmdd(nowIso)},,,2/`)
  let fileTotal = 0n
  let groups = 0
  let balance = BigInt(s.opening_balance_in_minor_units)
  let i = 0
  for (let day = s.from; day <= s.to; day = addDays(day, 1)) {
    const start = out.length
    out.push(`02,${receiver},${SENDER},1,${yymmdd(day)},,${cur},2/`)
    const open = balance
    const details: string[] = []
    let sum = 0n
    for (; i < s.lines.length && lineDay(s.lines[i].date) <= day; i++) {
      const l = s.lines[i]
      const code = l.direction === 'credit' ? '399' : isFee(l) ? '698' : '699'
      const cp = l.counterparty ? `${l.direction === 'credit' ? 'ORIG' : 'BNF'}: ${text16(l.counterparty)}` : ''
      const text = [text16(l.description), cp].filter(Boolean).join('; ')
      details.push(`16,${code},${l.amount_in_minor_units},Z,${l.id.replace(/[,/\s]/g, '')},,${text}`)
      sum += BigInt(l.amount_in_minor_units)
      balance += BigInt(l.signed_amount_in_minor_units)
    }
    out.push(`03,${account},${cur},010,${open},,,015,${balance},,/`, ...details)
    const accountTotal = open + balance + sum
    out.push(`49,${accountTotal},${details.length + 2}/`)
    out.push(`98,${accountTotal},1,${out.length - start + 1}/`)
    fileTotal += accountTotal
    groups++
  }
  out.push(`99,${fileTotal},${groups},${out.length + 1}/`)
  return out.join('\n') + '\n'
}
