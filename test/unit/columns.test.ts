/** `--columns`: an unknown column is refused listing what exists; JSON keeps each field's type. */
import {PassThrough} from 'node:stream'
import {describe, expect, it} from 'vitest'
import {MOVE_COLUMNS, MOVE_KNOWN} from '../../src/output/columns.js'
import {Output, type Format} from '../../src/output/index.js'

function output(format: Format, columns: string[]) {
  const stdout = new PassThrough()
  let text = ''
  stdout.on('data', (d) => (text += d))
  return {out: new Output({format, color: false, columns, stdout, stderr: new PassThrough()}), text: () => text}
}

const move = {id: 'm1', status: 'settled', amount_in_minor_units: 1234, currency_code: 'USD', from_subaccount_id: 'a', to_subaccount_id: 'b', client_metadata: {k: 'v'}}

describe('--columns', () => {
  it('an unknown column is a usage error naming it and the columns that exist, for a resource and a list', async () => {
    const r = output('table', ['id', 'amout'])
    const err = await r.out.resource(move, MOVE_COLUMNS, MOVE_KNOWN).catch((e) => e)
    expect(err.exitCode).toBe(2)
    expect(err.message).toMatch(/--columns: unknown column "amout" \(available: id, status, amount, .*amount_in_minor_units/)
    expect(r.text()).toBe('')
    const l = output('json', ['nope'])
    await expect(l.out.list([move, move], MOVE_COLUMNS, MOVE_KNOWN)).rejects.toMatchObject({exitCode: 2})
    expect(l.text()).toBe('')
  })

  it('a field path of the rows is a column too; an empty list has nothing to refuse', async () => {
    const r = output('csv', ['id', 'client_metadata.k'])
    await r.out.list([move], MOVE_COLUMNS, MOVE_KNOWN)
    expect(r.text()).toBe('id,client_metadata.k\r\nm1,v\r\n')
    const e = output('json', ['anything'])
    expect(await e.out.list([], MOVE_COLUMNS, MOVE_KNOWN)).toBe(0)
  })

  it('JSON keeps types: a money column is its integer minor units, a list stays a list', async () => {
    const r = output('json', ['id', 'amount'])
    await r.out.resource(move, MOVE_COLUMNS, MOVE_KNOWN)
    expect(JSON.parse(r.text())).toEqual({id: 'm1', amount: 1234})
    const token = {token: 't', scopes: ['payer_manage', 'view'], expires_in_seconds: 900}
    const s = output('json', ['scopes'])
    await s.out.resource(token, [{key: 'scopes', get: (row) => (row.scopes as string[]).join(' ')}])
    expect(JSON.parse(s.text())).toEqual({scopes: ['payer_manage', 'view']})
  })
})

describe('page line', () => {
  it('machine formats write {"page":{…}} on stderr; a terminal gets the cursor hint only when there is more', async () => {
    const stderr = new PassThrough()
    let err = ''
    stderr.on('data', (d) => (err += d))
    const json = new Output({format: 'ndjson', color: false, stdout: new PassThrough(), stderr})
    json.page({hasMore: true, nextCursor: 'c2', previousCursor: 'c0'})
    json.page({hasMore: false})
    await new Promise((r) => setImmediate(r))
    expect(err.trim().split('\n').map((l) => JSON.parse(l))).toEqual([
      {page: {has_more: true, next_cursor: 'c2', previous_cursor: 'c0'}},
      {page: {has_more: false, next_cursor: null, previous_cursor: null}},
    ])
    err = ''
    const table = new Output({format: 'table', color: false, stdout: new PassThrough(), stderr})
    table.page({hasMore: false, nextCursor: null})
    table.page({hasMore: true, nextCursor: 'c9'})
    await new Promise((r) => setImmediate(r))
    expect(err).toBe('More items: --cursor c9 (or --all)\n')
  })
})

describe('tables fit the terminal', () => {
  it('fitWidths gives way on the widest columns first, never below the minimum', async () => {
    const {fitWidths, truncateCell} = await import('../../src/output/cells.js')
    expect(fitWidths([10, 40, 8], 40)).toEqual([10, 18, 8])
    expect(fitWidths([3, 50], 20)).toEqual([3, 15])
    expect(fitWidths([30, 30], 5)).toEqual([6, 6])
    expect(truncateCell('abcdefgh', 5)).toBe('abcd…')
    expect(truncateCell('abc', 5)).toBe('abc')
  })

  it('a column narrows no further than its header, its money, statuses and times, or a label\'s first word; labels are cut between words', async () => {
    const {columnFloor, cutAtWord} = await import('../../src/output/cells.js')
    expect(columnFloor({key: 'committed_out'}, 'COMMITTED OUT', ['1.00 USD'], 13)).toBe(13)
    expect(columnFloor({key: 'amount', money: {amount: 'a', currency: 'c'}}, 'AMOUNT', ['1,234,567.00 USD', ''], 16)).toBe(16)
    expect(columnFloor({key: 'kind', status: true}, 'KIND', ['amount_mismatch'], 15)).toBe(15)
    expect(columnFloor({key: 'created_at'}, 'CREATED', ['2026-12-06T01:41:24.688Z', '2026-12-06T01:41:25Z'], 24)).toBe(24)
    expect(columnFloor({key: 'message'}, 'MESSAGE', ['a long message about it'], 23)).toBe(10)
    expect(columnFloor({key: 'name', words: true}, 'NAME', ['Main operating account'], 22)).toBe(20)
    expect(columnFloor({key: 'name', words: true}, 'NAME', ['Extraordinarily-long-single-word-label x'], 40)).toBe(39)
    expect(cutAtWord('Main operating account', 12)).toBe('Main…')
    expect(cutAtWord('Main operating account', 16)).toBe('Main operating…')
    expect(cutAtWord('Main operating account', 15)).toBe('Main operating…')
    expect(cutAtWord('short', 12)).toBe('short')
  })

  it('planTable keeps id columns whole: the others narrow, then the empty and the rightmost are left out', async () => {
    const {planTable, holdsIds} = await import('../../src/output/cells.js')
    // Fits: untouched.
    expect(planTable([36, 10, 20], 80, {keep: [true, false, false]})).toEqual({shown: [0, 1, 2], widths: [36, 10, 20], hidden: []})
    // The non-id columns give way, widest first; the id stays at 36.
    expect(planTable([36, 10, 40], 70, {keep: [true, false, false]})).toEqual({shown: [0, 1, 2], widths: [36, 10, 20], hidden: []})
    // An empty column goes first, then the rightmost other column; ids never.
    expect(planTable([36, 9, 12, 30, 30, 24], 80, {keep: [true, false, false, false, false, false], empty: [false, false, false, false, false, false]})).toEqual({shown: [0, 1, 2, 3], widths: [36, 9, 12, 17], hidden: [4, 5]})
    expect(planTable([36, 9, 9, 24], 60, {keep: [true, false, false, false], empty: [false, false, true, false]})).toEqual({shown: [0, 1, 3], widths: [36, 9, 11], hidden: [2]})
    // Only ids left and still too wide: they are cut like any column.
    expect(planTable([36, 36], 40, {keep: [true, true]}).widths.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(38)
    expect(holdsIds({key: 'id'})).toBe(true)
    expect(holdsIds({key: 'bank_transaction_id'})).toBe(true)
    expect(holdsIds({key: 'from_subaccount_id', names: true})).toBe(false)
    expect(holdsIds({key: 'created_at'})).toBe(false)
  })

  it('a table at a width cuts long cells with …; without a width (--wide, no terminal) nothing is cut', async () => {
    const rows = [{id: 'x'.repeat(36), status: 'settled', amount_in_minor_units: 100, currency_code: 'USD', from_subaccount_id: 'f'.repeat(36), to_subaccount_id: 't'.repeat(36)}]
    const run = async (width?: number) => {
      const stdout = new PassThrough()
      let text = ''
      stdout.on('data', (d) => (text += d))
      await new Output({format: 'table', color: false, stdout, stderr: new PassThrough(), width}).list(rows, MOVE_COLUMNS)
      return text
    }
    const fitted = await run(80)
    for (const line of fitted.trimEnd().split('\n')) expect(line.length).toBeLessThanOrEqual(80)
    expect(fitted).toContain('…')
    const wide = await run(undefined)
    expect(wide).toContain('x'.repeat(36))
    expect(wide).not.toContain('…')
  })
})

describe('--columns on a raw JSON value (payops api)', () => {
  it('projects an object or each object of a list; an unknown field is exit 2', async () => {
    const r = output('json', ['data.id'])
    await r.out.value({data: {id: 'x', name: 'n'}, warning: null})
    expect(JSON.parse(r.text())).toEqual({'data.id': 'x'})
    const bad = output('json', ['nope'])
    await expect(bad.out.value({data: {}})).rejects.toMatchObject({exitCode: 2})
  })
})

describe('money in a fitted table', () => {
  it('is never cut: a money column narrows only to its cells (its header gives way), then is left out', async () => {
    const {planTable} = await import('../../src/output/cells.js')
    // NAME 20, BALANCE (header 7, cells 13), COMMITTED OUT (header 13, cells 10)
    const fits = planTable([20, 13, 13], 40, {floor: [undefined, 13, 10]})
    expect(fits.shown).toEqual([0, 1, 2])
    expect(fits.widths[1]).toBe(13)
    expect(fits.widths[2]).toBeGreaterThanOrEqual(10)
    const narrow = planTable([20, 13, 13], 30, {floor: [undefined, 13, 10]})
    expect(narrow.hidden).toEqual([2])
    expect(narrow.widths[narrow.shown.indexOf(1)]).toBe(13)
  })
})
