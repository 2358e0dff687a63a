import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, beforeEach, describe, expect, it} from 'vitest'
import {expectNothingSent, expectOnlyRequests, runAs, startEmulator, tempDir, type Emulator} from '../support/index.js'
import {readBai2ForTest} from '../support/bai2.js'

let emu: Emulator
let main: string
let reserve: string
let reserveLabel: string
let four: string
let dir: {path: string; cleanup(): void}
const ids: Record<string, string> = {}
const lines: Record<string, string> = {}

const PERIOD = ['--from', '2026-03-01', '--to', '2026-03-31']

async function accounts(): Promise<any[]> {
  const r = await runAs(emu, 'test', ['treasury', 'accounts', 'list', '--all'])
  expect(r.code, r.stderr).toBe(0)
  return r.json()
}
async function transfer(args: string[]): Promise<any> {
  const r = await runAs(emu, 'test', ['transfers', 'create', ...args, '-o', 'json'])
  expect(r.code, r.stderr).toBe(0)
  return r.json()
}
const settle = (id: string) => emu.control('POST', `/_emulator/transfers/${id}/advance`, {status: 'settled'})
const hand = async (body: Record<string, unknown>): Promise<string> => (await emu.control('POST', '/_emulator/bank-lines', body)).data.id

/**
 * March 2026 on the main account, every kind: a wire the bank reported the same day, a standard
 * ACH it reported two days later, a fee nobody announced, a settled transfer it never reported in
 * the window, a wire still initiated, a wire it booked for another amount, and a credit for a
 * subaccount (a bank line nothing on the account announced).
 */
async function scenario() {
  await emu.control('POST', '/_emulator/bank-feed', {entity: 'test', enabled: true, fee_rate: 0, seed: 1})
  const sub = (await emu.control('GET', '/_emulator/entities')).data.find((e: any) => e.role === 'test').subaccount_ids[0]
  const wire = (amount: number, day: string, rail = 'wire') =>
    transfer(['--from', main, '--to', reserve, '--amount-minor', String(amount), '--currency', 'USD', '--rail', rail, '--scheduled-date', day])
  ids.wire = (await wire(10_000, '2026-03-02')).id
  await settle(ids.wire)
  ids.ach = (await wire(20_000, '2026-03-09', 'standard_ach')).id
  await settle(ids.ach)
  lines.fee = await hand({account_id: main, amount_in_minor_units: 1500, direction: 'debit', description: 'SERVICE FEE', transaction_date: '2026-03-12'})
  ids.unreported = (await wire(30_000, '2026-03-20')).id
  await emu.control('POST', '/_emulator/bank-feed', {entity: 'test', enabled: false})
  await settle(ids.unreported)
  await emu.control('POST', '/_emulator/bank-feed', {entity: 'test', enabled: true, fee_rate: 0, seed: 1})
  ids.stuck = (await wire(50_000, '2026-03-25')).id
  ids.short = (await wire(40_000, '2026-03-16')).id
  lines.short = await hand({account_id: main, amount_in_minor_units: 39_000, direction: 'debit', receiver_info: reserveLabel, transaction_date: '2026-03-16'})
  const credit = await runAs(emu, 'test', ['treasury', 'simulate-credit', main, '--rail', 'wire', '--amount-minor', '5000', '--subaccount', sub, '--transaction-date', '2026-03-18', '-o', 'json'])
  expect(credit.code, credit.stderr).toBe(0)
  lines.credit = credit.json().bank_transaction_id
}

beforeAll(async () => {
  emu = await startEmulator()
})
beforeEach(async () => {
  await emu.reset()
  const list = await accounts()
  const m = list.find((a) => a.label === 'Main operating account')
  main = m.id
  four = m.last_four_digits
  const r = list.find((a) => a.currency_code === 'USD' && a.id !== main)
  reserve = r.id
  reserveLabel = r.label
  dir?.cleanup()
  dir = tempDir('payops-bankfiles-')
})
afterAll(async () => {
  dir?.cleanup()
  await emu?.stop()
})

const statementRun = (args: string[]) => runAs(emu, 'test', ['report', 'statement', ...args])
const reconcileRun = (args: string[], opts: Parameters<typeof runAs>[3] = {}) => runAs(emu, 'test', ['reconcile', ...args], opts)

