import {Writable} from 'node:stream'
import {parse as parseCsv} from 'csv-parse/sync'
import {describe, expect, it} from 'vitest'
import {UsageError} from '../../src/errors.js'
import {colorEnabled, colorize} from '../../src/output/color.js'
import {MOVE_COLUMNS, MOVE_KNOWN, SUBACCOUNT_COLUMNS} from '../../src/output/columns.js'
import {Output, cellText, defaultFormat, getPath, selectColumns, type Column, type Format} from '../../src/output/index.js'

function sink() {
  const chunks: string[] = []
  const stream = new Writable({
    write(chunk: Buffer | string, _enc, cb) {
      chunks.push(chunk.toString())
      cb()
    },
  })
  return {stream, text: () => chunks.join('')}
}

function output(format: Format, opts: {columns?: string[]; query?: string; color?: boolean} = {}) {
  const stdout = sink()
  const stderr = sink()
  const out = new Output({format, color: opts.color ?? false, columns: opts.columns, query: opts.query, stdout: stdout.stream, stderr: stderr.stream})
  return {out, stdout: stdout.text, stderr: stderr.text}
}

async function* stream<T>(items: T[]): AsyncGenerator<T> {
  for (const it of items) yield it
}

const ESC = String.fromCharCode(27)

const MOVE = {
  id: 'mv_1',
  status: 'settled',
  amount_in_minor_units: 123456,
  currency_code: 'USD',
  from_subaccount_id: 'sub_a',
  to_subaccount_id: 'sub_b',
  created_at: '2026-01-02T03:04:05Z',
  client_metadata: {ref: 'inv-1'},
  big: Number.MAX_SAFE_INTEGER,
}
const MOVE2 = {...MOVE, id: 'mv_2', status: 'created', amount_in_minor_units: -5, currency_code: 'KWD'}

const SUB = {
  id: 'sub_1',
  name: 'Payroll',
  account_number: '000123',
  routing_numbers: {ach: '021000021', wire: '026009593'},
  total_incoming_in_minor_units: 100000,
  total_outgoing_in_minor_units: 2500,
  currency_code: 'JPY',
  created_at: '2026-01-01T00:00:00Z',
}

describe('json', () => {
  it('prints a resource as pretty JSON with integers kept as integers', async () => {
    const {out, stdout, stderr} = output('json')
    await out.resource(MOVE, MOVE_COLUMNS)
    expect(stdout()).toBe(JSON.stringify(MOVE, null, 2) + '\n')
    expect(stdout()).toContain('"amount_in_minor_units": 123456,')
    expect(stdout()).toContain(`"big": ${Number.MAX_SAFE_INTEGER}`)
    expect(JSON.parse(stdout())).toEqual(MOVE)
    expect(stderr()).toBe('')
  })

  it('prints a list as a JSON array, streamed from an async iterable', async () => {
    const {out, stdout} = output('json')
    const count = await out.list(stream([MOVE, MOVE2]), MOVE_COLUMNS)
    expect(count).toBe(2)
    expect(JSON.parse(stdout())).toEqual([MOVE, MOVE2])
  })

  it('prints valid JSON for an empty list', async () => {
    const {out, stdout} = output('json')
    expect(await out.list([], MOVE_COLUMNS)).toBe(0)
    expect(JSON.parse(stdout())).toEqual([])
  })

  it('projects to --columns, including a dotted path', async () => {
    const {out, stdout} = output('json', {columns: ['id', 'routing_numbers.ach']})
    await out.resource(SUB, SUBACCOUNT_COLUMNS)
    expect(JSON.parse(stdout())).toEqual({id: 'sub_1', 'routing_numbers.ach': '021000021'})
    // A column that names nothing is refused rather than dropped (test/unit/columns.test.ts).
    await expect(output('json', {columns: ['id', 'missing']}).out.resource(SUB, SUBACCOUNT_COLUMNS)).rejects.toMatchObject({exitCode: 2})
    const list = output('json', {columns: ['id', 'routing_numbers.wire']})
    await list.out.list([SUB], SUBACCOUNT_COLUMNS)
    expect(JSON.parse(list.stdout())).toEqual([{id: 'sub_1', 'routing_numbers.wire': '026009593'}])
  })
})

