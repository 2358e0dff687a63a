/**
 * ISO 20022 camt.053 (end-of-day statement), camt.052 (intraday account report) and camt.054
 * (debit and credit notification) in, read with fast-xml-parser (namespace prefixes dropped, every
 * value kept as text, so amounts are read digit by digit). A DOCTYPE is refused: camt messages have
 * none, and entities could expand.
 *
 * Per statement (Stmt, Rpt or Ntfctn): the account is Acct/Id/IBAN or Acct/Id/Othr/Id, its
 * currency Acct/Ccy (else the entries'); opening balance the first OPBD (or PRCD), closing the last
 * CLBD. Per entry (Ntry), booked ones only (Sts BOOK, or no status): the amount Amt with its Ccy,
 * the direction CdtDbtInd (CRDT credit, DBIT debit), the day BookgDt (else ValDt), the id
 * AcctSvcrRef (else NtryRef, else the statement's id and the entry's number), the description
 * AddtlNtryInf (else the first unstructured remittance line), the counterparty the debtor's name of
 * a credit and the creditor's name of a debit (RltdPties, either layout).
 */
import {XMLParser, XMLValidator} from 'fast-xml-parser'
import {normalizeCurrency} from '../../money.js'
import type {BankFile, BankFileAccount, BankFileFormat, BankFileLine} from './types.js'
import {calendarDay, decimalToMinor, fileText, keyId, malformed, widen} from './types.js'

type Node = Record<string, unknown>

const KINDS: Record<string, {format: BankFileFormat; each: string}> = {
  BkToCstmrStmt: {format: 'camt.053', each: 'Stmt'},
  BkToCstmrAcctRpt: {format: 'camt.052', each: 'Rpt'},
  BkToCstmrDbtCdtNtfctn: {format: 'camt.054', each: 'Ntfctn'},
}

const ARRAYS = new Set(['Stmt', 'Rpt', 'Ntfctn', 'Ntry', 'Bal', 'NtryDtls', 'TxDtls', 'Ustrd'])

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  removeNSPrefix: true,
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
  processEntities: true,
  htmlEntities: false,
  isArray: (name) => ARRAYS.has(name),
})

class CamtError extends Error {
  constructor(
    readonly entry: number | null,
    readonly record: string,
    why: string,
  ) {
    super(why)
  }
}

const get = (n: unknown, ...path: string[]): unknown => path.reduce<unknown>((o, k) => (o && typeof o === 'object' ? (o as Node)[k] : undefined), n)
const text = (n: unknown): string | undefined => {
  if (typeof n === 'string') return n
  if (n && typeof n === 'object' && typeof (n as Node)['#text'] === 'string') return (n as Node)['#text'] as string
  return undefined
}
const first = (n: unknown): unknown => (Array.isArray(n) ? n[0] : n)

/** The line where the n-th (0-based) Ntry element starts, found in the text when it is needed. */
function lineOfEntry(xml: string, n: number): number | null {
  const re = /<(?:[\w.-]+:)?Ntry[\s>]/g
  let m: RegExpExecArray | null = null
  for (let i = 0; i <= n; i++) {
    m = re.exec(xml)
    if (!m) return null
  }
  return xml.slice(0, m!.index).split('\n').length
}

function dayOf(n: unknown): string | undefined {
  const d = text(get(n, 'Dt')) ?? text(get(n, 'DtTm'))?.slice(0, 10)
  return d === undefined ? undefined : (calendarDay(d) ?? undefined)
}

function money(n: unknown, currency: string | undefined, where: number | null, record: string): {minor: number; currency: string} {
  const raw = text(n)
  const ccy = typeof n === 'object' && n ? (n as Node)['@Ccy'] : undefined
  const c = typeof ccy === 'string' ? ccy : currency
  if (raw === undefined || c === undefined) throw new CamtError(where, record, 'an amount without a value or a currency (Amt Ccy)')
  let code: string
  try {
    code = normalizeCurrency(c)
  } catch {
    throw new CamtError(where, record, `currency "${c.slice(0, 10)}" is not an ISO 4217 code`)
  }
  const v = decimalToMinor(raw, code, '.')
  if (typeof v === 'string') throw new CamtError(where, record, v)
  return {minor: v, currency: code}
}

function partyName(entry: Node, role: 'Dbtr' | 'Cdtr'): string | null {
  for (const d of (entry.NtryDtls as Node[] | undefined) ?? []) {
    for (const t of (d.TxDtls as Node[] | undefined) ?? []) {
      const name = text(get(t, 'RltdPties', role, 'Nm')) ?? text(get(t, 'RltdPties', role, 'Pty', 'Nm'))
      if (name) return fileText(name, 200)
    }
  }
  return null
}

interface Parsed {
  format: BankFileFormat
  statementId: string
  accounts: Map<string, BankFileAccount>
  lines: Map<string, BankFileLine[]>
}

