/**
 * The journal read by line (scanJournal, for resuming fast) against readJournal: on the same
 * journals (compact and verbose records, keys derived or not, outcomes by line or naming their
 * key, torn and corrupt lines), either it gives what readJournal gives, by line, or it gives
 * undefined (then readJournal and matchRows decide). It never accepts a journal readJournal
 * refuses. And alignWithJournal accepts a journal only when each of its lines holds that row's
 * first-run key and content.
 */
import fc from 'fast-check'
import {appendFileSync, mkdtempSync, rmSync, truncateSync, statSync, utimesSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {contentHash, deriveKey} from '../../src/import/csv.js'
import {importFile} from '../../src/import/index.js'
import {JournalWriter, readJournal, type JournalState} from '../../src/import/journal.js'
import {alignWithJournal, scanJournal, type JournalIndex} from '../../src/import/scan.js'
import {OFFSET_EVERY} from '../../src/import/table.js'

const dir = mkdtempSync(join(tmpdir(), 'payops-scan-'))
afterAll(() => rmSync(dir, {recursive: true, force: true}))
let files = 0
const batch = '5d0c7c2e-0000-4000-8000-000000000001'

const op = fc.oneof(
  {weight: 5, arbitrary: fc.record({t: fc.constant('sent' as const), line: fc.integer({min: 2, max: 7}), key: fc.oneof(fc.integer({min: 1, max: 6}), fc.constantFrom('mine', '~tilde', '=eq', 'k"q')), fp: fc.option(fc.integer({min: 0, max: 3}), {nil: undefined}), verbose: fc.boolean()})},
  {weight: 4, arbitrary: fc.record({t: fc.constant('done' as const), line: fc.integer({min: 2, max: 7}), other: fc.boolean(), warning: fc.option(fc.constantFrom('w', 'quote " and \\ slash', 'x\ny'), {nil: undefined})})},
  {weight: 2, arbitrary: fc.record({t: fc.constant('failed' as const), line: fc.integer({min: 2, max: 7}), status: fc.constantFrom(400, 409, 503)})},
  {weight: 1, arbitrary: fc.record({t: fc.constant('finished' as const)})},
  {weight: 1, arbitrary: fc.record({t: fc.constant('raw' as const), text: fc.constantFrom('', '   ', 'garbage', '["x",2]', '{"type":"done","l":"2"}', '{"type":"other"}', '{"type":"done","l":3,"m":"m","o":"c"', '["s",2.5,"~AAAAAAAAAAAAAAAAAAAAAA"]')})},
)

const keyOf = (k: number | string) => (typeof k === 'number' ? deriveKey(batch, '["x"]', k) : k)
const fpOf = (n: number) => contentHash(String(n))

/** What readJournal gives, by line: every key's line, key, content hash and whether it is done. */
function expectSame(idx: JournalIndex, st: JournalState): void {
  expect(idx.batch).toEqual(st.batch)
  expect(Boolean(idx.finished)).toBe(Boolean(st.finished))
  expect(idx.tornTail).toBe(st.tornTail)
  const byLine = new Map<number, string>()
  for (let line = 0; line < idx.flags.length; line++) if (idx.has(line)) byLine.set(line, idx.keyAt(line)!)
  if (new Set(byLine.values()).size !== byLine.size) return // a key on two lines: no file aligns with it
  expect(idx.keyed).toBe(st.entries.size)
  for (const e of st.entries.values()) {
    expect(byLine.get(e.line)).toBe(e.key)
    expect(idx.fpAt(e.line)).toBe(e.fp)
    expect(idx.isDone(e.line)).toBe(st.done.has(e.key))
  }
}

describe('the journal read by line', () => {
  it('gives what readJournal gives, or nothing; never accepts a journal it refuses', () => {
    const seen = {same: 0, general: 0, refused: 0}
    fc.assert(
      fc.property(fc.array(op, {maxLength: 25}), fc.option(fc.nat({max: 60}), {nil: undefined}), (ops, cut) => {
        const path = join(dir, `j${++files}.jsonl`)
        const w = new JournalWriter(path, 60_000, 1_000_000)
        w.append({type: 'batch', batch_id: batch, file: 'f.csv', file_sha256: 'x', rows: 6, created_at: 'now'})
        const last = new Map<number, string>()
        const raw = (text: string) => {
          w.flush()
          appendFileSync(path, text + '\n')
        }
        for (const o of ops) {
          if (o.t === 'sent') {
            const key = keyOf(o.key)
            last.set(o.line, key)
            const fp = o.fp === undefined ? undefined : fpOf(o.fp)
            if (o.verbose) raw(JSON.stringify({type: 'sent', line: o.line, key, ...(fp ? {fp} : {}), at: 'now'}))
            else w.append({type: 'sent', line: o.line, key, ...(fp ? {fp} : {})})
          } else if (o.t === 'done') {
            const key = o.other || !last.has(o.line) ? 'other-key' : last.get(o.line)!
            w.append({type: 'done', line: o.line, key, move_id: 'mv', status: 'settled', http_status: 201, replayed: false, kind: 'created', ...(o.warning ? {warning: o.warning} : {})})
          } else if (o.t === 'failed') {
            w.append({type: 'failed', line: o.line, key: last.get(o.line) ?? 'other-key', status: o.status, message: 'no'})
          } else if (o.t === 'finished') w.append({type: 'finished', file_sha256: 'x', at: 'now'})
          else raw(o.text)
        }
        w.close()
        // A kill: the journal is cut anywhere (a torn last line).
        if (cut !== undefined) truncateSync(path, Math.max(0, statSync(path).size - cut))
        let st: JournalState | undefined
        try {
          st = readJournal(path)
        } catch {
          st = undefined
        }
        const idx = scanJournal(path)
        if (!st) {
          expect(idx).toBeUndefined()
          seen.refused++
        } else if (idx) {
          expectSame(idx, st)
          seen.same++
        } else seen.general++
      }),
      {numRuns: 400},
    )
    expect(seen.same).toBeGreaterThan(50)
    expect(seen.refused).toBeGreaterThan(10)
  })

  it('reads the compact records of a large journal without parsing them', () => {
    const path = join(dir, 'large.jsonl')
    const w = new JournalWriter(path, 60_000, 100_000)
    w.append({type: 'batch', batch_id: batch, file: 'f.csv', file_sha256: 'x', rows: 30_000, created_at: 'now'})
    for (let line = 2; line < 30_002; line++) {
      const key = deriveKey(batch, `["${line}"]`, 1)
      w.append({type: 'sent', line, key, fp: fpOf(line)})
      if (line % 3) w.append({type: 'done', line, key, move_id: `mv_${line}`, status: 'settled', http_status: 201, replayed: false, kind: 'created'})
    }
    w.close()
    const idx = scanJournal(path)!
    const st = readJournal(path)
    expectSame(idx, st)
    expect(idx.keyed).toBe(30_000)
    expect(idx.done).toBe(st.done.size)
  })

  it('a journal with no batch record but with keys, or a line sent with two keys, is left to readJournal', () => {
    const path = join(dir, 'nobatch.jsonl')
    writeFileSync(path, JSON.stringify({type: 'sent', line: 2, key: 'k', fp: fpOf(1), at: 'now'}) + '\n')
    expect(scanJournal(path)).toBeUndefined()
    const two = join(dir, 'two.jsonl')
    const w = new JournalWriter(two)
    w.append({type: 'batch', batch_id: batch, file: 'f.csv', file_sha256: 'x', rows: 1, created_at: 'now'})
    w.append({type: 'sent', line: 2, key: keyOf(1), fp: fpOf(1)})
    w.append({type: 'sent', line: 2, key: keyOf(2), fp: fpOf(1)})
    w.close()
    expect(scanJournal(two)).toBeUndefined()
    expect(scanJournal(join(dir, 'absent.jsonl'))?.keyed).toBe(0)
  })
})

describe('a journal aligned with its file', () => {
  const A = '11111111-1111-4111-8111-111111111111'
  const B = '22222222-2222-4222-8222-222222222222'

  /** A file of identical rows (keys numbered by occurrence) and a first run that sent some of them. */
  async function setUp(lines: string[]) {
    const file = join(dir, `a${++files}.csv`)
    writeFileSync(file, ['from,to,amount_in_minor_units,idempotency_key', ...lines].join('\n') + '\n')
    const first = await importFile.plan(file, {defaultCurrency: 'USD'})
    const w = new JournalWriter(`${file}.payops-journal.jsonl`)
    w.append({type: 'batch', batch_id: first.batchId, file, file_sha256: first.fileSha256, rows: first.rowCount, created_at: 'now'})
    return {file, first, w}
  }

  it('is accepted when every journaled line holds its row (content and first-run key); rows are marked', async () => {
    const {file, first, w} = await setUp([`${A},${B},5,`, `${A},${B},5,`, `${A},${B},7,own`, `${A},${B},5,`])
    for (const i of [1, 2]) {
      const r = first.table.at(i)
      w.append({type: 'sent', line: r.line, key: r.key, fp: contentHash(JSON.stringify([A, B, i === 2 ? 7 : 5, 'USD', null, null]))})
    }
    w.append({type: 'done', line: 3, key: first.table.keyOf(1), move_id: 'm', status: 'settled', http_status: 201, replayed: false, kind: 'created'})
    w.close()
    const p = await importFile.plan(file, {defaultCurrency: 'USD'})
    expect(p.via).toBe('keyed')
    expect([p.alreadyDone, p.pendingCount, p.table.fresh]).toEqual([1, 3, 2])
    expect(Array.from({length: 4}, (_, i) => p.table.keyOf(i))).toEqual(Array.from({length: 4}, (_, i) => first.table.keyOf(i)))
  })

  it('falls back to matching when a journaled line now holds other content, another key, or no row', async () => {
    for (const wrong of ['content', 'key', 'line'] as const) {
      const {file, first, w} = await setUp([`${A},${B},5,`, `${A},${B},5,`, `${A},${B},6,`])
      const r = first.table.at(1)
      const fp = contentHash(JSON.stringify([A, B, wrong === 'content' ? 6 : 5, 'USD', null, null]))
      // The second identical row sent with the first's key: not the key a first run gives line 3.
      const key = wrong === 'key' ? first.table.keyOf(0) : r.key
      w.append({type: 'sent', line: wrong === 'line' ? 9 : r.line, key, fp})
      w.close()
      const idx = scanJournal(`${file}.payops-journal.jsonl`)!
      expect(idx.keyed).toBe(1)
      // Against the first run's keying (the table of the plan made before anything was sent).
      expect(alignWithJournal(first.table, idx)).toBe(false)
      const p = await importFile.plan(file, {defaultCurrency: 'USD'})
      expect(p.via).toBe('matched')
    }
  })
})

describe('the send pass of a resume', () => {
  const A = '11111111-1111-4111-8111-111111111111'
  const B = '22222222-2222-4222-8222-222222222222'
  /** A file of `rows` rows whose first `done` rows a journal records as done. */
  async function resumed(rows: number, done: number) {
    const file = join(dir, `sent${++files}.csv`)
    const lines = (first: number) => ['from,to,amount_in_minor_units', ...Array.from({length: rows}, (_, i) => `${A},${B},${i === 0 ? first : 100 + i}`)].join('\n') + '\n'
    writeFileSync(file, lines(5))
    const first = await importFile.plan(file, {defaultCurrency: 'USD'})
    const w = new JournalWriter(`${file}.payops-journal.jsonl`)
    w.append({type: 'batch', batch_id: first.batchId, file, file_sha256: first.fileSha256, rows, created_at: 'now'})
    for (let i = 0; i < done; i++) {
      const r = first.table.at(i)
      w.append({type: 'sent', line: i + 2, key: r.key, fp: contentHash(JSON.stringify([A, B, i === 0 ? 5 : 100 + i, 'USD', null, null]))})
      w.append({type: 'done', line: i + 2, key: r.key, move_id: `m${i}`, status: 'settled', http_status: 201, replayed: false, kind: 'created'})
    }
    w.close()
    first.close()
    const p = await importFile.plan(file, {defaultCurrency: 'USD'})
    expect([p.alreadyDone, p.pendingCount]).toEqual([done, rows - done])
    // The first row (done) edited, at the same length.
    writeFileSync(file, lines(7))
    const t = Date.now() / 1000 + 5
    utimesSync(file, t, t)
    return p
  }
  const send = () => Promise.reject(new Error('nothing may be sent'))

  it('stops when the file changed after it was planned, even in rows it does not read again', async () => {
    // Row 1,025 is the first to send: reading starts at row 1,024 (an offset is kept every 1,024 rows).
    const p = await resumed(OFFSET_EVERY + 2, OFFSET_EVERY + 1)
    await expect(importFile.run(p, {concurrency: 1, defaultCurrency: 'USD', send})).rejects.toThrow(new RegExp(`changed while it was imported \\(line ${OFFSET_EVERY + 3}\\)`))
    p.close()
  })

  it('a resume before the first kept offset reads the file from its top, and finds the edited row there', async () => {
    const p = await resumed(3, 1)
    await expect(importFile.run(p, {concurrency: 1, defaultCurrency: 'USD', send})).rejects.toThrow(/changed while it was imported \(line 2\)/)
    p.close()
  })
})
