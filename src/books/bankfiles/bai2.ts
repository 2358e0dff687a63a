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
import type {BankFile, BankFileAccount, BankFileLine} from './types.js'
import {digitsToMinor, keyId, malformed, widen} from './types.js'
import {Bai2Error, CREDIT, DEBIT, amount, counterparty, currencyOf, day, fail, fundsExtra, records, type Rec} from './bai2-records.js'

interface Walk {
  statementId: string
  accounts: Map<string, BankFileAccount>
}

type Group = {recs: number; total: bigint; accounts: number; currency: string; date: string}
type Account = {recs: number; total: bigint; acct: BankFileAccount}

/** Where a walk stands: the file's, the group's and the account's running totals and counts. */
class Walker implements Walk {
  statementId = ''
  accounts = new Map<string, BankFileAccount>()
  fileRecs = 0
  fileTotal = 0n
  groups = 0
  group: Group | null = null
  account: Account | null = null
  done = false

  header(r: Rec, recs: number): void {
    if (this.fileRecs !== recs) fail(r, 'a second file header')
    const [, sender, , created, , fileId] = r.fields
    if (!sender || !fileId || !created) fail(r, 'sender, creation date and file id are required')
    day(r, created, 'the creation date')
    if (r.fields[8] !== undefined && r.fields[8] !== '' && r.fields[8] !== '2') fail(r, `version ${r.fields[8]} is not BAI version 2`)
    this.statementId = `${sender}/${created}/${fileId}`
  }

  openGroup(r: Rec, recs: number): void {
    if (this.group) fail(r, 'a group header inside a group (98 group trailer missing)')
    this.groups++
    this.group = {recs, total: 0n, accounts: 0, currency: currencyOf(r, r.fields[6] ?? '', 'USD'), date: day(r, r.fields[4] ?? '', 'the as-of date')}
  }

  openAccount(r: Rec, recs: number): void {
    const group = this.group ?? fail(r, 'an account outside a group')
    if (this.account) fail(r, 'an account inside an account (49 account trailer missing)')
    const number = r.fields[1] ?? ''
    if (number === '') fail(r, 'the account number is empty')
    const currency = currencyOf(r, r.fields[2] ?? '', group.currency)
    const acct = this.accounts.get(number) ?? {number, currency, lines: 0, from: null, to: null, opening_balance_in_minor_units: null, closing_balance_in_minor_units: null}
    if (acct.currency !== currency) fail(r, `account ${number} is reported in ${acct.currency} and in ${currency}`)
    this.accounts.set(number, acct)
    const account = (this.account = {recs, total: 0n, acct})
    group.accounts++
    for (let i = 3; i < r.fields.length; ) {
      const code = r.fields[i]
      const v = amount(r, r.fields[i + 1] ?? '', `the amount of type ${code}`, true)
      account.total += v
      if (code === '010' && acct.opening_balance_in_minor_units === null) acct.opening_balance_in_minor_units = checked(r, v)
      if (code === '015') acct.closing_balance_in_minor_units = checked(r, v)
      i += 4 + (code === '' ? 0 : fundsExtra(r, r.fields, i + 3))
    }
  }

  /** The amount of the transaction detail last counted. */
  private amount = 0n

  /** A transaction detail, checked and counted. */
  detail(r: Rec): void {
    const account = this.account ?? fail(r, 'a transaction outside an account')
    const code = r.fields[1]
    if (!/^\d{3}$/.test(code) || Number(code) < 100) fail(r, `type code "${code.slice(0, 6)}" is not a detail type code (100-999)`)
    this.amount = amount(r, r.fields[2], 'the amount', false)
    account.total += this.amount
    account.acct.lines++
    widen(account.acct, this.group!.date)
  }

  /** The id of the transaction detail just counted. */
  idOf(r: Rec): string {
    const [bankRef, custRef] = r.fields.slice(-2)
    return keyId(bankRef || custRef || `${this.statementId}-${r.line}`)
  }

  /** The transaction detail just counted, as a bank line. */
  lineOf(r: Rec): BankFileLine {
    const acct = this.account!.acct
    const c = Number(r.fields[1])
    const direction = CREDIT(c) ? 'credit' : DEBIT(c) ? 'debit' : null
    const cp = counterparty(r.text)
    return {
      id: this.idOf(r),
      transaction_date: this.group!.date,
      direction,
      amount_in_minor_units: checked(r, this.amount),
      currency_code: acct.currency,
      sender_info: cp.tag === 'ORIG' || (cp.tag && direction === 'credit') ? cp.name : null,
      receiver_info: cp.tag === 'BNF' || (cp.tag && direction === 'debit') ? cp.name : null,
      description: cp.description,
    }
  }

  closeAccount(r: Rec): void {
    const account = this.account ?? fail(r, 'an account trailer outside an account')
    trailer(r, account.total, account.recs, 2)
    this.group!.total += account.total
    this.account = null
  }