function parse(xml: string): Parsed {
  const doc = parser.parse(xml) as Node
  const root = get(doc, 'Document') as Node | undefined
  const kind = root ? Object.keys(root).find((k) => KINDS[k]) : undefined
  if (!root || !kind) throw new CamtError(null, 'Document', 'no BkToCstmrStmt, BkToCstmrAcctRpt or BkToCstmrDbtCdtNtfctn message in a Document')
  const {format, each} = KINDS[kind]
  const msg = root[kind] as Node
  const msgId = text(get(msg, 'GrpHdr', 'MsgId'))
  if (!msgId) throw new CamtError(null, 'GrpHdr', 'the message has no MsgId')
  const statements = (msg[each] as Node[] | undefined) ?? []
  if (statements.length === 0) throw new CamtError(null, each, `the message has no ${each}`)
  const accounts = new Map<string, BankFileAccount>()
  const lines = new Map<string, BankFileLine[]>()
  const ids: string[] = []
  let entryNo = 0
  statements.forEach((st, si) => {
    const stId = text(st.Id)
    if (!stId) throw new CamtError(null, `${each} ${si + 1}`, 'the statement has no Id')
    ids.push(stId)
    const number = text(get(st, 'Acct', 'Id', 'IBAN')) ?? text(get(st, 'Acct', 'Id', 'Othr', 'Id'))
    if (!number) throw new CamtError(null, `${each} ${stId}`, 'the account has no Id (IBAN or Othr/Id)')
    const stCcy = text(get(st, 'Acct', 'Ccy'))
    const acct = accounts.get(number) ?? {number, currency: '', lines: 0, from: null, to: null, opening_balance_in_minor_units: null, closing_balance_in_minor_units: null}
    accounts.set(number, acct)
    const out = lines.get(number) ?? []
    lines.set(number, out)
    for (const bal of (st.Bal as Node[] | undefined) ?? []) {
      const code = text(get(bal, 'Tp', 'CdOrPrtry', 'Cd'))
      const m = money(bal.Amt, stCcy, null, `${each} ${stId} Bal ${code ?? ''}`.trim())
      const signed = text(bal.CdtDbtInd) === 'DBIT' ? -m.minor : m.minor
      if ((code === 'OPBD' || code === 'PRCD') && acct.opening_balance_in_minor_units === null) acct.opening_balance_in_minor_units = signed
      if (code === 'CLBD') acct.closing_balance_in_minor_units = signed
      if (!acct.currency) acct.currency = m.currency
    }
    for (const e of (st.Ntry as Node[] | undefined) ?? []) {
      const n = entryNo++
      const status = text(e.Sts) ?? text(get(e, 'Sts', 'Cd'))
      if (status !== undefined && status !== 'BOOK') continue
      const m = money(e.Amt, stCcy, n, 'Ntry')
      if (!acct.currency) acct.currency = m.currency
      if (m.currency !== acct.currency) throw new CamtError(n, 'Ntry', `an entry in ${m.currency} on an account reported in ${acct.currency}`)
      const ind = text(e.CdtDbtInd)
      if (ind !== 'CRDT' && ind !== 'DBIT') throw new CamtError(n, 'Ntry', `CdtDbtInd "${(ind ?? '').slice(0, 10)}" is neither CRDT nor DBIT`)
      const day = dayOf(e.BookgDt) ?? dayOf(e.ValDt)
      if (!day) throw new CamtError(n, 'Ntry', 'the entry has no booking or value date')
      const direction = ind === 'CRDT' ? 'credit' : 'debit'
      const ref = text(e.AcctSvcrRef) ?? text(e.NtryRef) ?? text(get(first(get(first(e.NtryDtls), 'TxDtls')), 'Refs', 'AcctSvcrRef'))
      const ustrd = text(first(get(first(get(first(e.NtryDtls), 'TxDtls')), 'RmtInf', 'Ustrd')))
      const cp = partyName(e, direction === 'credit' ? 'Dbtr' : 'Cdtr')
      acct.lines++
      widen(acct, day)
      out.push({
        id: keyId(ref ? uuidBack(ref) : `${msgId}-${stId}-${n + 1}`),
        transaction_date: day,
        direction,
        amount_in_minor_units: m.minor,
        currency_code: m.currency,
        sender_info: direction === 'credit' ? cp : null,
        receiver_info: direction === 'debit' ? cp : null,
        description: fileText(text(e.AddtlNtryInf) ?? ustrd),
      })
    }
    if (!acct.currency && stCcy) acct.currency = normalizeCurrency(stCcy)
  })
  return {format, statementId: `${msgId}/${ids.join('+')}`, accounts, lines}
}

/** Reads a camt.052, camt.053 or camt.054 file; one line naming the element and line when it is not well formed. */
export function readCamt(xml: string, file: string): BankFile {
  if (/<!DOCTYPE|<!ENTITY/i.test(xml)) {
    throw malformed(file, 'camt', lineAt(xml, xml.search(/<!DOCTYPE|<!ENTITY/i)), 'DOCTYPE', 'a camt message has no DOCTYPE or entity declarations')
  }
  const valid = XMLValidator.validate(xml)
  if (valid !== true) throw malformed(file, 'XML', valid.err.line, 'XML', valid.err.msg)
  let parsed: Parsed
  try {
    parsed = parse(xml)
  } catch (err) {
    if (err instanceof CamtError) throw malformed(file, 'camt', err.entry === null ? null : lineOfEntry(xml, err.entry), err.record, err.message)
    throw err
  }
  return {
    format: parsed.format,
    statement_id: parsed.statementId,
    accounts: [...parsed.accounts.values()],
    lines: (number: string) => parsed.lines.get(number) ?? [],
    release: () => parsed.lines.clear(),
  }
}

/** A 32-hex-digit reference is a UUID written without its dashes (Max35Text holds no 36-character UUID): they are put back. */
const uuidBack = (r: string): string => (/^[0-9a-f]{32}$/i.test(r) ? `${r.slice(0, 8)}-${r.slice(8, 12)}-${r.slice(12, 16)}-${r.slice(16, 20)}-${r.slice(20)}`.toLowerCase() : r)

const lineAt = (s: string, index: number): number => s.slice(0, Math.max(0, index)).split('\n').length
