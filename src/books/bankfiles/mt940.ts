/**
 * SWIFT MT940 (customer statement) in, read with @centrapay/swift-parser (amounts as exact
 * decimals; every statement checked: required tags, one currency, opening + lines = closing).
 *
 * Per statement: the account is :25:, the currency that of :60F:/:60M:, the statement's own id
 * :20: with :28C:. Per :61: line: the day its entry date (else its value date), the direction its
 * D/C mark (a reversal, RD or RC, the other way), the amount exact in the currency. Its :86:
 * information is read for SWIFT's structured tags when present: /TRID/ (the line's id), /ORDP/
 * (who sent a credit), /BENM/ (who was paid by a debit), /REMI/ (the description); the id is
 * otherwise the bank reference (after //), else the customer reference (not NONREF), else the
 * statement's id and the line.
 */
import swift from '@centrapay/swift-parser'
import {normalizeCurrency} from '../../money.js'
import type {BankFile, BankFileAccount, BankFileLine} from './types.js'
import {MAX_BANK_FILE_LINE, decimalToMinor, fileText, keyId, malformed, widen} from './types.js'

interface SwiftAmount {
  toFixed(): string
}
interface SwiftTransaction {
  date: Date
  entryDate: Date | ''
  amount: SwiftAmount
  reference: string
  bankReference: string
  transactionType: string
  extraDetails: string
  detailSegments?: string[]
}
interface SwiftStatement {
  transactionReference: string
  accountIdentification: string
  number: {statement: string; sequence: string}
  currency: string
  openingBalance: SwiftAmount
  closingBalance: SwiftAmount
  transactions: SwiftTransaction[]
}

const dayOf = (d: Date | '') => (d instanceof Date && !Number.isNaN(d.getTime()) ? d.toISOString().slice(0, 10) : null)

/** The /TAG/value fields of :86: information (its lines joined as the one text they are). */
export function structured86(info: string): Record<string, string> {
  const flat = info.replace(/\r?\n/g, '')
  const out: Record<string, string> = {}
  const re = /\/([A-Z]{2,4})\/(.*?)(?=\/[A-Z]{2,4}\/|$)/g
  for (const m of flat.matchAll(re)) if (out[m[1]] === undefined) out[m[1]] = m[2].trim()
  return out
}

/** Where each :61: line and each statement (:20:) starts. */
function scan(text: string, file: string): {lines61: number[]; lines20: number[]} {
  const lines61: number[] = []
  const lines20: number[] = []
  const all = text.split('\n')
  all.forEach((raw, i) => {
    if (raw.length > MAX_BANK_FILE_LINE) throw malformed(file, 'MT940', i + 1, 'line', `longer than ${MAX_BANK_FILE_LINE} characters`)
    if (raw.startsWith(':61:')) lines61.push(i + 1)
    if (raw.startsWith(':20:')) lines20.push(i + 1)
  })
  if (lines20.length === 0) throw malformed(file, 'MT940', null, ':20: transaction reference', 'the file has no statement (no :20: tag)')
  return {lines61, lines20}
}

function parseAll(text: string, file: string, lines20: number[]): SwiftStatement[] {
  try {
    return swift.parse({type: 'mt940', data: text, validate: true}) as SwiftStatement[]
  } catch (err) {
    const why = (err as Error).message
    const group = /in group (\d+)/.exec(why)
    const at = group ? (lines20[Number(group[1]) - 1] ?? null) : null
    throw malformed(file, 'MT940', at, group ? `statement ${group[1]}` : 'statement', why)
  }
}

/** Reads an MT940 file; one line naming the tag and line when it is not well formed. */
export function readMt940(text: string, file: string): BankFile {
  const {lines61, lines20} = scan(text, file)
  const statements = parseAll(text, file, lines20)
  const count = statements.reduce((n, s) => n + s.transactions.length, 0)
  if (count !== lines61.length) throw malformed(file, 'MT940', lines61[count] ?? null, ':61: statement line', 'not a statement line the parser reads (date, D/C mark, amount, type)')
  const accounts = new Map<string, BankFileAccount>()
  const lines = new Map<string, BankFileLine[]>()
  const ids: string[] = []
  let k = 0
  statements.forEach((s, si) => {
    const stId = `${s.transactionReference}${s.number.statement ? `-${s.number.statement}` : ''}${s.number.sequence ? `-${s.number.sequence}` : ''}`
    ids.push(stId)
    let currency: string
    try {
      currency = normalizeCurrency(s.currency)
    } catch {
      throw malformed(file, 'MT940', lines20[si] ?? null, ':60F: opening balance', `currency "${String(s.currency).slice(0, 10)}" is not an ISO 4217 code`)
    }
    const number = s.accountIdentification.trim()
    const acct = accounts.get(number) ?? {number, currency, lines: 0, from: null, to: null, opening_balance_in_minor_units: null, closing_balance_in_minor_units: null}
    if (acct.currency !== currency) throw malformed(file, 'MT940', lines20[si] ?? null, ':25: account', `account ${number} is reported in ${acct.currency} and in ${currency}`)
    accounts.set(number, acct)
    const balance = (a: SwiftAmount, tag: string) => {
      const v = decimalToMinor(a.toFixed(), currency, '.')
      if (typeof v === 'string') throw malformed(file, 'MT940', lines20[si] ?? null, tag, v)
      return v
    }
    acct.opening_balance_in_minor_units ??= balance(s.openingBalance, ':60F: opening balance')
    acct.closing_balance_in_minor_units = balance(s.closingBalance, ':62F: closing balance')
    const out = lines.get(number) ?? []
    lines.set(number, out)
    for (const t of s.transactions) {
      const line = lines61[k++]
      const v = decimalToMinor(t.amount.toFixed(), currency, '.')
      if (typeof v === 'string') throw malformed(file, 'MT940', line, ':61: statement line', v)
      const day = dayOf(t.entryDate) ?? dayOf(t.date)
      if (!day) throw malformed(file, 'MT940', line, ':61: statement line', 'no valid date')
      const direction = v < 0 ? 'debit' : 'credit'
      const info = (t.detailSegments ?? []).join('\n')
      const tags = structured86(info)
      const custRef = t.reference && t.reference.toUpperCase() !== 'NONREF' ? t.reference : ''
      acct.lines++
      widen(acct, day)
      out.push({
        id: keyId(tags.TRID || t.bankReference || custRef || `${stId}-L${line}`),
        transaction_date: day,
        direction,
        amount_in_minor_units: Math.abs(v),
        currency_code: currency,
        sender_info: direction === 'credit' ? fileText(tags.ORDP ?? tags.NAME, 200) : null,
        receiver_info: direction === 'debit' ? fileText(tags.BENM ?? tags.NAME, 200) : null,
        description: fileText(tags.REMI ?? (Object.keys(tags).length === 0 ? info : null) ?? t.extraDetails ?? null),
      })
    }
  })
  return {format: 'mt940', statement_id: ids.join('+'), accounts: [...accounts.values()], lines: (n: string) => lines.get(n) ?? [], release: () => lines.clear()}
}
