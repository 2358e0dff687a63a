/** The import's database (src/import/store.ts): keys, the plan, the journal and how they compare. */
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {deriveKey, parseImportCsv, type ImportRow} from '../../src/import/csv.js'
import {openDatabase} from '../../src/db/index.js'
import {IMPORT_SCHEMA, ImportStore, contentHash} from '../../src/import/store.js'
import {tempDir} from '../support/env.js'

const A = '3f1c2a9e-6b7d-4c8e-9f01-23456789abcd'
const B = '7a2b3c4d-5e6f-4a1b-8c9d-0e1f2a3b4c5d'
const C = '0b1c2d3e-4f50-4617-8293-a4b5c6d7e8f9'

function rows(...amounts: Array<string | [string, string]>): ImportRow[] {
  const body = amounts.map((a) => (Array.isArray(a) ? `${A},${B},${a[0]},${a[1]}` : `${A},${B},${a},`)).join('\n')
  const parsed = parseImportCsv(`from,to,amount,idempotency_key\n${body}\n`)
  expect(parsed.errors).toEqual([])
  return parsed.rows
}

function store(): ImportStore {
  return ImportStore.open(join(tempDir().path, 'x.payops-import.sqlite'))
}

async function planOf(s: ImportStore, batch: string, r: ImportRow[]): Promise<void> {
  expect(await s.writePlan(batch, r)).toBe(r.length)
}

function doneAll(s: ImportStore, lines?: number[]): void {
  for (const r of s.pending()) if (!lines || lines.includes(r.line)) s.record(r, {state: 'done', kind: 'created', move_id: `m${r.line}`, move_status: 'settled', http_status: 201})
  s.flush()
}

describe('ImportStore: keys', () => {
  it('numbers rows of identical content in file order; a key cell is the key', async () => {
    const s = store()
    await planOf(s, 'batch-1', rows('1.00', '2.00', '1.00', ['1.00', 'own-key'], '1.00'))
    const planned = [...s.pending()]
    const fp = (r: ImportRow) => r.fingerprint
    const src = rows('1.00', '2.00', '1.00', ['1.00', 'own-key'], '1.00')
    expect(planned.map((r) => r.key)).toEqual([
      deriveKey('batch-1', fp(src[0]), 1),
      deriveKey('batch-1', fp(src[1]), 1),
      deriveKey('batch-1', fp(src[2]), 2),
      'own-key',
      deriveKey('batch-1', fp(src[4]), 3),
    ])
    expect(planned.map((r) => r.fp)).toEqual(src.map((r) => contentHash(r.fingerprint)))
    expect(new Set(planned.map((r) => r.key)).size).toBe(5)
    expect(s.repeats()).toEqual([4, 6])
    s.close()
  })

  it('another batch derives other keys from the same file', async () => {
    const s1 = store()
    await planOf(s1, 'batch-1', rows('1.00'))
    const s2 = store()
    await planOf(s2, 'batch-2', rows('1.00'))
    expect([...s1.pending()][0].key).not.toBe([...s2.pending()][0].key)
    s1.close()
    s2.close()
  })
})

