/**
 * A statement as an MT940 customer statement: :20: a reference of the month, :25: the account,
 * :28C: the month's number, :60F: the opening balance on the first day, one :61: per line (value
 * and entry date the line's day, D or C, the amount with a decimal comma, type NTRF or NCHG for a
 * fee, NONREF, and after // the first 16 characters of the id) with :86: information in SWIFT's
 * structured tags (/TRID/ the whole id, /ORDP/ or /BENM/ the counterparty, /REMI/ the
 * description), and :62F: the closing balance on the last day. Text is cut to the SWIFT character
 * set (letters, digits, space and . , - ( ) ? : ' +) and to 65 characters a line.
 */
import {toDecimalString} from '../../money.js'
import type {BalancedStatement} from './balanced.js'
import {fileAccount, isFee, lineDay, yymmdd} from './write-common.js'

/** Text in SWIFT's X character set, without slashes (they open structured tags). */
const x = (s: string | null, n: number) =>
  (s ?? '')
    .replace(/[^A-Za-z0-9 .,\-()?:'+]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, n)

const amount = (minor: number, ccy: string) => {
  const d = toDecimalString(Math.abs(minor), ccy)
  return d.includes('.') ? d.replace('.', ',') : `${d},`
}

export function writeMt940(s: BalancedStatement, _nowIso: string): string {
  const ccy = s.currency_code
  const balance = (tag: string, minor: number, day: string) => `:${tag}:${minor < 0 ? 'D' : 'C'}${yymmdd(day)}${ccy}${amount(minor, ccy)}`
  const out = [`:20:PAYOPS${s.month.replace('-', '')}`, `:25:${x(fileAccount(s), 35)}`, `:28C:${Number(s.month.slice(5))}/1`, balance('60F', s.opening_balance_in_minor_units, s.from)]
  for (const l of s.lines) {
    const day = lineDay(l.date)
    const type = isFee(l) ? 'NCHG' : 'NTRF'
    out.push(`:61:${yymmdd(day)}${day.slice(5, 7)}${day.slice(8, 10)}${l.direction === 'credit' ? 'C' : 'D'}${amount(l.amount_in_minor_units, ccy)}${type}NONREF//${x(l.id, 16)}`)
    const info = [`/TRID/${x(l.id, 59)}`]
    if (l.counterparty) info.push(`/${l.direction === 'credit' ? 'ORDP' : 'BENM'}/${x(l.counterparty, 59)}`)
    if (l.description) info.push(`/REMI/${x(l.description, 59)}`)
    out.push(`:86:${info[0]}`, ...info.slice(1))
  }
  out.push(balance('62F', s.closing_balance_in_minor_units, s.to), '-')
  return out.join('\r\n') + '\r\n'
}