describe('ndjson', () => {
  it('prints one compact object per line', async () => {
    const {out, stdout} = output('ndjson')
    await out.list(stream([MOVE, MOVE2, SUB]), MOVE_COLUMNS)
    const lines = stdout().split('\n')
    expect(lines.pop()).toBe('')
    expect(lines).toHaveLength(3)
    expect(lines.map((l) => JSON.parse(l))).toEqual([MOVE, MOVE2, SUB])
    for (const l of lines) expect(l).not.toMatch(/\n|": /)
  })

  it('prints nothing for an empty list and one line for a resource', async () => {
    const empty = output('ndjson')
    await empty.out.list([], MOVE_COLUMNS)
    expect(empty.stdout()).toBe('')
    const one = output('ndjson')
    await one.out.resource(MOVE, MOVE_COLUMNS)
    expect(one.stdout()).toBe(JSON.stringify(MOVE) + '\n')
  })
})

describe('csv', () => {
  const cols: Column[] = [{key: 'id'}, {key: 'note'}, {key: 'amount', money: {amount: 'amount_in_minor_units', currency: 'currency_code'}}, {key: 'meta.tag'}]
  const rows = [
    {id: 'r1', note: 'plain', amount_in_minor_units: 123456, currency_code: 'USD', meta: {tag: 't'}},
    {id: 'r2', note: 'a, b', amount_in_minor_units: 5, currency_code: 'JPY'},
    {id: 'r3', note: 'say "hi"', amount_in_minor_units: 1005, currency_code: 'kwd'},
    {id: 'r4', note: 'line1\nline2', amount_in_minor_units: null},
  ]

  it('quotes a value holding a bare LF or CR, so that LF-splitting readers keep the row whole', async () => {
    const {out, stdout} = output('csv')
    await out.list([{id: 'a', note: 'x\ny'}, {id: 'b', note: 'x\ry'}, {id: 'c', note: 'x\r\ny'}], [{key: 'id'}, {key: 'note'}])
    expect(stdout()).toBe('id,note\r\na,"x\ny"\r\nb,"x\ry"\r\nc,"x\r\ny"\r\n')
    const unquotedLines = stdout().split(/"[^"]*"/).join('').split('\n').filter(Boolean)
    expect(unquotedLines).toHaveLength(4)
  })

  it('writes RFC 4180: a header row of column keys, quoting and CRLF', async () => {
    const {out, stdout} = output('csv')
    expect(await out.list(stream(rows), cols)).toBe(4)
    const text = stdout()
    expect(text.startsWith('id,note,amount,meta.tag\r\n')).toBe(true)
    expect(text).toContain('r1,plain,1234.56 USD,t\r\n')
    expect(text).toContain('r2,"a, b",5 JPY,\r\n')
    expect(text).toContain('r3,"say ""hi""",1.005 KWD,\r\n')
    expect(text).toContain('r4,"line1\nline2",,\r\n')
    expect(text.endsWith('\r\n')).toBe(true)
    expect(text.replace(/\r\n/g, '').replace('line1\nline2', '')).not.toContain('\n')
    expect(parseCsv(text)).toEqual([
      ['id', 'note', 'amount', 'meta.tag'],
      ['r1', 'plain', '1234.56 USD', 't'],
      ['r2', 'a, b', '5 JPY', ''],
      ['r3', 'say "hi"', '1.005 KWD', ''],
      ['r4', 'line1\nline2', '', ''],
    ])
  })

  it('writes only the header for an empty list', async () => {
    const {out, stdout} = output('csv')
    await out.list([], cols)
    expect(stdout()).toBe('id,note,amount,meta.tag\r\n')
  })

  it('writes the header once across batches', async () => {
    const many = Array.from({length: 1201}, (_, i) => ({id: `r${i}`, note: 'n'}))
    const {out, stdout} = output('csv')
    expect(await out.list(stream(many), [{key: 'id'}, {key: 'note'}])).toBe(1201)
    const records = parseCsv(stdout(), {record_delimiter: '\r\n'}) as string[][]
    expect(records).toHaveLength(1202)
    expect(records.filter((r) => r[0] === 'id')).toHaveLength(1)
    expect(records[1201]).toEqual(['r1200', 'n'])
  })

  it('renders a resource as header plus one row, and objects as JSON cells', async () => {
    const {out, stdout} = output('csv', {columns: ['id', 'client_metadata']})
    await out.resource(MOVE, MOVE_COLUMNS, MOVE_KNOWN)
    expect(parseCsv(stdout())).toEqual([
      ['id', 'client_metadata'],
      ['mv_1', '{"ref":"inv-1"}'],
    ])
  })

  it('uses the first item\'s keys when no columns are given', async () => {
    const {out, stdout} = output('csv')
    await out.list([{a: 1, b: 'x'}, {a: 2, b: 'y', c: 3}], [])
    expect(stdout()).toBe('a,b\r\n1,x\r\n2,y\r\n')
  })
})

describe('table', () => {
  it('shows money as grouped amounts with the code and upper-case headers', async () => {
    const {out, stdout, stderr} = output('table')
    await out.list([MOVE, MOVE2], MOVE_COLUMNS)
    const text = stdout()
    expect(text).not.toContain(ESC)
    const [header, first, second] = text.split('\n')
    expect(header).toMatch(/^ID\s+STATUS\s+AMOUNT\s+FROM\s+TO\s+CREATED\s*$/)
    expect(first).toContain('1,234.56 USD')
    expect(first).toMatch(/^mv_1\s+settled\s+1,234.56 USD\s+sub_a\s+sub_b\s+2026-01-02T03:04:05Z/)
    expect(second).toContain('-0.005 KWD')
    expect(stderr()).toBe('')
  })

  it('shows a resource as aligned key/value lines', async () => {
    const {out, stdout} = output('table')
    await out.resource(SUB, SUBACCOUNT_COLUMNS)
    const lines = stdout().trimEnd().split('\n')
    expect(lines).toContain('INCOMING      100,000 JPY')
    expect(lines).toContain('OUTGOING      2,500 JPY')
    expect(lines).toContain('BALANCE       97,500 JPY')
    expect(lines).toContain('ACH ROUTING   021000021')
    expect(lines[0]).toBe('ID            sub_1')
  })

  it('selects --columns, with a dotted path and a known money column', async () => {
    const {out, stdout} = output('table', {columns: ['id', 'routing_numbers.wire', 'incoming']})
    await out.list([SUB], SUBACCOUNT_COLUMNS)
    const [header, row] = stdout().split('\n')
    expect(header).toMatch(/^ID\s+WIRE ROUTING\s+INCOMING\s*$/)
    expect(row).toMatch(/^sub_1\s+026009593\s+100,000 JPY\s*$/)
  })

  it('headers an unknown dotted column by its path', async () => {
    const {out, stdout} = output('table', {columns: ['client_metadata.ref']})
    await out.list([MOVE], MOVE_COLUMNS)
    expect(stdout().split('\n')[0].trim()).toBe('CLIENT METADATA REF')
    expect(stdout().split('\n')[1].trim()).toBe('inv-1')
  })

  it('says "No items." on stderr for an empty list, keeping stdout empty', async () => {
    const {out, stdout, stderr} = output('table')
    await out.list([], MOVE_COLUMNS)
    expect(stdout()).toBe('')
    expect(stderr()).toBe('No items.\n')
  })

  it('colours the status only when colour is on', async () => {
    const {out, stdout} = output('table', {color: true})
    await out.list([MOVE], MOVE_COLUMNS)
    expect(stdout()).toContain(`${ESC}[32msettled${ESC}[39m`)
  })

  it('rejects an empty --columns entry', async () => {
    const {out} = output('table', {columns: ['id', ' ']})
    await expect(out.list([MOVE], MOVE_COLUMNS)).rejects.toBeInstanceOf(UsageError)
  })
})

describe('--query', () => {
  it('applies a JMESPath expression to a list', async () => {
    const {out, stdout} = output('json', {query: '[].id'})
    expect(await out.list(stream([MOVE, MOVE2]), MOVE_COLUMNS)).toBe(2)
    expect(JSON.parse(stdout())).toEqual(['mv_1', 'mv_2'])
  })

  it('filters with a JMESPath expression and keeps integers', async () => {
    const {out, stdout} = output('json', {query: "[?status=='created'].amount_in_minor_units"})
    await out.list([MOVE, MOVE2], MOVE_COLUMNS)
    expect(JSON.parse(stdout())).toEqual([-5])
  })

  it('applies to a resource and prints a scalar plainly in table mode', async () => {
    const {out, stdout} = output('table', {query: 'routing_numbers.ach'})
    await out.resource(SUB, SUBACCOUNT_COLUMNS)
    expect(stdout()).toBe('021000021\n')
  })

  it('prints each element on its own line in ndjson', async () => {
    const {out, stdout} = output('ndjson', {query: '[].{id: id, s: status}'})
    await out.list([MOVE, MOVE2], MOVE_COLUMNS)
    expect(stdout()).toBe('{"id":"mv_1","s":"settled"}\n{"id":"mv_2","s":"created"}\n')
  })

  it('refuses an invalid expression as a usage error', async () => {
    const {out, stdout} = output('json', {query: '[?status=='})
    const err = await out.list([MOVE], MOVE_COLUMNS).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(UsageError)
    expect((err as UsageError).exitCode).toBe(2)
    expect((err as UsageError).message).toContain('not a valid JMESPath expression')
    expect(stdout()).toBe('')
  })
})

describe('value', () => {
  it('prints any JSON value', async () => {
    const {out, stdout} = output('json')
    await out.value({a: [1, 2]})
    expect(JSON.parse(stdout())).toEqual({a: [1, 2]})
  })
})

describe('stderr only: warnings, notes and errors', () => {
  it('writes warnings and notes to stderr only', () => {
    const {out, stdout, stderr} = output('json')
    out.warn('settlement failed')
    out.note('Idempotency-Key: abc')
    expect(stdout()).toBe('')
    expect(stderr()).toBe('Warning: settlement failed\nIdempotency-Key: abc\n')
  })

  it('prints one error line in table format, without JSON', () => {
    const {out, stdout, stderr} = output('table')
    out.error('404 NOT_FOUND: gone', {type: 'ApiError', status: 404})
    expect(stdout()).toBe('')
    expect(stderr()).toBe('Error: 404 NOT_FOUND: gone\n')
  })

  it.each(['json', 'ndjson', 'csv'] as const)('adds the {"error": ...} object in %s format', (format) => {
    const {out, stdout, stderr} = output(format)
    out.error('404 NOT_FOUND: gone', {type: 'ApiError', status: 404})
    expect(stdout()).toBe('')
    const lines = stderr().trimEnd().split('\n')
    expect(lines).toHaveLength(2)
    expect(lines[0]).toBe('Error: 404 NOT_FOUND: gone')
    expect(JSON.parse(lines[1])).toEqual({error: {type: 'ApiError', status: 404}})
  })

  it('prints only the line when there is no JSON object', () => {
    const {out, stderr} = output('json')
    out.error('boom')
    expect(stderr()).toBe('Error: boom\n')
  })
})

describe('helpers', () => {
  it('defaultFormat is table on a TTY and json otherwise', () => {
    expect(defaultFormat(true)).toBe('table')
    expect(defaultFormat(false)).toBe('json')
    expect(defaultFormat(undefined)).toBe('json')
  })

  it('getPath reads literal keys first, then dotted paths', () => {
    expect(getPath({'a.b': 1, a: {b: 2}}, 'a.b')).toBe(1)
    expect(getPath({a: {b: {c: 3}}}, 'a.b.c')).toBe(3)
    expect(getPath({a: null}, 'a.b')).toBeUndefined()
    expect(getPath(null, 'a')).toBeUndefined()
  })

  it('selectColumns keeps known definitions and adds path columns for the rest', () => {
    const cols = selectColumns(MOVE_COLUMNS, MOVE_KNOWN, ['amount', 'updated_at', 'x.y'])
    expect(cols[0].money).toBeDefined()
    expect(cols.map((c) => c.key)).toEqual(['amount', 'updated_at', 'x.y'])
    expect(selectColumns(MOVE_COLUMNS, MOVE_KNOWN, undefined)).toBe(MOVE_COLUMNS)
  })

  it('cellText renders money, assumes no currency where none is named, and leaves missing amounts blank', () => {
    const money: Column = {key: 'amount', money: {amount: 'amt', currency: 'cur'}}
    expect(cellText(money, {amt: 123456, cur: 'USD'})).toBe('1,234.56 USD')
    expect(cellText(money, {amt: 123456, cur: 'USD'}, true)).toBe('1234.56 USD')
    expect(cellText(money, {amt: 100})).toBe('100 minor units (currency unknown)')
    expect(cellText(money, {amt: 100}, true)).toBe('100 minor units (currency unknown)')
    expect(cellText({key: 'a', money: {amount: 'amt', currency: 'cur', fixedCurrency: 'JPY'}}, {amt: 100})).toBe('100 JPY')
    expect(cellText(money, {amt: '12'})).toBe('')
    expect(cellText({key: 'x'}, {x: false})).toBe('false')
    expect(cellText({key: 'x'}, {x: null})).toBe('')
  })
})

describe('colorEnabled', () => {
  it('is on for a TTY and off otherwise', () => {
    expect(colorEnabled(false, {}, true)).toBe(true)
    expect(colorEnabled(false, {}, false)).toBe(false)
    expect(colorEnabled(undefined, {}, undefined)).toBe(false)
  })

  it('is off with --no-color or a non-empty NO_COLOR, even on a TTY', () => {
    expect(colorEnabled(true, {}, true)).toBe(false)
    expect(colorEnabled(false, {NO_COLOR: '1'}, true)).toBe(false)
    expect(colorEnabled(false, {NO_COLOR: '1', FORCE_COLOR: '1'}, true)).toBe(false)
    expect(colorEnabled(false, {NO_COLOR: ''}, true)).toBe(true)
  })

  it('FORCE_COLOR turns it on without a TTY, unless 0', () => {
    expect(colorEnabled(false, {FORCE_COLOR: '1'}, false)).toBe(true)
    expect(colorEnabled(false, {FORCE_COLOR: '0'}, false)).toBe(false)
    expect(colorEnabled(true, {FORCE_COLOR: '1'}, true)).toBe(false)
  })

  it('colorize emits escapes only when enabled', () => {
    expect(colorize(false).red('x')).toBe('x')
    expect(colorize(true).red('x')).toBe(`${ESC}[31mx${ESC}[39m`)
    expect(colorize(true).status('failed')).toContain(`${ESC}[31m`)
    expect(colorize(true).status('unknown-state')).toBe('unknown-state')
  })
})
