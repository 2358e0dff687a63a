/**
 * Resume correctness, property-based: an import is killed at random points (the sender stops the
 * process mid-run; the journal keeps any prefix of what was written that holds the batch record,
 * as after kill -9 with a torn or unflushed tail), sends fail at random, and re-runs follow until
 * one finishes. Every row must end with exactly one move, made with its key, whatever happened.
 */
import fc from 'fast-check'
import {appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import type {Move} from '../../src/api/schemas/moves.js'
import {ApiError} from '../../src/errors.js'
import {assignKeys, parseImportCsv} from '../../src/import/csv.js'
import {importFile, type ImportPlan} from '../../src/import/index.js'
import {planCachePath} from '../../src/import/cache.js'
import type {KeyedRow, RowOutcome, RowSender} from '../../src/import/send.js'

const A = '11111111-1111-4111-8111-111111111111'
const B = '22222222-2222-4222-8222-222222222222'
const dir = mkdtempSync(join(tmpdir(), 'payops-import-resume-'))
afterAll(() => rmSync(dir, {recursive: true, force: true}))
let files = 0

class Killed extends Error {}

/** The API: one move per key; a key sent again replays its move (and must carry the same content). */
function fakeServer() {
  const moves = new Map<string, {content: string; id: string}>()
  return {
    moves,
    apply(row: KeyedRow): RowOutcome {
      const content = `${row.amount_in_minor_units}/${row.client_metadata?.ref ?? ''}`
      const had = moves.get(row.key)
      const move = (id: string): Move => ({id, from_subaccount_id: row.from_subaccount_id, to_subaccount_id: row.to_subaccount_id, amount_in_minor_units: row.amount_in_minor_units, status: 'settled'})
      if (had) {
        expect(had.content).toBe(content)
        return {kind: 'replayed', httpStatus: 200, move: move(had.id)}
      }
      const id = `mv_${moves.size + 1}`
      moves.set(row.key, {content, id})
      return {kind: 'created', httpStatus: 201, move: move(id)}
    },
  }
}

/** How the plans of the property were made (each path must be taken). */
const via = {keyed: 0, cache: 0, matched: 0}

/** A plan of the fast path is the plan matchRows gives: the same keys, lines, done and known rows, counts. */
async function expectSameAsMatched(file: string, p: ImportPlan): Promise<void> {
  via[p.via]++
  if (p.via === 'matched') return
  const m = await importFile.plan(file, {defaultCurrency: 'USD', matchAll: true})
  expect(m.changed).toEqual([])
  expect(m.missing).toEqual([])
  // A batch's first run (no batch yet) gets a new batch id each time: its keys are checked below.
  const batch = Boolean(p.state.batch)
  if (batch) expect(p.batchId).toBe(m.batchId)
  expect(p.rowCount).toBe(m.rowCount)
  const rows = (q: ImportPlan) => Array.from({length: q.rowCount}, (_, i) => ({...q.table.at(i), done: q.table.isDone(i), ...(batch ? {} : {key: ''})}))
  expect(rows(p)).toEqual(rows(m))
  expect([p.pendingCount, p.table.fresh, p.alreadyDone, p.journaled > 0]).toEqual([m.pendingCount, m.table.fresh, m.alreadyDone, m.journaled > 0])
  expect(p.pendingTotals).toEqual(m.pendingTotals)
}

/** A row: amounts from a small set, so that identical rows (numbered by occurrence) are common; some with a key cell. */
const row = fc.record({amount: fc.integer({min: 1, max: 4}), ref: fc.constantFrom('', 'x', 'y'), keyed: fc.boolean()})

const run = fc.record({
  /** The plan cache is lost before this run. */
  dropCache: fc.boolean(),
  /** Rows appended to the file before this run. */
  append: fc.array(row, {maxLength: 3}),
  /** Kill after this many sends of the run (none: the run is not killed). */
  killAfter: fc.option(fc.nat({max: 30}), {nil: undefined}),
  /** The kill lands before or after the API made the move it was sending. */
  killLanded: fc.boolean(),
  /** The share of the journal written after the batch record that survives the kill. */
  keep: fc.double({min: 0, max: 1, noNaN: true}),
  /** Sends that fail (503) in this run, by their number in the run. */
  failures: fc.uniqueArray(fc.nat({max: 30}), {maxLength: 4}),
  concurrency: fc.integer({min: 1, max: 6}),
})

describe('moves import resumes exactly once after kills at random points', () => {
  it('every row ends with exactly one move, under its key', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(row, {minLength: 1, maxLength: 30}),
        fc.array(run, {maxLength: 4}),
        async (first, runs) => {
          const rows = [...first]
          const file = join(dir, `f${++files}.csv`)
          const text = (r: (typeof rows)[number], i: number) => `${A},${B},${r.amount},${r.ref},${r.keyed ? `key-${i}` : ''}`
          writeFileSync(file, ['from,to,amount_in_minor_units,metadata.ref,idempotency_key', ...rows.map(text)].join('\n') + '\n')
          const journal = `${file}.payops-journal.jsonl`
          const server = fakeServer()
          let finished = false
          // The random runs, then clean runs until one finishes.
          for (const r of [...runs, ...Array.from({length: 3}, () => undefined)]) {
            if (r?.dropCache) rmSync(planCachePath(file), {force: true})
            for (const added of r?.append ?? []) appendFileSync(file, text(added, rows.push(added) - 1) + '\n')
            const plan = await importFile.plan(file, {defaultCurrency: 'USD'})
            expect(plan.errors).toEqual([])
            expect(plan.changed).toEqual([])
            await expectSameAsMatched(file, plan)
            let sends = 0
            let dead = false
            const send: RowSender = async (row) => {
              if (dead) throw new Killed()
              const n = sends++
              await Promise.resolve()
              if (r?.killAfter === n) {
                dead = true
                if (r.killLanded) server.apply(row)
                throw new Killed()
              }
              if (r?.failures.includes(n)) throw new ApiError({status: 503, message: 'unavailable'})
              return server.apply(row)
            }
            let result
            try {
              result = await importFile.run(plan, {concurrency: r?.concurrency ?? 4, defaultCurrency: 'USD', send})
            } catch (err) {
              if (!(err instanceof Killed)) throw err
            } finally {
              plan.close()
            }
            await new Promise((res) => setTimeout(res, 1))
            if (!result) {
              // kill -9: what reached the disk is a prefix of the journal that holds the batch record.
              const first = readFileSync(journal, 'utf8').indexOf('\n') + 1
              const size = statSync(journal).size
              truncateSync(journal, first + Math.floor((size - first) * r!.keep))
              continue
            }
            expect(result.already_done + result.created + result.replayed + result.advanced + result.partial + result.failed + result.not_sent).toBe(rows.length)
            if (!r && result.failed === 0) {
              finished = true
              break
            }
          }
          expect(finished).toBe(true)
          // Exactly one move per row: as many moves as rows, with the rows' contents.
          expect(server.moves.size).toBe(rows.length)
          const made = [...server.moves.values()].map((m) => m.content).sort()
          expect(made).toEqual(rows.map((r) => `${r.amount}/${r.ref}`).sort())
          // A last run sends nothing: every key is journaled as done.
          const again = await importFile.plan(file, {defaultCurrency: 'USD'})
          expect(again.pendingCount).toBe(0)
          expect(new Set(Array.from({length: again.rowCount}, (_, i) => again.table.keyOf(i)))).toEqual(new Set(server.moves.keys()))
          // A finished batch leaves no plan cache.
          expect(existsSync(planCachePath(file))).toBe(false)
        },
      ),
      {numRuns: 60},
    )
    // Resumes took the fast path, with and without the plan cache.
    expect(via.keyed).toBeGreaterThan(0)
    expect(via.cache).toBeGreaterThan(0)
  }, 120_000)
})

