/**
 * Resume correctness, property-based: an import is killed at random points (the sender stops the
 * run mid-way), any part of its journal is lost (more than a killed process can lose: it keeps
 * every committed group), the kept plan is dropped at random, rows are appended, sends fail at
 * random, and re-runs follow until one finishes. Every row must end with exactly one move, made
 * with its key, whatever happened.
 */
import fc from 'fast-check'
import {appendFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import type {Move} from '../../src/api/schemas/moves.js'
import {ApiError} from '../../src/errors.js'
import {deriveKey, parseImportCsv} from '../../src/import/csv.js'
import {databasePathFor, importFile} from '../../src/import/index.js'
import type {KeyedRow, RowOutcome, RowSender} from '../../src/import/send.js'
import {ImportStore} from '../../src/import/store.js'
import {tempDir} from '../support/env.js'

const A = '11111111-1111-4111-8111-111111111111'
const B = '22222222-2222-4222-8222-222222222222'
const dir = tempDir('payops-import-resume-').path
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

/** The keys a batch gives a file's rows: the key cell, else the content's occurrence number in file order. */
function referenceKeys(text: string, batchId: string): string[] {
  const seen = new Map<string, number>()
  return parseImportCsv(text).rows.map((r) => {
    if (r.idempotency_key) return r.idempotency_key
    const n = (seen.get(r.fingerprint) ?? 0) + 1
    seen.set(r.fingerprint, n)
    return deriveKey(batchId, r.fingerprint, n)
  })
}

/** A row: amounts from a small set, so that identical rows (numbered by occurrence) are common; some with a key cell. */
const row = fc.record({amount: fc.integer({min: 1, max: 4}), ref: fc.constantFrom('', 'x', 'y'), keyed: fc.boolean()})

const run = fc.record({
  /** The kept plan is dropped before this run (it is made again from the file). */
  dropPlan: fc.boolean(),
  /** Rows appended to the file before this run. */
  append: fc.array(row, {maxLength: 3}),
  /** Kill after this many sends of the run (none: the run is not killed). */
  killAfter: fc.option(fc.nat({max: 30}), {nil: undefined}),
  /** The kill lands before or after the API made the move it was sending. */
  killLanded: fc.boolean(),
  /** The share of the journal's records lost with the kill, chosen anywhere in it. */
  lose: fc.double({min: 0, max: 1, noNaN: true}),
  /** Sends that fail (503) in this run, by their number in the run. */
  failures: fc.uniqueArray(fc.nat({max: 30}), {maxLength: 4}),
  concurrency: fc.integer({min: 1, max: 6}),
})

describe('moves import resumes exactly once after kills at random points', () => {
  it('every row ends with exactly one move, under its key', async () => {
    let reused = 0
    let replanned = 0
    await fc.assert(
      fc.asyncProperty(
        fc.array(row, {minLength: 1, maxLength: 30}),
        fc.array(run, {maxLength: 4}),
        async (first, runs) => {
          const rows = [...first]
          const file = join(dir, `f${++files}.csv`)
          const text = (r: (typeof rows)[number], i: number) => `${A},${B},${r.amount},${r.ref},${r.keyed ? `key-${i}` : ''}`
          writeFileSync(file, ['from,to,amount_in_minor_units,metadata.ref,idempotency_key', ...rows.map(text)].join('\n') + '\n')
          const server = fakeServer()
          let finished = false
          // The random runs, then clean runs until one finishes.
          for (const r of [...runs, ...Array.from({length: 3}, () => undefined)]) {
            if (r?.dropPlan || r?.append.length) {
              const s = ImportStore.open(databasePathFor(file))
              s.db.exec('DELETE FROM plan_meta')
              s.close()
            }
            for (const added of r?.append ?? []) appendFileSync(file, text(added, rows.push(added) - 1) + '\n')
            const plan = await importFile.plan(file, {defaultCurrency: 'USD'})
            expect(plan.errors).toEqual([])
            expect(plan.changed).toEqual([])
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
              result = await importFile.run(plan, {concurrency: r?.concurrency ?? 4, send})
            } catch (err) {
              if (!(err instanceof Killed)) throw err
            } finally {
              await plan.close()
            }
            if (!result) {
              // Killed: records of the journal are lost (any of them, a share of `lose`).
              const s = ImportStore.open(databasePathFor(file))
              const keys = s.db.prepare('SELECT key FROM journal ORDER BY key').all<{key: string}>().map((k) => k.key)
              for (const k of keys.slice(0, Math.floor(keys.length * r!.lose))) s.db.prepare('DELETE FROM journal WHERE key = ?').run(k)
              s.close()
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
          // A last run sends nothing: every key is journaled as done, and the plan was kept.
          const s = ImportStore.open(databasePathFor(file))
          const hadPlan = Boolean(s.db.prepare('SELECT 1 AS x FROM plan_meta').get())
          s.close()
          const again = await importFile.plan(file, {defaultCurrency: 'USD'})
          if (hadPlan) reused++
          else replanned++
          expect(again.pendingCount).toBe(0)
          expect(new Set(again.store.db.prepare('SELECT key FROM plan').all<{key: string}>().map((k) => k.key))).toEqual(new Set(server.moves.keys()))
          await again.close()
        },
      ),
      {numRuns: 60},
    )
    expect(reused).toBeGreaterThan(0)
    expect(replanned + reused).toBe(60)
  }, 120_000)
})

describe('the first run keys rows as it reads them', () => {
  it('key cells, and identical rows numbered in file order', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.record({amount: fc.integer({min: 1, max: 3}), key: fc.option(fc.uuid(), {nil: undefined})}), {minLength: 1, maxLength: 25}), async (rows) => {
        const text = ['from,to,amount_in_minor_units,idempotency_key', ...rows.map((r) => `${A},${B},${r.amount},${r.key ?? ''}`)].join('\n') + '\n'
        fc.pre(parseImportCsv(text).errors.length === 0)
        const file = join(dir, `k${++files}.csv`)
        writeFileSync(file, text)
        const plan = await importFile.plan(file, {defaultCurrency: 'USD'})
        expect(plan.errors).toEqual([])
        const planned = [...plan.pending()]
        expect(planned.map((r) => r.key)).toEqual(referenceKeys(text, plan.batchId))
        expect(planned.map((r) => r.line)).toEqual(parseImportCsv(text).rows.map((r) => r.line))
        await plan.close()
      }),
      {numRuns: 40},
    )
  })

  it('the same keys for a file of thousands of rows, many of them identical', async () => {
    const text = ['from,to,amount_in_minor_units', ...Array.from({length: 5000}, (_, i) => `${A},${B},${1 + ((i * 7919) % 1500)}`)].join('\n') + '\n'
    const file = join(dir, `big${++files}.csv`)
    writeFileSync(file, text)
    const plan = await importFile.plan(file, {defaultCurrency: 'USD'})
    const keys = [...plan.pending()].map((r) => r.key)
    expect(keys).toEqual(referenceKeys(text, plan.batchId))
    expect(new Set(keys).size).toBe(5000)
    await plan.close()
  })
})
