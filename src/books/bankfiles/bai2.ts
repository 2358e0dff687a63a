/**
 * BAI2 (the Bank Administration Institute's cash management balance reporting format, version 2)
 * in: no BAI2 reader is published on the npm registry, so this one is payops' own, written to the
 * 2005 specification and checked against it strictly (a file the bank sends is whole or refused).
 *
 * Records: 01 file header, 02 group header (as-of date, currency), 03 account identifier (number,
 * currency, summary and status amounts: 010 opening ledger, 015 closing ledger), 16 transaction
 * detail, 88 continuation, 49 account trailer, 98 group trailer, 99 file trailer. Every trailer's
 * control total and record count is checked. A 16 record's day is its group's as-of date; its
 * direction comes from its type code (100-399 credit, 400-699 debit, others unknown); its amount
 * is in the currency's minor units (BAI2 amounts carry no decimal point); its id is the bank
 * reference, else the customer reference, else the file's id and the line. Counterparties are read
 * from the text when tagged `ORIG:` (who sent a credit) or `BNF:` (who was paid by a debit).
 *
 * The file is read twice, without keeping its lines: once to check it whole, once to hand the
 * lines of the account reconciled to the matching, so a 100,000-line file costs no more memory
 * than its text.
 */
import {normalizeCurrency} from '../../money.js'
import type {BankFile, BankFileAccount, BankFileLine} from './types.js'
import {MAX_BANK_FILE_LINE, digitsToMinor, fileText, keyId, malformed, widen} from './types.js'

const NAMES: Record<string, string> = {'01': 'file header', '02': 'group header', '03': 'account identifier', '16': 'transaction detail', '49': 'account trailer', '88': 'continuation', '98': 'group trailer', '99': 'file trailer'}

interface Rec {
  type: string
  line: number
  fields: string[]
  /** A 16 record's text, with its continuations. */
  text: string
  /** How many 88 continuations it has. */
  more: number
}

class Bai2Error extends Error {
  constructor(
    readonly line: number,
    readonly record: string,
    why: string,
  ) {
    super(why)
  }
}

const fail = (r: {line: number; type: string}, why: string): never => {
  throw new Bai2Error(r.line, `${r.type} ${NAMES[r.type] ?? 'record'}`, why)
}

/** How many fields follow a funds type before the next field. */
function fundsExtra(r: Rec, fields: string[], at: number): number {
  const f = (fields[at] ?? '').trim().toUpperCase()
  if (f === '' || f === '0' || f === '1' || f === '2' || f === 'Z') return 0
  if (f === 'V') return 2
  if (f === 'S') return 3
  if (f === 'D') {
    const n = Number(fields[at + 1])
    if (!/^\d+$/.test((fields[at + 1] ?? '').trim())) fail(r, `funds type D without a count of distributions`)
    return 1 + 2 * n
  }
  return fail(r, `unknown funds type "${f}"`)
}

/** A 16 record: type code, amount, funds type and its fields, bank reference, customer reference, then the text. */
function split16(r: Rec, raw: string): void {
  const parts = raw.split(',')
  // A record may end early with "/" (never inside the text): the fields left out are empty.
  const cut = (limit: number): boolean => {
    for (let i = 1; i < Math.min(parts.length, limit); i++) {
      const k = parts[i].indexOf('/')
      if (k >= 0) {
        parts[i] = parts[i].slice(0, k)
        parts.length = i + 1
        return true
      }
    }
    return false
  }
  let ended = cut(4)
  if (parts.length < 3) fail(r, 'too few fields')
  const fixed = 6 + fundsExtra(r, parts, 3)
  ended = ended || cut(fixed)
  if (parts.length < fixed) {
    if (!ended) fail(r, 'too few fields (its references must be on the record itself)')
    while (parts.length < fixed) parts.push('')
  }
  r.fields = parts.slice(0, fixed).map((s) => s.trim())
  r.text = parts.slice(fixed).join(',').replace(/\s+$/, '').replace(/\/$/, '')
}

/** Logical records, continuations joined; physical lines checked for length. */
function* records(text: string): Generator<Rec> {
  let cur: Rec | undefined
  let n = 0
  let start = 0
  let ended = false
  while (start <= text.length) {
    let end = text.indexOf('\n', start)
    if (end === -1) end = text.length
    n++
    const raw = text.slice(start, end).replace(/\r$/, '').replace(/\s+$/, '')
    start = end + 1
    if (raw.length > MAX_BANK_FILE_LINE) throw new Bai2Error(n, 'record', `longer than ${MAX_BANK_FILE_LINE} characters`)
    if (raw === '') {
      if (end === text.length) break
      continue
    }
    if (ended) throw new Bai2Error(n, 'record', 'something follows the 99 file trailer')
    const type = raw.slice(0, 2)
    if (raw[2] !== ',' || !NAMES[type]) throw new Bai2Error(n, 'record', `"${raw.slice(0, 12)}" does not start with a BAI2 record code (01, 02, 03, 16, 49, 88, 98, 99) and a comma`)
    if (type === '88') {
      if (!cur) throw new Bai2Error(n, '88 continuation', 'continues nothing')
      const more = raw.slice(3)
      if (cur.type === '16') cur.text = `${cur.text} ${more.replace(/\/$/, '')}`.trim()
      else cur.fields.push(...more.replace(/\/.*$/, '').split(',').map((s) => s.trim()))
      cur.more++
      continue
    }
    if (cur) yield cur
    cur = {type, line: n, fields: [], text: '', more: 0}
    if (type === '16') split16(cur, raw)
    else {
      if (!raw.includes('/')) fail(cur, 'does not end with "/"')
      cur.fields = raw.replace(/\/.*$/, '').split(',').map((s) => s.trim())
    }
    if (type === '99') ended = true
  }
  if (cur) yield cur
}