/** March's statement of the main account in a format, as a file. */
async function statementFile(format: string, name = `march.${format}`): Promise<{path: string; text: string}> {
  const r = await statementRun(['--account', main, '--month', '2026-03', '--format', format])
  expect(r.code, r.stderr).toBe(0)
  const path = join(dir.path, name)
  writeFileSync(path, r.stdout)
  return {path, text: r.stdout}
}
function write(name: string, text: string): string {
  const path = join(dir.path, name)
  writeFileSync(path, text)
  return path
}
const exceptions = (report: any) => report.items.filter((i: any) => i.exception).map((i: any) => i.key).sort()
const errorLines = (stderr: string) => stderr.trim().split('\n')

describe('report statement: the bank\'s formats, read back by parsers payops did not write', () => {
  it('bai2: every line and both balances, as the statement gives them; control totals and counts hold', async () => {
    await scenario()
    const json = (await statementRun(['--account', main, '--month', '2026-03', '-o', 'json'])).json()
    const {text} = await statementFile('bai2')
    const file = readBai2ForTest(text)
    expect(file.accounts).toHaveLength(31)
    expect(file.accounts.every((a) => a.number === four && a.currency === 'USD')).toBe(true)
    expect(file.accounts[0]).toMatchObject({asOf: '260301'})
    expect(file.accounts[0].amounts['010']).toBe(BigInt(json.opening_balance_in_minor_units))
    expect(file.accounts[30].amounts['015']).toBe(BigInt(json.closing_balance_in_minor_units))
    const details = file.accounts.flatMap((a) => a.details.map((d) => ({...d, asOf: a.asOf})))
    expect(details.map((d) => d.bankReference).sort()).toEqual(json.lines.map((l: any) => l.id).sort())
    for (const l of json.lines) {
      const d = details.find((x) => x.bankReference === l.id)!
      expect(d.amount).toBe(BigInt(l.amount_in_minor_units))
      expect(d.asOf).toBe(l.date.slice(2, 10).replace(/-/g, ''))
      expect(Number(d.typeCode) < 400 ? 'credit' : 'debit').toBe(l.direction)
    }
    expect(details.find((d) => d.bankReference === lines.fee)!.typeCode).toBe('698')
    expect(details.find((d) => d.bankReference === lines.short)!.text).toMatch(new RegExp(`; BNF: ${reserveLabel.replace(/[()]/g, '\\$&')}$`))
  })

  it('camt053: a camt.053 reader finds every entry, exact amounts and the opening and closing balances', async () => {
    await scenario()
    const {parseCamt053} = await import('camt-parser')
    const json = (await statementRun(['--account', main, '--month', '2026-03', '-o', 'json'])).json()
    const {text} = await statementFile('camt053')
    expect(text).toContain('urn:iso:std:iso:20022:tech:xsd:camt.053.001.08')
    const doc = await parseCamt053(text)
    expect(doc.statements).toHaveLength(1)
    const st = doc.statements[0]
    expect(st.account.currency).toBe('USD')
    const bal = (code: string) => st.balances.find((b: any) => b.type === code)!
    const signed = (b: any) => Math.round(Number(b.amount.value) * 100) * (b.creditDebitIndicator === 'DBIT' ? -1 : 1)
    expect(signed(bal('OPBD'))).toBe(json.opening_balance_in_minor_units)
    expect(signed(bal('CLBD'))).toBe(json.closing_balance_in_minor_units)
    expect(bal('OPBD').date).toBe('2026-03-01')
    expect(st.transactions).toHaveLength(json.lines.length)
    const byRef = new Map(st.transactions.map((t: any) => [t.accountServicerReference, t]))
    for (const l of json.lines) {
      const t: any = byRef.get(l.id.replace(/-/g, ''))
      expect(t, l.id).toBeDefined()
      expect(t.amount).toEqual({currency: 'USD', value: (l.amount_in_minor_units / 100).toFixed(2)})
      expect(t.creditDebitIndicator).toBe(l.direction === 'credit' ? 'CRDT' : 'DBIT')
      expect(t.bookingDate).toBe(l.date)
      expect(t.status).toBe('BOOK')
    }
    const short: any = byRef.get(lines.short.replace(/-/g, ''))
    expect(short.details[0].relatedParties.creditor.name).toBe(reserveLabel)
  })

  it('mt940: an MT940 parser reads the statement, its balance check passes, every line and its id', async () => {
    await scenario()
    const mt940 = await import('mt940js')
    const json = (await statementRun(['--account', main, '--month', '2026-03', '-o', 'json'])).json()
    const {text} = await statementFile('mt940')
    const [st] = new mt940.Parser().parse(text)
    expect(st.accountIdentification).toBe(four)
    expect(st.currency).toBe('USD')
    expect(Math.round(st.openingBalance * 100)).toBe(json.opening_balance_in_minor_units)
    expect(Math.round(st.closingBalance * 100)).toBe(json.closing_balance_in_minor_units)
    expect(st.openingBalanceDate.toISOString().slice(0, 10)).toBe('2026-03-01')
    expect(st.transactions.map((t: any) => t.structuredDetails.TRID).sort()).toEqual(json.lines.map((l: any) => l.id).sort())
    for (const l of json.lines) {
      const t = st.transactions.find((x: any) => x.structuredDetails.TRID === l.id)
      expect(Math.round(t.amount * 100)).toBe(l.signed_amount_in_minor_units)
      expect(t.date.toISOString().slice(0, 10)).toBe(l.date)
    }
    expect(st.transactions.find((x: any) => x.structuredDetails.TRID === lines.short).structuredDetails.BENM).toBe(reserveLabel)
  })

  it('a subaccount\'s month in each format: its account number, and the balances -o json gives', async () => {
    await scenario()
    const sub = (await emu.control('GET', '/_emulator/entities')).data.find((e: any) => e.role === 'test').subaccount_ids[0]
    const args = ['--subaccount', sub, '--month', '2026-03']
    const json = (await statementRun([...args, '-o', 'json'])).json()
    expect(json.lines.length).toBeGreaterThan(0)
    const number = json.account_number ?? sub.replace(/-/g, '')
    const out = async (format: string) => {
      const r = await statementRun([...args, '--format', format])
      expect(r.code, r.stderr).toBe(0)
      return r.stdout
    }
    const bai2 = readBai2ForTest(await out('bai2'))
    expect(bai2.accounts[0]).toMatchObject({number})
    expect([bai2.accounts[0].amounts['010'], bai2.accounts.at(-1)!.amounts['015']]).toEqual([BigInt(json.opening_balance_in_minor_units), BigInt(json.closing_balance_in_minor_units)])
    expect(bai2.accounts.flatMap((a) => a.details).map((d) => d.bankReference).sort()).toEqual(json.lines.map((l: any) => l.id).sort())
    const {parseCamt053} = await import('camt-parser')
    const camt = (await parseCamt053(await out('camt053'))).statements[0]
    expect(camt.transactions).toHaveLength(json.lines.length)
    expect(camt.balances.map((b: any) => Math.round(Number(b.amount.value) * 100) * (b.creditDebitIndicator === 'DBIT' ? -1 : 1))).toEqual([json.opening_balance_in_minor_units, json.closing_balance_in_minor_units])
    const mt940 = await import('mt940js')
    const [st] = new mt940.Parser().parse(await out('mt940'))
    expect(st.accountIdentification).toBe(number)
    expect([Math.round(st.openingBalance * 100), Math.round(st.closingBalance * 100)]).toEqual([json.opening_balance_in_minor_units, json.closing_balance_in_minor_units])
    expect(st.transactions).toHaveLength(json.lines.length)
  })

  it('a format with --columns or --query is refused (exit 2) before any request', async () => {
    for (const format of ['bai2', 'camt053', 'mt940']) {
      const r = await expectNothingSent(emu, () => statementRun(['--account', main, '--month', '2026-03', '--format', format, '--columns', 'id', '-o', 'table']))
      expect(r.code).toBe(2)
      expect(r.stderr).toContain(`--columns does not apply to a ${format} statement.`)
      const q = await expectNothingSent(emu, () => statementRun(['--account', main, '--month', '2026-03', '--format', format, '--query', 'lines', '-o', 'table']))
      expect(q.stderr).toContain(`--query does not apply to a ${format} statement.`)
    }
  })
})

