/**
 * A statement as an OFX 1.0.2 bank statement (SGML, the version every accounting package imports):
 * one STMTRS with the month's transactions and the closing (ledger) balance.
 *
 * - BANKID: the routing number when the API shows one (subaccounts), else `000000000`; ACCTID: the
 *   account number when shown, else the id without dashes cut to OFX's 22 characters; ACCTTYPE
 *   CHECKING.
 * - Each line: TRNTYPE CREDIT or DEBIT (FEE for a bank line described as a fee), DTPOSTED, TRNAMT
 *   (signed, in major units, exact), FITID = the line's id, NAME = the counterparty (32
 *   characters), MEMO = the description and the reconciliation status.
 * - Text is made safe for SGML: `&`, `<` and `>` escaped, control characters dropped.
 */
import {replaceUnsafeChars} from '../text.js'
import {toDecimalString} from '../money.js'
import {UsageError} from '../errors.js'
import type {Statement} from './statement.js'


export function ofxText(s: string, max: number): string {
  // Controls and invisible format characters are not text of a statement: the one rule's characters, as spaces.
  const plain = replaceUnsafeChars(s).trim().slice(0, max)
  return plain.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')
}

/** `2026-03-02` or an ISO date-time -> `20260302` or `20260302120000`. */
export function ofxDate(value: string): string {
  const d = value.replace(/[-:]/g, '')
  return value.length <= 10 ? d.slice(0, 8) : `${d.slice(0, 8)}${d.slice(9, 15)}`
}

export function toOfx(s: Statement, nowIso: string): string {
  // The ledger balance is part of the file: one payops cannot read exactly is not written rounded.
  const closing = s.closing_balance_in_minor_units
  if (closing === null) throw new UsageError(`${s.unreadable ?? 'The closing balance is unreadable'}; an OFX statement needs it, so none was written (-o json or csv show the lines).`)
  const money = (minor: number) => toDecimalString(minor, s.currency_code)
  const acctId = (s.account_number && s.kind === 'subaccount' ? s.account_number : s.id.replace(/-/g, '')).slice(0, 22)
  const bankId = s.routing_number && /^\d{9}$/.test(s.routing_number) ? s.routing_number : '000000000'
  const out: string[] = [
    'OFXHEADER:100',
    'DATA:OFXSGML',
    'VERSION:102',
    'SECURITY:NONE',
    'ENCODING:USASCII',
    'CHARSET:1252',
    'COMPRESSION:NONE',
    'OLDFILEUID:NONE',
    'NEWFILEUID:NONE',
    '',
    '<OFX>',
    '<SIGNONMSGSRSV1><SONRS>',
    '<STATUS><CODE>0<SEVERITY>INFO</STATUS>',
    `<DTSERVER>${ofxDate(nowIso)}`,
    '<LANGUAGE>ENG',
    '</SONRS></SIGNONMSGSRSV1>',
    '<BANKMSGSRSV1><STMTTRNRS>',
    `<TRNUID>${ofxText(`${s.id}-${s.month}`, 36)}`,
    '<STATUS><CODE>0<SEVERITY>INFO</STATUS>',
    '<STMTRS>',
    `<CURDEF>${s.currency_code}`,
    `<BANKACCTFROM><BANKID>${bankId}<ACCTID>${ofxText(acctId, 22)}<ACCTTYPE>CHECKING</BANKACCTFROM>`,
    '<BANKTRANLIST>',
    `<DTSTART>${ofxDate(s.from)}`,
    `<DTEND>${ofxDate(s.to)}`,
  ]
  for (const l of s.lines) {
    // A direction the spec does not list moves nothing: OTHER, amount 0.
    const type = l.direction === 'credit' ? 'CREDIT' : l.direction !== 'debit' ? 'OTHER' : /\bfee\b/i.test(l.description ?? '') ? 'FEE' : 'DEBIT'
    out.push('<STMTTRN>', `<TRNTYPE>${type}`, `<DTPOSTED>${ofxDate(l.date)}`, `<TRNAMT>${money(l.signed_amount_in_minor_units)}`, `<FITID>${ofxText(l.id, 255)}`)
    if (l.counterparty) out.push(`<NAME>${ofxText(l.counterparty, 32)}`)
    const memo = [l.description, `reconciliation: ${l.reconciliation}${l.resolution ? ` (${l.resolution})` : ''}`].filter(Boolean).join('; ')
    out.push(`<MEMO>${ofxText(memo, 255)}`, '</STMTTRN>')
  }
  out.push(
    '</BANKTRANLIST>',
    `<LEDGERBAL><BALAMT>${money(closing)}<DTASOF>${ofxDate(s.complete ? s.to : s.as_of)}</LEDGERBAL>`,
    '</STMTRS>',
    '</STMTTRNRS></BANKMSGSRSV1>',
    '</OFX>',
  )
  return out.join('\r\n') + '\r\n'
}