const CREDIT = (code: number) => code >= 100 && code <= 399
const DEBIT = (code: number) => code >= 400 && code <= 699

function day(r: Rec, yymmdd: string, what: string): string {
  const m = /^(\d{2})(\d{2})(\d{2})$/.exec(yymmdd)
  const s = m ? `20${m[1]}-${m[2]}-${m[3]}` : ''
  const d = new Date(`${s}T00:00:00Z`)
  if (!m || Number.isNaN(d.getTime()) || !d.toISOString().startsWith(s)) fail(r, `${what} "${yymmdd}" is not a date YYMMDD`)
  return s
}

function amount(r: Rec, raw: string, what: string, signed: boolean): bigint {
  const s = raw.trim()
  if (s === '') return 0n
  if (!(signed ? /^[+-]?\d+$/ : /^\d+$/).test(s)) fail(r, `${what} "${s.slice(0, 30)}" is not a whole number of minor units`)
  return BigInt(s)
}

function currencyOf(r: Rec, code: string, fallback: string): string {
  if (code.trim() === '') return fallback
  try {
    return normalizeCurrency(code)
  } catch {
    return fail(r, `currency "${code.slice(0, 10)}" is not an ISO 4217 code`)
  }
}

function counterparty(text: string): {description: string | null; tag: 'ORIG' | 'BNF' | null; name: string | null} {
  const m = /(?:^|[;\s])(ORIG|BNF):\s*([^;]*)/i.exec(text)
  if (!m) return {description: fileText(text), tag: null, name: null}
  const rest = (text.slice(0, m.index) + text.slice(m.index + m[0].length)).replace(/^;\s*|;\s*$/g, '')
  return {description: fileText(rest), tag: m[1].toUpperCase() as 'ORIG' | 'BNF', name: fileText(m[2], 200)}
}

interface Walk {
  statementId: string
  accounts: Map<string, BankFileAccount>
}

/**
 * One pass over the file: every record checked, every trailer's totals and counts compared; with
 * `withLines`, each transaction detail yielded with its account and record as it is read.
 */
