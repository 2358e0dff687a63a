/**
 * A statement as an ISO 20022 camt.053.001.08 end-of-day statement (built with fast-xml-parser's
 * builder, which escapes text): one Stmt for the period with the opening (OPBD) and closing (CLBD)
 * booked balances, the totals (TxsSummry), and each line as a booked Ntry: Amt with its Ccy,
 * CdtDbtInd, BookgDt and ValDt the line's day, AcctSvcrRef the line's id (an id longer than the
 * schema's 35 characters, a UUID, without its dashes: the reader puts them back), BkTxCd
 * PMNT/RCDT (credit), PMNT/ICDT (debit) or ACMT/MDOP/CHRG (a fee), the counterparty as the debtor
 * of a credit or the creditor of a debit, AddtlNtryInf the description.
 */
import {createHash} from 'node:crypto'
import {XMLBuilder} from 'fast-xml-parser'
import {toDecimalString} from '../../money.js'
import type {BalancedStatement} from './balanced.js'
import {fileText} from './types.js'
import {fileAccount, isFee, lineDay} from './write-common.js'

export const CAMT053_NAMESPACE = 'urn:iso:std:iso:20022:tech:xsd:camt.053.001.08'

const builder = new XMLBuilder({ignoreAttributes: false, attributeNamePrefix: '@', format: true, suppressEmptyNode: true})

/** A reference of at most 35 characters (Max35Text). */
export function ref35(id: string): string {
  if (id.length <= 35) return id
  return /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id) ? id.replace(/-/g, '') : id.slice(0, 35)
}

const max = (s: string | null, n: number) => fileText(s, n) ?? undefined

export function writeCamt053(s: BalancedStatement, nowIso: string): string {
  const ccy = s.currency_code
  const amt = (minor: number) => ({'#text': toDecimalString(Math.abs(minor), ccy), '@Ccy': ccy})
  const ind = (minor: number) => (minor < 0 ? 'DBIT' : 'CRDT')
  const bal = (code: string, minor: number, day: string) => ({Tp: {CdOrPrtry: {Cd: code}}, Amt: amt(minor), CdtDbtInd: ind(minor), Dt: {Dt: day}})
  const credits = s.lines.filter((l) => l.direction === 'credit')
  const debits = s.lines.filter((l) => l.direction === 'debit')
  const net = s.closing_balance_in_minor_units - s.opening_balance_in_minor_units
  const created = nowIso.slice(0, 19)
  const stmtId = `${s.month}-${createHash('sha256').update(s.id).digest('hex').slice(0, 12)}`
  const entries = s.lines.map((l) => {
    const fee = isFee(l)
    const party = l.counterparty ? {RltdPties: {[l.direction === 'credit' ? 'Dbtr' : 'Cdtr']: {Pty: {Nm: max(l.counterparty, 140)}}}} : undefined
    return {
      Amt: amt(l.amount_in_minor_units),
      CdtDbtInd: l.direction === 'credit' ? 'CRDT' : 'DBIT',
      Sts: {Cd: 'BOOK'},
      BookgDt: {Dt: lineDay(l.date)},
      ValDt: {Dt: lineDay(l.date)},
      AcctSvcrRef: ref35(l.id),
      BkTxCd: {Domn: {Cd: fee ? 'ACMT' : 'PMNT', Fmly: {Cd: fee ? 'MDOP' : l.direction === 'credit' ? 'RCDT' : 'ICDT', SubFmlyCd: fee ? 'CHRG' : 'OTHR'}}},
      NtryDtls: party ? {TxDtls: party} : undefined,
      AddtlNtryInf: max(l.description, 500),
    }
  })
  const doc = {
    '?xml': {'@version': '1.0', '@encoding': 'UTF-8'},
    Document: {
      '@xmlns': CAMT053_NAMESPACE,
      BkToCstmrStmt: {
        GrpHdr: {MsgId: `PAYOPS-${nowIso.replace(/\D/g, '').slice(0, 14)}-${stmtId.slice(8, 16)}`, CreDtTm: created},
        Stmt: {
          Id: stmtId,
          CreDtTm: created,
          FrToDt: {FrDtTm: `${s.from}T00:00:00`, ToDtTm: `${s.to}T23:59:59`},
          Acct: {Id: {Othr: {Id: max(fileAccount(s), 34)}}, Ccy: ccy, Nm: max(s.name, 70)},
          Bal: [bal('OPBD', s.opening_balance_in_minor_units, s.from), bal('CLBD', s.closing_balance_in_minor_units, s.complete ? s.to : s.as_of.slice(0, 10))],
          TxsSummry: {
            TtlNtries: {NbOfNtries: String(s.lines.length), TtlNetNtry: {Amt: toDecimalString(Math.abs(net), ccy), CdtDbtInd: ind(net)}},
            TtlCdtNtries: {NbOfNtries: String(credits.length), Sum: toDecimalString(s.total_credits_in_minor_units, ccy)},
            TtlDbtNtries: {NbOfNtries: String(debits.length), Sum: toDecimalString(s.total_debits_in_minor_units, ccy)},
          },
          Ntry: entries,
        },
      },
    },
  }
  return builder.build(doc) as string
}