describe('reconcile --statement', () => {
  it('from each format, the same kinds, keys and exceptions as from the API\'s bank lines; exit 9', async () => {
    await scenario()
    const api = await reconcileRun([main, ...PERIOD, '-o', 'json'])
    expect(api.code).toBe(9)
    const fromApi = api.json()
    expect(exceptions(fromApi)).toContain(`bank_only:${lines.fee}`)
    expect(exceptions(fromApi)).toContain(`amount_mismatch:${lines.short}:${ids.short}`)
    for (const format of ['bai2', 'camt053', 'mt940']) {
      const {path} = await statementFile(format)
      const r = await reconcileRun([main, ...PERIOD, '--statement', path, '-o', 'json'])
      expect(r.code, `${format}: ${r.stderr}`).toBe(9)
      expect(r.stderr).toMatch(/^Error: 5 exceptions on /)
      const report = r.json()
      expect(report.summary, format).toEqual(fromApi.summary)
      expect(exceptions(report), format).toEqual(exceptions(fromApi))
      expect(report.items.map((i: any) => [i.key, i.kind, i.amount_in_minor_units, i.date]), format).toEqual(fromApi.items.map((i: any) => [i.key, i.kind, i.amount_in_minor_units, i.date]))
      expect(report.bank_files).toEqual([expect.objectContaining({format: format === 'camt053' ? 'camt.053' : format, account: `…${four}`, counted: true})])
    }
  })

  it('without --from and --to the period is the file\'s; a decision on a key holds for the file\'s run too', async () => {
    await scenario()
    const {path} = await statementFile('bai2')
    await runAs(emu, 'test', ['reconcile', 'resolve', `bank_only:${lines.fee}`, '--as', 'fee'])
    const r = await reconcileRun([main, '--statement', path, '-o', 'json'])
    expect(r.json()).toMatchObject({from: '2026-03-02', to: '2026-03-18'})
    expect(r.json().items.find((i: any) => i.key === `bank_only:${lines.fee}`)).toMatchObject({exception: false, resolution: {label: 'fee'}})
  })

  it('a file given twice, or again with other line endings, counts once; a later run says it was reconciled before', async () => {
    await scenario()
    const {path, text} = await statementFile('camt053')
    const crlf = write('copy.xml', text.replace(/\n/g, '\r\n'))
    const once = (await reconcileRun([main, ...PERIOD, '--statement', path, '-o', 'json'])).json()
    expect(once.bank_files[0].first_reconciled_at).toBeNull()
    const twice = (await reconcileRun([main, ...PERIOD, '--statement', path, '--statement', crlf, '-o', 'json'])).json()
    expect(twice.summary).toEqual(once.summary)
    expect(twice.bank_files.map((f: any) => f.counted)).toEqual([true, false])
    expect(twice.bank_files[0].first_reconciled_at).toEqual(expect.any(String))
    const table = await reconcileRun([main, ...PERIOD, '--statement', crlf, '-o', 'table'])
    expect(table.stderr).toMatch(/camt\.053 statement .*; reconciled before \(first on \d{4}-\d{2}-\d{2}\), its lines are counted once\./)
  })

  it('a line an earlier file gave (an intraday camt.052 line again in the day\'s camt.053) counts once', async () => {
    await scenario()
    const {path, text} = await statementFile('camt053')
    const intraday = write(
      'intraday.xml',
      text.replace('camt.053.001.08', 'camt.052.001.08').replace(/BkToCstmrStmt/g, 'BkToCstmrAcctRpt').replace(/<(\/?)Stmt>/g, '<$1Rpt>').replace(/<MsgId>[^<]+</, '<MsgId>INTRADAY-1<'),
    )
    const one = (await reconcileRun([main, ...PERIOD, '--statement', path, '-o', 'json'])).json()
    const both = await reconcileRun([main, ...PERIOD, '--statement', intraday, '--statement', path, '-o', 'json'])
    expect(both.code).toBe(9)
    expect(both.json().summary).toEqual(one.summary)
    expect(both.json().bank_files.map((f: any) => [f.format, f.counted])).toEqual([['camt.052', true], ['camt.053', true]])
  })

  it('text from the file is data: a terminal gets no control or bidi characters from it', async () => {
    const text = [
      `01,BANK,${four},260302,0400,1,,,2/`,
      `02,${four},BANK,1,260301,,USD,2/`,
      `03,${four},USD,010,0,,/`,
      '16,699,700,Z,R-1,,WIRE \u001b[2J\u001b]0;owned\u0007 FEE\u202e',
      '49,700,3/',
      '98,700,1,5/',
      '99,700,1,7/',
    ].join('\n')
    const path = write('hostile.bai2', text)
    const r = await reconcileRun([main, '--from', '2026-03-01', '--to', '2026-03-01', '--statement', path, '-o', 'table'], {tty: true, columns: 200})
    expect(r.code, r.stderr).toBe(9)
    expect(r.stdout).toContain('bank_only:R-1')
    expect(r.stdout).not.toMatch(/\u001b\[2J|\u001b\]0|\u0007|\u202e/)
  })

  it('two files of one statement id with other content are refused (exit 2) before any request', async () => {
    await scenario()
    const {path, text} = await statementFile('bai2')
    const other = write('other.bai2', text.replace(`BNF: ${reserveLabel}`, 'BNF: SOMEONE ELSE'))
    const r = await expectNothingSent(emu, () => reconcileRun([main, ...PERIOD, '--statement', path, '--statement', other, '-o', 'table']))
    expect(r.code).toBe(2)
    expect(errorLines(r.stderr)).toHaveLength(1)
    expect(r.stderr).toMatch(/are both statement PAYOPS\/\d{6}\/\d+ with other content/)
  })

  it('a file of another account, or in another currency, is refused (exit 2) after the account list only', async () => {
    await scenario()
    const {text} = await statementFile('bai2')
    const otherFour = String((Number(four) + 1) % 10_000).padStart(4, '0')
    const other = write('other.bai2', text.replaceAll(`03,${four},`, `03,98765${otherFour},`).replaceAll(`,PAYOPS,${four},`, `,PAYOPS,98765${otherFour},`).replaceAll(`02,${four},`, `02,98765${otherFour},`))
    const r = await expectOnlyRequests(emu, ['GET /api/treasury/accounts'], () => reconcileRun([main, ...PERIOD, '--statement', other]))
    expect(r.code).toBe(2)
    expect(r.stderr).toContain(`is a statement of account …${otherFour}, not of ${main} (its number ends ${four}): nothing was reconciled.`)
    const eur = write('eur.bai2', text.replaceAll(',USD,', ',EUR,'))
    const e = await expectOnlyRequests(emu, ['GET /api/treasury/accounts'], () => reconcileRun([main, ...PERIOD, '--statement', eur]))
    expect(e.code).toBe(2)
    expect(e.stderr).toContain(`is in EUR; ${main} is a USD account: nothing was reconciled.`)
  })

  it('a malformed file is one line naming the record and line (exit 2), nothing sent, never a partial result', async () => {
    await scenario()
    const bai2 = (await statementFile('bai2')).text.split('\n')
    const at = bai2.findIndex((l) => l.startsWith('49,'))
    bai2[at] = bai2[at].replace(/^49,(-?\d+)/, (_m, n) => `49,${BigInt(n) + 1n}`)
    const camt = (await statementFile('camt053')).text.split('\n')
    const amt = camt.findIndex((l, i) => i > camt.findIndex((x) => x.includes('<Ntry>')) && l.includes('<Amt Ccy="USD">'))
    camt[amt] = camt[amt].replace(/>[\d.]+</, '>12.3.4<')
    const entry = camt.slice(0, amt).map((l) => l.includes('<Ntry>')).lastIndexOf(true)
    const mt = (await statementFile('mt940')).text.split('\r\n')
    const cases: Array<[string, string, RegExp]> = [
      ['bad.bai2', bai2.join('\n'), new RegExp(`not a well-formed BAI2 file: line ${at + 1} \\(49 account trailer\\): control total`)],
      ['cut.bai2', bai2.slice(0, at).join('\n'), /not a well-formed BAI2 file: line \d+ \(end of file\): the 99 file trailer is missing/],
      ['bad.xml', camt.join('\n'), new RegExp(`not a well-formed camt file: line ${entry + 1} \\(Ntry\\): amount "12.3.4" is not a decimal number`)],
      ['broken.xml', camt.slice(0, amt).join('\n'), /not a well-formed XML file: line \d+ \(XML\):/],
      ['bad.sta', mt.filter((l) => !l.startsWith(':62F:')).join('\r\n'), /not a well-formed MT940 file: .*statement/],
      ['notes.txt', 'hello\x1b[31m world\n', /is not a BAI2, camt\.052\/053\/054 or MT940 file \(it begins "hello \[31m world"\)/],
    ]
    for (const [name, text, want] of cases) {
      const path = write(name, text)
      const r = await expectNothingSent(emu, () => reconcileRun([main, ...PERIOD, '--statement', path, '-o', 'table']))
      expect(r.code, `${name}: ${r.stderr}`).toBe(2)
      expect(r.stdout).toBe('')
      expect(errorLines(r.stderr), name).toHaveLength(1)
      expect(r.stderr, name).toMatch(want)
      expect(r.stderr).not.toContain('\x1b')
    }
    const missing = await expectNothingSent(emu, () => reconcileRun([main, ...PERIOD, '--statement', join(dir.path, 'nope.bai2'), '-o', 'table']))
    expect(missing.code).toBe(2)
    expect(missing.stderr).toMatch(/--statement .*nope\.bai2: no such file\./)
  })
})
