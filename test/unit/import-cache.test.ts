/**
 * The plan cache (FILE.payops-plan): a round trip gives the table it was written from (as planned:
 * before the checks set any currency), and it is not used when the file, the default currency or
 * the batch differ, or when its own bytes were damaged.
 */
import {mkdtempSync, readFileSync, rmSync, statSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {planCachePath, readPlanCache, writePlanCache} from '../../src/import/cache.js'
import {importFile} from '../../src/import/index.js'
import type {RowTable} from '../../src/import/table.js'

const A = '11111111-1111-4111-8111-111111111111'
const B = '22222222-2222-4222-8222-222222222222'
const C = '33333333-3333-4333-8333-333333333333'
const dir = mkdtempSync(join(tmpdir(), 'payops-plan-cache-'))
afterAll(() => rmSync(dir, {recursive: true, force: true}))

const rows = (t: RowTable) => Array.from({length: t.length}, (_, i) => ({...t.at(i), done: t.isDone(i), resume: t.resumePoint(i)}))

async function planned(name: string, text: string) {
  const file = join(dir, name)
  writeFileSync(file, text)
  const p = await importFile.plan(file, {defaultCurrency: 'USD'})
  expect(p.errors).toEqual([])
  return {file, p}
}

describe('the plan cache', () => {
  const text = ['from,to,amount,currency,idempotency_key,metadata.ref', `${A},${B},1.00,,,a`, `${A},${C},2.50,EUR,own-key,"b, quoted"`, `${A},${B},1.00,,,a`, `${C},${B},3,JPY,,`].join('\r\n') + '\r\n'

  it('round trip: the same rows, keys, currencies, offsets; mode 0600', async () => {
    const {file, p} = await planned('round.csv', text)
    expect(p.via).toBe('keyed')
    expect(writePlanCache(file, p.table, {fileSha256: p.fileSha256, defaultCurrency: 'USD', batchId: p.batchId})).toBe(true)
    expect(statSync(planCachePath(file)).mode & 0o777).toBe(0o600)
    const back = readPlanCache(file, 'USD', p.batchId)!
    expect(back.fileSha256).toBe(p.fileSha256)
    expect(rows(back.table)).toEqual(rows(p.table))
    expect([back.table.pending, back.table.fresh, back.table.headerLine, back.table.delimiter]).toEqual([4, 4, 1, ['0d0a']])
    expect(back.table.totals(false)).toEqual(p.table.totals(false))
  })

  it('keeps the currencies as planned, not as the checks set them', async () => {
    const {file, p} = await planned('checked.csv', ['from,to,amount_in_minor_units', `${A},${B},100`, `${A},${B},200`].join('\n') + '\n')
    p.table.setCurrency(0, 'EUR')
    writePlanCache(file, p.table, {fileSha256: p.fileSha256, defaultCurrency: 'USD', batchId: p.batchId})
    expect(readPlanCache(file, 'USD', p.batchId)!.table.totals(false)).toEqual({USD: 300})
  })

  it('is not used for another file content, default currency or batch, nor when damaged', async () => {
    const {file, p} = await planned('stale.csv', text)
    const write = () => writePlanCache(file, p.table, {fileSha256: p.fileSha256, defaultCurrency: 'USD', batchId: p.batchId})
    write()
    expect(readPlanCache(file, 'EUR', p.batchId)).toBeUndefined()
    expect(readPlanCache(file, 'USD', '00000000-0000-4000-8000-000000000000')).toBeUndefined()
    // The same size, one byte changed.
    writeFileSync(file, text.replace('2.50', '2.51'))
    expect(readPlanCache(file, 'USD', p.batchId)).toBeUndefined()
    // A row appended.
    writeFileSync(file, text + `${A},${B},1.00,,,z\r\n`)
    expect(readPlanCache(file, 'USD', p.batchId)).toBeUndefined()
    writeFileSync(file, text)
    expect(readPlanCache(file, 'USD', p.batchId)).toBeDefined()
    // Its own bytes damaged: a key digest, then the length.
    const cache = readFileSync(planCachePath(file))
    const bad = Buffer.from(cache)
    bad[bad.length - 3] ^= 1
    writeFileSync(planCachePath(file), bad)
    expect(readPlanCache(file, 'USD', p.batchId)).toBeUndefined()
    writeFileSync(planCachePath(file), cache.subarray(0, cache.length - 8))
    expect(readPlanCache(file, 'USD', p.batchId)).toBeUndefined()
    writeFileSync(planCachePath(file), 'PAYOPS-PLAN\n')
    expect(readPlanCache(file, 'USD', p.batchId)).toBeUndefined()
  })
})

describe('narrow arrays of a plan', () => {
  const uuid = (n: number) => `${n.toString(16).padStart(8, '0')}-1111-4111-8111-${n.toString(16).padStart(12, '0')}`

  it('amounts and subaccount numbers stay narrow while they fit: 4 and 2 bytes a row', async () => {
    const {p} = await planned('narrow.csv', ['from,to,amount_in_minor_units', `${A},${B},${2 ** 32 - 1}`, `${B},${C},1`].join('\n') + '\n')
    const d = p.table.dump()
    expect([d.amount.BYTES_PER_ELEMENT, d.from.BYTES_PER_ELEMENT, d.to.BYTES_PER_ELEMENT]).toEqual([4, 2, 2])
    expect(p.table.at(0).amount_in_minor_units).toBe(2 ** 32 - 1)
    p.close()
  })

  it('a larger amount and a 65,537th subaccount widen them, rows already planned unchanged; the cache keeps the widths', async () => {
    const n = 70_000
    const lines = ['from,to,amount_in_minor_units']
    for (let i = 0; i < n; i++) lines.push(`${uuid(i)},${uuid(n + (i % 7))},${i === 40_000 ? 2 ** 40 + 3 : i + 1}`)
    const {file, p} = await planned('wide.csv', lines.join('\n') + '\n')
    const d = p.table.dump()
    expect([d.amount.BYTES_PER_ELEMENT, d.from.BYTES_PER_ELEMENT, d.to.BYTES_PER_ELEMENT]).toEqual([8, 4, 4])
    for (const i of [0, 39_999, 40_000, 65_530, 69_999]) {
      const r = p.table.at(i)
      expect([r.from_subaccount_id, r.to_subaccount_id, r.amount_in_minor_units, r.line]).toEqual([uuid(i), uuid(n + (i % 7)), i === 40_000 ? 2 ** 40 + 3 : i + 1, i + 2])
    }
    expect(writePlanCache(file, p.table, {fileSha256: p.fileSha256, defaultCurrency: 'USD', batchId: p.batchId})).toBe(true)
    const back = readPlanCache(file, 'USD', p.batchId)!
    expect(rows(back.table)).toEqual(rows(p.table))
    // A resume past the first rows starts at a kept offset: every 1,024th row.
    expect(back.table.resumePoint(5000)).toMatchObject({row: 4096, line: 4097})
    p.close()
  }, 30_000)
})