  closeGroup(r: Rec): void {
    const group = this.group ?? fail(r, 'a group trailer outside a group')
    if (this.account) fail(r, 'the group ends inside an account (49 account trailer missing)')
    trailer(r, group.total, group.recs, 3)
    if (Number(r.fields[2]) !== group.accounts) fail(r, `says ${r.fields[2]} accounts, the group has ${group.accounts}`)
    this.fileTotal += group.total
    this.group = null
  }

  closeFile(r: Rec): void {
    if (this.group) fail(r, 'the file ends inside a group (98 group trailer missing)')
    trailer(r, this.fileTotal, this.fileRecs, 3)
    if (Number(r.fields[2]) !== this.groups) fail(r, `says ${r.fields[2]} groups, the file has ${this.groups}`)
    this.done = true
  }
}

/**
 * One pass over the file: every record checked, every trailer's totals and counts compared; each
 * transaction detail yielded, as it is read, with where the walk stands.
 */
function* walk(text: string): Generator<[Walker, Rec], Walk> {
  const w = new Walker()
  let first = true
  for (const r of records(text)) {
    const recs = 1 + r.more
    w.fileRecs += recs
    if (first && r.type !== '01') fail(r, 'a BAI2 file begins with an 01 file header')
    first = false
    if (w.group) w.group.recs += recs
    if (w.account) w.account.recs += recs
    if (r.type === '01') w.header(r, recs)
    else if (r.type === '02') w.openGroup(r, recs)
    else if (r.type === '03') w.openAccount(r, recs)
    else if (r.type === '16') {
      w.detail(r)
      yield [w, r]
    } else if (r.type === '49') w.closeAccount(r)
    else if (r.type === '98') w.closeGroup(r)
    else if (r.type === '99') w.closeFile(r)
  }
  if (first) throw new Bai2Error(1, 'record', 'the file is empty')
  if (!w.done) throw new Bai2Error(text.split('\n').length, 'end of file', 'the 99 file trailer is missing: the file is cut short')
  return {statementId: w.statementId, accounts: w.accounts}
}

/** Runs a walk to its end, handing each transaction detail to `each`; what the file holds. */
function walkAll(text: string, each: (w: Walker, r: Rec) => void): Walk {
  const it = walk(text)
  for (;;) {
    const step = it.next()
    if (step.done) return step.value
    each(...step.value)
  }
}

/** FNV-1a: a 32-bit hash of a line id, to find ids given twice without holding every id. */
function hash32(s: string): number {
  let h = 0x811c9dc5
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193)
  return h >>> 0
}

/**
 * The ids that two or more lines share (a bank reference given twice names neither line alone).
 * Every id's hash goes into a typed array (4 bytes a line) as the file is checked; only ids whose
 * hash repeats are then compared as text.
 */
function checkWhole(text: string): {result: Walk; shared: Set<string>} {
  let hashes = new Uint32Array(1024)
  let n = 0
  const result = walkAll(text, (w, r) => {
    if (n === hashes.length) {
      const more = new Uint32Array(n * 2)
      more.set(hashes)
      hashes = more
    }
    hashes[n++] = hash32(w.idOf(r))
  })
  const sorted = hashes.subarray(0, n).sort()
  const repeated = new Set<number>()
  for (let i = 1; i < n; i++) if (sorted[i] === sorted[i - 1]) repeated.add(sorted[i])
  const shared = new Set<string>()
  if (repeated.size === 0) return {result, shared}
  const seen = new Set<string>()
  walkAll(text, (w, r) => {
    const id = w.idOf(r)
    if (!repeated.has(hash32(id))) return
    if (seen.has(id)) shared.add(id)
    else seen.add(id)
  })
  return {result, shared}
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

/** Reads a BAI2 file; a one-line usage error naming the record and line when it is not well formed. */
export function readBai2(whole: string, file: string): BankFile {
  let text = whole
  const refuse = (err: unknown): never => {
    if (err instanceof Bai2Error) throw malformed(file, 'BAI2', err.line, err.record, err.message)
    throw err
  }
  let checked: {result: Walk; shared: Set<string>}
  try {
    checked = checkWhole(whole)
  } catch (err) {
    return refuse(err)
  }
  const {result, shared: twice} = checked
  return {
    format: 'bai2',
    statement_id: result.statementId,
    accounts: [...result.accounts.values()],
    *lines(number: string) {
      try {
        for (const [w, r] of walk(text)) {
          if (w.account!.acct.number !== number) continue
          const l = w.lineOf(r)
          yield twice.has(l.id) ? {...l, id: keyId(`${l.id}-L${r.line}`)} : l
        }
      } catch (err) {
        refuse(err)
      }
    },
    release() {
      text = ''
    },
  }
}