describe('ImportStore: the plan against the journal', () => {
  it('pending rows, counts and totals leave out what the journal records as done', async () => {
    const s = store()
    await planOf(s, 'b', rows('1.00', '2.50', '3.00'))
    doneAll(s, [2])
    expect(s.summary().rows).toBe(3)
    expect(s.summary().pending).toBe(2)
    expect([...s.pending()].map((r) => r.line)).toEqual([3, 4])
    expect(s.summary().pendingTotals).toEqual({USD: 550})
    expect(s.summary().doneTotals).toEqual({USD: 100})
    expect(s.db.prepare('SELECT COUNT(*) AS n FROM journal').get()).toEqual({n: 1})
    s.close()
  })

  it('reads more than one page of pending rows, in order', async () => {
    const s = store()
    const many = rows(...Array.from({length: 2500}, (_, i) => `${i + 1}.00`))
    await planOf(s, 'b', many)
    const lines = [...s.pending()].map((r) => r.line)
    expect(lines).toHaveLength(2500)
    expect(lines[0]).toBe(2)
    expect(lines[2499]).toBe(2501)
    s.close()
  })

  it('a sent record never replaces a done one; failed rows stay pending', async () => {
    const s = store()
    await planOf(s, 'b', rows('1.00', '2.00'))
    const [first, second] = [...s.pending()]
    s.record(first, {state: 'done', kind: 'created', move_id: 'm1', move_status: 'settled', http_status: 201})
    s.record(first, {state: 'sent'})
    s.record(second, {state: 'failed', error_status: 400, error_code: 'VALIDATION_ERROR', message: 'no'})
    s.flush()
    expect([...s.pending()].map((r) => r.line)).toEqual([3])
    expect(s.db.prepare('SELECT state, move_id FROM journal WHERE key = ?').get(first.key)).toEqual({state: 'done', move_id: 'm1'})
    s.close()
  })

  it('appended rows are new; rows gone from the file are missing; a sent row whose line now holds new content has changed', async () => {
    const s = store()
    await planOf(s, 'b', rows('1.00', '2.00', '3.00'))
    doneAll(s)
    // Appended: nothing changed, one new row.
    await planOf(s, 'b', rows('1.00', '2.00', '3.00', '4.00'))
    expect(s.compare()).toEqual({changed: [], missing: []})
    expect(s.summary().pending).toBe(1)
    // The last row removed: its move stays, reported as missing.
    await planOf(s, 'b', rows('1.00', '2.00'))
    expect(s.compare()).toEqual({changed: [], missing: [4]})
    // The second row edited in place (2.00 -> 2.01): changed.
    await planOf(s, 'b', rows('1.00', '2.01', '3.00'))
    expect(s.compare().changed.map((e) => e.line)).toEqual([3])
    s.close()
  })

  it('a row edited in place among identical rows has changed, though the numbering of the others shifts', async () => {
    const s = store()
    await planOf(s, 'b', rows('1.00', '1.00', '1.00', '1.00'))
    doneAll(s)
    await planOf(s, 'b', rows('1.00', '9.00', '1.00', '1.00'))
    expect(s.compare().changed).toEqual([{line: 3, message: 'this line held a row that was sent, and the file no longer holds it'}])
    // Edited into the content of another sent row: the same.
    await planOf(s, 'b', rows('2.00', '1.00', '1.00'))
    const t = store()
    await planOf(t, 'b', rows('1.00', '2.00', '1.00'))
    doneAll(t)
    await planOf(t, 'b', rows('1.00', '2.00', '2.00'))
    expect(t.compare().changed.map((e) => e.line)).toEqual([4])
    expect(t.compare().missing).toEqual([4])
    s.close()
    t.close()
  })

  it('reordering and inserting rows of identical content sends only the rows the journal does not account for', async () => {
    const s = store()
    await planOf(s, 'b', rows('5.00', '1.00', '5.00'))
    doneAll(s)
    await planOf(s, 'b', rows('5.00', '5.00', '1.00', '5.00'))
    expect(s.compare()).toEqual({changed: [], missing: []})
    expect([...s.pending()].map((r) => r.amount_in_minor_units)).toEqual([500])
    s.close()
  })

  it('a key cell sent with other content has changed', async () => {
    const s = store()
    await planOf(s, 'b', rows(['1.00', 'k1']))
    doneAll(s)
    await planOf(s, 'b', rows(['1.50', 'k1']))
    expect(s.compare().changed).toEqual([{line: 2, message: 'its idempotency_key was sent before with other content'}])
    s.close()
  })

  it('a row the API refused outright may be fixed in place', async () => {
    const s = store()
    await planOf(s, 'b', rows('1.00'))
    const [r] = [...s.pending()]
    s.record(r, {state: 'failed', error_status: 400, message: 'refused'})
    s.flush()
    await planOf(s, 'b', rows('1.25'))
    expect(s.compare()).toEqual({changed: [], missing: []})
    // A row whose outcome is unknown (503 after retries, 408, 409, 429, no status) may have made its move: editing it is a change.
    for (const status of [503, 408, 409, 429, undefined]) {
      s.record(r, {state: 'failed', error_status: status, message: 'unknown'})
      s.flush()
      expect(s.compare().changed.map((e) => e.line), String(status)).toEqual([2])
    }
    // Any other 4xx is a refusal outright.
    s.record(r, {state: 'failed', error_status: 422, message: 'refused'})
    s.flush()
    expect(s.compare().changed).toEqual([])
    s.close()
  })

  it('resent(): the rows a new batch sends again, as many per content as the old journal holds', async () => {
    const s = store()
    await planOf(s, 'old', rows('1.00', '1.00', '2.00', ['3.00', 'cell']))
    doneAll(s)
    // As a new batch is planned: compared with no journal (the old one is set aside when it starts).
    s.ignoreJournal()
    await planOf(s, 'new', rows('1.00', '1.00', '1.00', '2.00', ['3.00', 'cell'], '4.00', '3.00'))
    // Two of the three 1.00 rows and the 2.00 row; not the key cell (replayed, not sent again),
    // nor the 3.00 row without a cell (the earlier 3.00 was the key cell's).
    expect(s.resent()).toEqual([2, 3, 5])
    expect(s.summary().pending).toBe(7)
    s.close()
  })

  it('setCurrency gives rows without a currency cell their source\'s currency', async () => {
    const s = store()
    const parsed = parseImportCsv(`from,to,amount_in_minor_units,currency\n${A},${B},100,\n${A},${C},200,USD\n${C},${B},300,\n`)
    await planOf(s, 'b', parsed.rows)
    expect(s.setCurrency(A, 'EUR')).toBe(1)
    expect([...s.pending()].map((r) => r.currency)).toEqual(['EUR', 'USD', 'USD'])
    expect(s.subaccountIds().sort()).toEqual([A, B, C].sort())
    s.close()
  })

  it('planMatches: the kept plan is reused only for the same file, batch and currency', async () => {
    const s = store()
    await planOf(s, 'b', rows('1.00'))
    const meta = {batchId: 'b', size: 10, mtimeMs: 5, defaultCurrency: 'USD'}
    s.keepPlan({...meta, sha256: 'abc', rows: 1})
    let read = 0
    const sha = (v: string) => async () => (read++, v)
    expect(await s.planMatches(meta, sha('abc'))).toBe(true)
    expect(await s.planMatches(meta, sha('abd'))).toBe(false)
    expect(read).toBe(2)
    expect(await s.planMatches({...meta, size: 11}, sha('abc'))).toBe(false)
    expect(await s.planMatches({...meta, batchId: 'c'}, sha('abc'))).toBe(false)
    expect(await s.planMatches({...meta, defaultCurrency: 'EUR'}, sha('abc'))).toBe(false)
    expect(read).toBe(2)
    s.close()
  })
})