describe('the first run keys rows as it reads them', () => {
  it('the same keys as a batch gives its rows (key cells, identical rows numbered in file order)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.record({amount: fc.integer({min: 1, max: 3}), key: fc.option(fc.uuid(), {nil: undefined})}), {minLength: 1, maxLength: 25}), async (rows) => {
        const text = ['from,to,amount_in_minor_units,idempotency_key', ...rows.map((r) => `${A},${B},${r.amount},${r.key ?? ''}`)].join('\n') + '\n'
        const parsed = parseImportCsv(text)
        fc.pre(parsed.errors.length === 0)
        const file = join(dir, `k${++files}.csv`)
        writeFileSync(file, text)
        const plan = await importFile.plan(file, {defaultCurrency: 'USD'})
        expect(plan.errors).toEqual([])
        const keys = Array.from({length: plan.rowCount}, (_, i) => plan.table.keyOf(i))
        expect(keys).toEqual(assignKeys(parsed.rows, plan.batchId).map((r) => r.key))
        expect(Array.from({length: plan.rowCount}, (_, i) => plan.table.lineOf(i))).toEqual(parsed.rows.map((r) => r.line))
      }),
      {numRuns: 40},
    )
  })

  it('the same keys for a file of thousands of rows, many of them identical', async () => {
    const text = ['from,to,amount_in_minor_units', ...Array.from({length: 5000}, (_, i) => `${A},${B},${1 + ((i * 7919) % 1500)}`)].join('\n') + '\n'
    const file = join(dir, `big${++files}.csv`)
    writeFileSync(file, text)
    const plan = await importFile.plan(file, {defaultCurrency: 'USD'})
    const keys = Array.from({length: plan.rowCount}, (_, i) => plan.table.keyOf(i))
    expect(keys).toEqual(assignKeys(parseImportCsv(text).rows, plan.batchId).map((r) => r.key))
    expect(new Set(keys).size).toBe(5000)
  })
})