function* walk(text: string, withLines: boolean): Generator<[string, BankFileLine, Rec], Walk> {
  const accounts = new Map<string, BankFileAccount>()
  let statementId = ''
  let fileRecs = 0
  let fileTotal = 0n
  let groups = 0
  let group: {recs: number; total: bigint; accounts: number; currency: string; date: string} | null = null
  let account: {recs: number; total: bigint; acct: BankFileAccount} | null = null
  let first = true
  let done = false
  for (const r of records(text)) {
    const recs = 1 + r.more
    fileRecs += recs
    if (first && r.type !== '01') fail(r, 'a BAI2 file begins with an 01 file header')
    first = false
    if (group) group.recs += recs
    if (account) account.recs += recs
    switch (r.type) {
      case '01': {
        if (fileRecs !== recs) fail(r, 'a second file header')
        const [, sender, , created, , fileId] = r.fields
        if (!sender || !fileId || !created) fail(r, 'sender, creation date and file id are required')
        day(r, created, 'the creation date')
        if (r.fields[8] !== undefined && r.fields[8] !== '' && r.fields[8] !== '2') fail(r, `version ${r.fields[8]} is not BAI version 2`)
        statementId = `${sender}/${created}/${fileId}`
        break
      }
      case '02': {
        if (group) fail(r, 'a group header inside a group (98 group trailer missing)')
        groups++
        group = {recs, total: 0n, accounts: 0, currency: currencyOf(r, r.fields[6] ?? '', 'USD'), date: day(r, r.fields[4] ?? '', 'the as-of date')}
        break
      }
      case '03': {
        if (!group) fail(r, 'an account outside a group')
        if (account) fail(r, 'an account inside an account (49 account trailer missing)')
        const number = r.fields[1] ?? ''
        if (number === '') fail(r, 'the account number is empty')
        const currency = currencyOf(r, r.fields[2] ?? '', group!.currency)
        const acct = accounts.get(number) ?? {number, currency, lines: 0, from: null, to: null, opening_balance_in_minor_units: null, closing_balance_in_minor_units: null}
        if (acct.currency !== currency) fail(r, `account ${number} is reported in ${acct.currency} and in ${currency}`)
        accounts.set(number, acct)
        account = {recs, total: 0n, acct}
        group!.accounts++
        for (let i = 3; i < r.fields.length; ) {
          const code = r.fields[i]
          const v = amount(r, r.fields[i + 1] ?? '', `the amount of type ${code}`, true)
          account.total += v
          if (code === '010' && acct.opening_balance_in_minor_units === null) acct.opening_balance_in_minor_units = checked(r, v)
          if (code === '015') acct.closing_balance_in_minor_units = checked(r, v)
          i += 4 + (code === '' ? 0 : fundsExtra(r, r.fields, i + 3))
        }
        break
      }
      case '16': {
        if (!account) fail(r, 'a transaction outside an account')
        const code = r.fields[1]
        if (!/^\d{3}$/.test(code) || Number(code) < 100) fail(r, `type code "${code.slice(0, 6)}" is not a detail type code (100-999)`)
        const v = amount(r, r.fields[2], 'the amount', false)
        account!.total += v
        const acct = account!.acct
        acct.lines++
        widen(acct, group!.date)
        if (withLines) {
          const c = Number(code)
          const direction = CREDIT(c) ? 'credit' : DEBIT(c) ? 'debit' : null
          const bankRef = r.fields[r.fields.length - 2]
          const custRef = r.fields[r.fields.length - 1]
          const cp = counterparty(r.text)
          yield [acct.number, {
            id: keyId(bankRef || custRef || `${statementId}-${r.line}`),
            transaction_date: group!.date,
            direction,
            amount_in_minor_units: checked(r, v),
            currency_code: acct.currency,
            sender_info: cp.tag === 'ORIG' || (cp.tag && direction === 'credit') ? cp.name : null,
            receiver_info: cp.tag === 'BNF' || (cp.tag && direction === 'debit') ? cp.name : null,
            description: cp.description,
          }, r]
        }
        break
      }
      case '49': {
        if (!account) fail(r, 'an account trailer outside an account')
        trailer(r, account!.total, account!.recs, 2)
        group!.total += account!.total
        account = null
        break
      }
      case '98': {
        if (!group) fail(r, 'a group trailer outside a group')
        if (account) fail(r, 'the group ends inside an account (49 account trailer missing)')
        trailer(r, group!.total, group!.recs, 3)
        if (Number(r.fields[2]) !== group!.accounts) fail(r, `says ${r.fields[2]} accounts, the group has ${group!.accounts}`)
        fileTotal += group!.total
        group = null
        break
      }
      case '99': {
        if (group) fail(r, 'the file ends inside a group (98 group trailer missing)')
        trailer(r, fileTotal, fileRecs, 3)
        if (Number(r.fields[2]) !== groups) fail(r, `says ${r.fields[2]} groups, the file has ${groups}`)
        done = true
        break
      }
    }
  }
  if (first) throw new Bai2Error(1, 'record', 'the file is empty')
  if (!done) throw new Bai2Error(text.split('\n').length, 'end of file', 'the 99 file trailer is missing: the file is cut short')
  return {statementId, accounts}
}

function checked(r: Rec, v: bigint): number {
  const n = digitsToMinor(v.toString())
  return typeof n === 'string' ? fail(r, n) : n
}

function trailer(r: Rec, total: bigint, recs: number, countAt: number): void {
  const said = amount(r, r.fields[1] ?? '', 'the control total', true)
  if (said !== total) fail(r, `control total ${said} does not equal the sum of the amounts it covers, ${total}`)
  const n = r.fields[countAt] ?? ''
  if (!/^\d+$/.test(n) || Number(n) !== recs) fail(r, `says ${n || 'no'} records, there are ${recs}`)
}

/** Runs a walk to its end and gives what it returns. */
function finish(it: Generator<[string, BankFileLine, Rec], Walk>): Walk {
  for (;;) {
    const step = it.next()
    if (step.done) return step.value
  }
}

/** Reads a BAI2 file; a one-line usage error naming the record and line when it is not well formed. */
export function readBai2(text: string, file: string): BankFile {
  const refuse = (err: unknown): never => {
    if (err instanceof Bai2Error) throw malformed(file, 'BAI2', err.line, err.record, err.message)
    throw err
  }
  let result: Walk
  // A bank reference given to two lines names neither alone: each such line is told by its line too.
  const seen = new Set<string>()
  const twice = new Set<string>()
  try {
    const it = walk(text, true)
    for (;;) {
      const step = it.next()
      if (step.done) {
        result = step.value
        break
      }
      const id = step.value[1].id
      if (seen.has(id)) twice.add(id)
      else seen.add(id)
    }
  } catch (err) {
    return refuse(err)
  }
  seen.clear()
  return {
    format: 'bai2',
    statement_id: result.statementId,
    accounts: [...result.accounts.values()],
    *lines(number: string) {
      try {
        for (const [a, l, r] of walk(text, true)) {
          if (a !== number) continue
          yield twice.has(l.id) ? {...l, id: keyId(`${l.id}-L${r.line}`)} : l
        }
      } catch (err) {
        refuse(err)
      }
    },
  }
}

/** Checks a BAI2 file whole without reading its lines into objects (the bench's and the sniffer's cheap pass). */
export function checkBai2(text: string): Walk {
  return finish(walk(text, false))
}