describe('ImportStore: the figures kept as rows are done', () => {
  it('always equal the plan counted whole: after rows are done, a re-plan, currencies set, and a done record repeated', async () => {
    const s = store()
    const parsed = parseImportCsv(`from,to,amount_in_minor_units\n${Array.from({length: 40}, (_, i) => `${i % 3 ? A : C},${B},${i + 1}`).join('\n')}\n`)
    await planOf(s, 'b', parsed.rows)
    const whole = () => {
      const pending = s.db.prepare('SELECT currency AS c, COUNT(*) AS n, SUM(amount) AS t FROM plan WHERE done = 0 GROUP BY currency').all<{c: string; n: number; t: number}>()
      const done = s.db.prepare('SELECT currency AS c, SUM(amount) AS t FROM plan WHERE done = 1 GROUP BY currency').all<{c: string; t: number}>()
      return {pending: pending.reduce((n, r) => n + r.n, 0), pendingTotals: Object.fromEntries(pending.map((r) => [r.c, r.t])), doneTotals: Object.fromEntries(done.map((r) => [r.c, r.t]))}
    }
    const check = () => expect(s.summary()).toMatchObject({rows: 40, ...whole()})
    check()
    const rowsNow = [...s.pending()]
    for (const r of rowsNow.filter((_, i) => i % 4 === 0)) s.record(r, {state: 'done', kind: 'created', move_id: 'm', move_status: 'settled', http_status: 201})
    // The same row reported done twice is counted once.
    s.record(rowsNow[0], {state: 'done', kind: 'replayed', move_id: 'm', move_status: 'settled', http_status: 200})
    s.flush()
    check()
    expect(s.setCurrency(C, 'EUR')).toBeGreaterThan(0)
    check()
    await planOf(s, 'b', parsed.rows)
    check()
    expect(s.summary().pending).toBe(30)
    s.close()
  })
})

describe('ImportStore: moves that did not settle', () => {
  const settled = {kind: 'created', move_status: 'settled', http_status: 201}

  it('a settled row is done; one awaiting approval is done but no money; one approved, not settled, stays to send and is known by its key', async () => {
    const s = store()
    await planOf(s, 'b', rows('1.00', '2.00', '4.00'))
    const [one, two, four] = [...s.pending()]
    s.record(one, {state: 'done', move_id: 'm1', ...settled})
    s.record(two, {state: 'done', kind: 'created', move_id: 'm2', move_status: 'created', http_status: 201})
    s.record(four, {state: 'open', kind: 'created', move_id: 'm4', move_status: 'approved', http_status: 207, warning: 'settlement failed'})
    s.flush()
    const check = () => {
      expect(s.summary()).toMatchObject({rows: 3, pending: 1, fresh: 0, open: 1, pendingTotals: {USD: 400}, doneTotals: {USD: 100}, awaiting: {n: 1, totals: {USD: 200}}})
      expect([...s.pending()].map((r) => r.line)).toEqual([4])
      expect(s.openMove(four.key)).toEqual({id: 'm4', status: 'approved'})
      expect(s.openMove(one.key)).toBeUndefined()
    }
    check()
    // Planned again (the file changed or the plan was dropped): the same, read from the journal.
    await planOf(s, 'b', rows('1.00', '2.00', '4.00'))
    check()
    // Sent again and the run killed before its answer: what the journal knew of the move stays.
    s.record(four, {state: 'sent'})
    s.flush()
    check()
    // The next run's replay settles it.
    s.record(four, {state: 'done', kind: 'advanced', move_id: 'm4', move_status: 'settled', http_status: 200})
    s.flush()
    expect(s.summary()).toMatchObject({pending: 0, open: 0, doneTotals: {USD: 500}, awaiting: {n: 1, totals: {USD: 200}}})
    s.close()
  })

  it('a journal of the earlier schema that recorded a 207 as done is brought up to date: that row is sent again', async () => {
    const keyed = store()
    await planOf(keyed, 'b', rows('1.00', '2.00'))
    const [one, two] = [...keyed.pending()]
    keyed.close()
    // What the earlier code wrote: both rows done, the second with its 207 warning and `approved`.
    const path = join(tempDir().path, 'old.payops-import.sqlite')
    const before207 = IMPORT_SCHEMA.migrations.findIndex((m) => m.includes("UPDATE journal SET state = 'open'"))
    const old = openDatabase(path, {...IMPORT_SCHEMA, migrations: IMPORT_SCHEMA.migrations.slice(0, before207)})
    old.exec(`INSERT INTO batch (one, batch_id, file, created_at) VALUES (1, 'b', 'f', 'now')`)
    const put = old.prepare(`INSERT INTO journal (key, fp, derived, line, state, kind, move_id, move_status, http_status, warning, at) VALUES (?, ?, 1, ?, 'done', 'created', ?, ?, ?, ?, 'now')`)
    put.run(one.key, one.fp, one.line, 'm1', 'settled', 201, null)
    put.run(two.key, two.fp, two.line, 'm2', 'approved', 207, 'settlement failed')
    old.close()
    const s = ImportStore.open(path)
    await planOf(s, 'b', rows('1.00', '2.00'))
    expect(s.summary()).toMatchObject({pending: 1, open: 1, doneTotals: {USD: 100}})
    expect(s.openMove(two.key)).toEqual({id: 'm2', status: 'approved'})
    s.close()
  })
})
