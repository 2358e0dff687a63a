import {existsSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {parseImportCsv, type ImportRow} from '../../src/import/csv.js'
import {databasePathFor, importFile} from '../../src/import/index.js'
import {runImport} from '../../src/import/run.js'
import {ImportStore} from '../../src/import/store.js'
import {pipelineSender, settlementOf, type RowOutcome, type RowSender} from '../../src/import/send.js'
import type {MovementPorts} from '../../src/movements/types.js'
import type {MoveCreateInput} from '../../src/api/moves.js'
import {apiDouble} from './context.js'
import {response} from './doubles.js'
import {ApiError, UsageError} from '../../src/errors.js'
import {tempDir} from '../support/env.js'

const A = '00000000-0000-4000-8000-00000000000a'
const B = '00000000-0000-4000-8000-00000000000b'
/** Removed after the file (test/support/setup.ts). */
const dir = tempDir('payops-import-unit-').path

describe('parseImportCsv', () => {
  it('reads decimal and minor-unit amounts, currencies, auto_approve, metadata and keys', () => {
    const r = parseImportCsv(
      ['from,to,amount,currency,auto_approve,idempotency_key,metadata.invoice,metadata.empty', `${A},${B},1234.56,usd,no,k-1,INV-1,`, `${A},${B},12,JPY,,,,`].join('\n'),
    )
    expect(r.errors).toEqual([])
    expect(r.rows[0]).toMatchObject({line: 2, amount_in_minor_units: 123456, currency: 'USD', auto_approve: false, idempotency_key: 'k-1', client_metadata: {invoice: 'INV-1'}, decimal: true})
    expect(r.rows[1]).toMatchObject({line: 3, amount_in_minor_units: 12, currency: 'JPY'})
    expect(r.rows[1].client_metadata).toBeUndefined()
    const minor = parseImportCsv(`from_subaccount_id,to_subaccount_id,amount_in_minor_units\n${A},${B},500`)
    expect(minor.rows[0]).toMatchObject({amount_in_minor_units: 500, currency: 'USD', decimal: false})
  })

  it('lists every bad row with its line number, across multi-line quoted cells', () => {
    const text = ['from,to,amount,metadata.note', `${A},${B},1.001,"two`, `lines"`, `${A},${A},1,x`, `${A},${B},abc,y`, `${A},${B},5`].join('\n')
    const r = parseImportCsv(text)
    expect(r.errors.map((e) => e.line)).toEqual([3, 4, 5, 6])
    expect(r.errors[0].message).toMatch(/more than 2 decimal/)
    expect(r.errors[1].message).toMatch(/must differ/)
    expect(r.errors[3].message).toMatch(/has 3 fields, the header has 4/)
  })

  it('refuses header problems, empty files and both amounts at once', () => {
    expect(parseImportCsv('').errors[0].message).toMatch(/empty/)
    expect(parseImportCsv('from,to,amount').errors[0].message).toMatch(/no rows/)
    expect(parseImportCsv('from,to,amount,amount').errors[0].message).toMatch(/appears twice/)
    expect(parseImportCsv(`from,to,amount,amount_in_minor_units\n${A},${B},1,100`).errors[0].message).toMatch(/not both/)
    expect(parseImportCsv(`from,to,amount,auto_approve\n${A},${B},1,maybe`).errors[0].message).toMatch(/auto_approve/)
  })

  it('is not fooled by prototype names in headers or cells', () => {
    expect(parseImportCsv('__proto__').errors[0].message).toMatch(/unknown column "__proto__"/)
    expect(parseImportCsv('constructor,to,amount').errors[0].message).toMatch(/unknown column "constructor"/)
    const r = parseImportCsv(`from,to,amount,auto_approve\n${A},${B},1,__proto__`)
    expect(r.errors[0].message).toMatch(/auto_approve "__proto__"/)
    // A metadata column named after a prototype property is a plain entry of the row's metadata:
    // the cell neither becomes the metadata object's prototype nor reaches any other object.
    const meta = parseImportCsv(`from,to,amount,metadata.__proto__,metadata.constructor\n${A},${B},1,x,y`)
    expect(meta.errors).toEqual([])
    const md = meta.rows[0].client_metadata!
    expect(Object.getOwnPropertyNames(md).sort()).toEqual(['__proto__', 'constructor'])
    expect(Object.getOwnPropertyDescriptor(md, '__proto__')?.value).toBe('x')
    expect(Object.getOwnPropertyDescriptor(md, 'constructor')?.value).toBe('y')
    expect([null, Object.prototype]).toContain(Object.getPrototypeOf(md))
    expect(JSON.parse(JSON.stringify(md))).toEqual(JSON.parse('{"__proto__": "x", "constructor": "y"}'))
    // A nested-looking name is still one flat entry; Object.prototype gains nothing.
    const nested = parseImportCsv(`from,to,amount,metadata.__proto__.polluted\n${A},${B},1,yes`)
    expect(Object.prototype).not.toHaveProperty('polluted')
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
    expect(nested.errors).toEqual([])
    expect(Object.getOwnPropertyNames(nested.rows[0].client_metadata!)).toEqual(['__proto__.polluted'])
    expect(nested.rows[0].client_metadata!['__proto__.polluted']).toBe('yes')
  })
})

const C = '00000000-0000-4000-8000-00000000000c'
let stores = 0

function rowsOf(lines: string[], header = 'from,to,amount'): ImportRow[] {
  const r = parseImportCsv([header, ...lines].join('\n'))
  expect(r.errors).toEqual([])
  return r.rows
}

/** A fresh import database with `rows` planned under `batch`. */
async function planned(rows: ImportRow[], batch: string, store = ImportStore.open(join(dir, `s${++stores}.sqlite`))): Promise<ImportStore> {
  await store.writePlan(batch, rows)
  return store
}

const keysOf = (s: ImportStore) => [...s.pending()].map((r) => r.key)

/**
 * An import database whose journal records `rows` as sent under `batch`. `outcome` per line:
 * done (default), sent (no answer recorded), or a failure status.
 */
async function journalOf(rows: ImportRow[], batch: string, opts: {outcome?: Record<number, 'sent' | number>} = {}): Promise<ImportStore> {
  const s = await planned(rows, batch)
  for (const r of [...s.pending()]) {
    const o = opts.outcome?.[r.line]
    if (o === 'sent') s.record(r, {state: 'sent'})
    else if (typeof o === 'number') s.record(r, {state: 'failed', error_status: o, message: 'x'})
    else s.record(r, {state: 'done', kind: 'created', move_id: `m${r.line}`, move_status: 'settled', http_status: 201})
  }
  s.flush()
  return s
}

describe('keys', () => {
  const rows = rowsOf([`${A},${B},1`, `${A},${B},1`, `${A},${B},2`])

  it('gives identical rows distinct keys and is stable for the same batch', async () => {
    const k1 = keysOf(await planned(rows, 'batch-1'))
    expect(new Set(k1).size).toBe(3)
    expect(keysOf(await planned(rows, 'batch-1'))).toEqual(k1)
    expect(keysOf(await planned(rows, 'batch-2'))).not.toEqual(k1)
    expect(k1.every((k) => k.length <= 255 && k.startsWith('payops-import-'))).toBe(true)
  })

  it('editing one row leaves the other rows\' keys unchanged', async () => {
    const edited = rowsOf([`${A},${B},1`, `${A},${B},1`, `${A},${B},3`])
    const before = keysOf(await planned(rows, 'b'))
    const after = keysOf(await planned(edited, 'b'))
    expect(after.slice(0, 2)).toEqual(before.slice(0, 2))
    expect(after[2]).not.toBe(before[2])
  })

  it('uses the idempotency_key column when given', async () => {
    const r = parseImportCsv(`from,to,amount,idempotency_key\n${A},${B},1,mine`).rows
    expect(keysOf(await planned(r, 'b'))).toEqual(['mine'])
  })

  it('totals per currency exactly, refusing unsafe totals', async () => {
    const s = await planned(parseImportCsv(`from,to,amount_in_minor_units,currency\n${A},${B},1,USD\n${A},${B},2,USD\n${A},${C},5,JPY`).rows, 'b')
    expect(s.summary().pendingTotals).toEqual({USD: 3, JPY: 5})
    const big = await planned(parseImportCsv(`from,to,amount_in_minor_units\n${A},${B},${Number.MAX_SAFE_INTEGER}\n${A},${B},1`).rows, 'b')
    expect(() => big.summary()).toThrow(UsageError)
  })
})

describe('journal', () => {
  it('records sent, done and failed outcomes; a later done wins over a failure, and nothing replaces a done', async () => {
    const s = await planned(rowsOf([`${A},${B},1`, `${A},${B},2`]), 'b1')
    const [first, second] = [...s.pending()]
    s.record(first, {state: 'sent'})
    s.record(first, {state: 'failed', error_status: 503, message: 'boom'})
    s.record(first, {state: 'done', kind: 'replayed', move_id: 'm2', move_status: 'settled', http_status: 200})
    s.record(first, {state: 'failed', error_status: 503, message: 'late'})
    s.record(second, {state: 'failed', error_status: 404, message: 'nope'})
    s.flush()
    const rows = s.db.prepare('SELECT line, state, kind, move_id, error_status FROM journal ORDER BY line').all()
    expect(rows).toEqual([
      {line: 2, state: 'done', kind: 'replayed', move_id: 'm2', error_status: null},
      {line: 3, state: 'failed', kind: null, move_id: null, error_status: 404},
    ])
    expect([...s.pending()].map((r) => r.line)).toEqual([3])
    s.close()
  })

  it('records are committed in groups and on close, and read back by the next run', async () => {
    const path = join(dir, 'groups.sqlite')
    const s = await planned(rowsOf([`${A},${B},1`]), 'b', ImportStore.open(path))
    const [r] = [...s.pending()]
    s.record(r, {state: 'done', kind: 'created', move_id: 'm', move_status: 'settled', http_status: 201})
    // Queued: another connection does not see it yet.
    const other = ImportStore.open(path)
    expect(other.db.prepare('SELECT COUNT(*) AS n FROM journal').get()).toEqual({n: 0})
    s.close()
    expect(other.db.prepare('SELECT COUNT(*) AS n FROM journal').get()).toEqual({n: 1})
    other.close()
  })

  it('a journal file that is not an import database is an error naming it, not a silent restart', () => {
    const path = join(dir, 'corrupt.sqlite')
    writeFileSync(path, '{"type":"batch","batch_id":"b"}\nnot json\n'.repeat(40))
    expect(() => ImportStore.open(path)).toThrow(/corrupt\.sqlite is not a payops import database/)
    expect(readFileSync(path, 'utf8')).toMatch(/^\{"type":"batch"/)
  })
})

describe('the plan against its journal (a re-run recognises the rows already sent)', () => {
  const sent = rowsOf([`${A},${B},1`, `${A},${B},2`, `${A},${C},3`])

  it('a first run: every row pending, keyed as a batch keys them', async () => {
    const s = await journalOf([], 'batch')
    await s.writePlan('batch', sent)
    expect(keysOf(s)).toEqual(keysOf(await planned(sent, 'batch')))
    expect(s.compare()).toEqual({changed: [], missing: []})
  })

  it('appended rows are new; the rows sent before keep their keys', async () => {
    const s = await journalOf(sent, 'batch')
    const before = s.db.prepare('SELECT key FROM journal ORDER BY line').all<{key: string}>().map((r) => r.key)
    await s.writePlan('batch', rowsOf([`${A},${B},1`, `${A},${B},2`, `${A},${C},3`, `${A},${B},4`]))
    expect(s.db.prepare('SELECT key FROM plan ORDER BY idx LIMIT 3').all<{key: string}>().map((r) => r.key)).toEqual(before)
    expect([...s.pending()].map((r) => r.line)).toEqual([5])
    expect(before).not.toContain(keysOf(s)[0])
    expect(s.compare()).toEqual({changed: [], missing: []})
  })

  it('an inserted row and reordered rows: each sent row keeps its key by content', async () => {
    const s = await journalOf(sent, 'batch')
    await s.writePlan('batch', rowsOf([`${A},${C},3`, `${A},${B},9`, `${A},${B},1`, `${A},${B},2`]))
    expect([...s.pending()].map((r) => r.amount_in_minor_units)).toEqual([900])
    expect(s.compare()).toEqual({changed: [], missing: []})
  })

  it('identical rows: two sent, a third appended gets a key of its own', async () => {
    const two = rowsOf([`${A},${B},5`, `${A},${B},5`])
    const s = await journalOf(two, 'batch')
    const before = s.db.prepare('SELECT key FROM journal').all<{key: string}>().map((r) => r.key)
    await s.writePlan('batch', rowsOf([`${A},${B},5`, `${A},${B},5`, `${A},${B},5`]))
    expect(keysOf(s)).toHaveLength(1)
    expect(before).not.toContain(keysOf(s)[0])
    // An identical row inserted first: still two done, one new.
    await s.writePlan('batch', rowsOf([`${A},${B},5`, `${A},${C},1`, `${A},${B},5`, `${A},${B},5`]))
    expect([...s.pending()].map((r) => [r.to_subaccount_id, r.amount_in_minor_units])).toEqual([
      [C, 100],
      [B, 500],
    ])
    expect(s.compare()).toEqual({changed: [], missing: []})
  })

  it('a sent row whose content changed in place is reported by line', async () => {
    const s = await journalOf(sent, 'batch')
    await s.writePlan('batch', rowsOf([`${A},${B},1`, `${A},${B},2.50`, `${A},${C},3`]))
    const {changed} = s.compare()
    expect(changed.map((e) => e.line)).toEqual([3])
    expect(changed[0].message).toMatch(/this line held a row that was sent, and the file no longer holds it/)
  })

  it('a sent row deleted from the file is missing, not changed', async () => {
    const s = await journalOf(sent, 'batch')
    await s.writePlan('batch', rowsOf([`${A},${B},1`, `${A},${C},3`]))
    expect(s.compare()).toEqual({changed: [], missing: [3]})
  })

  it('a row the API refused outright (404) may be fixed: it is new, not changed; a row whose answer was lost may not', async () => {
    const fixed = rowsOf([`${A},${B},1`, `${A},${B},2.50`, `${A},${C},3`])
    const changedWith = async (outcome: 'sent' | number) => {
      const s = await journalOf(sent, 'batch', {outcome: {3: outcome}})
      await s.writePlan('batch', fixed)
      return s.compare().changed.map((e) => e.line)
    }
    expect(await changedWith(404)).toEqual([])
    expect(await changedWith('sent')).toEqual([3])
    expect(await changedWith(503)).toEqual([3])
    // Unchanged, it is retried with the key it was sent with.
    const same = await journalOf(sent, 'batch', {outcome: {3: 404}})
    const key = same.db.prepare('SELECT key FROM journal WHERE line = 3').get<{key: string}>()!.key
    expect(keysOf(same)).toEqual([key])
  })

  it('an idempotency_key cell whose key was sent with other content is changed', async () => {
    const header = 'from,to,amount,idempotency_key'
    const s = await journalOf(rowsOf([`${A},${B},1,k1`, `${A},${B},2,k2`], header), 'batch')
    await s.writePlan('batch', rowsOf([`${A},${B},1,k1`, `${A},${B},3,k2`], header))
    expect(s.compare().changed).toEqual([{line: 3, message: 'its idempotency_key was sent before with other content'}])
  })

  it('a JSON-lines journal of an earlier payops is refused with one line saying what to do', async () => {
    const file = join(dir, 'legacy.csv')
    writeFileSync(file, ['from,to,amount', `${A},${B},1`].join('\n'))
    writeFileSync(`${file}.payops-journal.jsonl`, '{"type":"batch","batch_id":"b"}\n')
    const err = await importFile.plan(file, {defaultCurrency: 'USD'}).catch((e: Error) => e)
    expect(err).toBeInstanceOf(UsageError)
    expect((err as Error).message).toMatch(/legacy\.csv\.payops-journal\.jsonl was written by an earlier payops .*--journal .*--new-batch/)
    expect(existsSync(databasePathFor(file))).toBe(false)
  })
})

describe('runImport with a RowSender', () => {
  const move = {id: 'm', from_subaccount_id: A, to_subaccount_id: B, amount_in_minor_units: 1, status: 'settled'}
  const source = async (done: number) => {
    const s = await journalOf(rowsOf([`${A},${B},1`]), 'run')
    await s.writePlan('run', rowsOf([`${A},${B},1`, `${A},${B},2`, `${A},${B},3`, `${A},${B},4`]))
    expect(s.summary().rows - s.summary().pending).toBe(done)
    return {s, source: {rows: s.pending(), total: s.summary().rows, alreadyDone: done, doneTotals: s.summary().doneTotals}}
  }

  it('counts each outcome kind once; totals only what settled, this run and overall, and the unsettled apart', async () => {
    const {s, source: src} = await source(1)
    const kinds: Array<RowOutcome | Error> = [
      {kind: 'advanced', httpStatus: 200, move},
      {kind: 'created', httpStatus: 207, move: {...move, status: 'approved'}, warning: 'settlement failed'},
      new ApiError({status: 404, errorCode: 'NOT_FOUND', message: 'gone'}),
    ]
    const send: RowSender = async () => {
      const k = kinds.shift()!
      if (k instanceof Error) throw k
      return k
    }
    const r = await runImport(send, src, s, {concurrency: 1})
    s.flush()
    expect(r).toMatchObject({created: 0, replayed: 0, advanced: 1, already_done: 1, partial: 1, failed: 1, not_sent: 0, interrupted: false})
    expect(r.total_this_run).toEqual({USD: 200})
    expect(r.total_overall).toEqual({USD: 300})
    expect(r.total_not_settled).toEqual({USD: 300})
    expect(r.not_settled).toEqual([{line: 4, key: expect.any(String), move_id: 'm', status: 'approved', amount_in_minor_units: 300, currency: 'USD', warning: 'settlement failed'}])
    expect(s.db.prepare('SELECT line, state, kind, warning, error_status FROM journal ORDER BY line').all()).toEqual([
      {line: 2, state: 'done', kind: 'created', warning: null, error_status: null},
      {line: 3, state: 'done', kind: 'advanced', warning: null, error_status: null},
      {line: 4, state: 'open', kind: 'created', warning: 'settlement failed', error_status: null},
      {line: 5, state: 'failed', kind: null, warning: null, error_status: 404},
    ])
  })

  it('stopped midway: only what was sent is counted and totalled', async () => {
    const abort = new AbortController()
    const send: RowSender = async () => {
      abort.abort()
      return {kind: 'created', httpStatus: 201, move}
    }
    const {s, source: src} = await source(1)
    const r = await runImport(send, src, s, {concurrency: 1, signal: abort.signal})
    expect(r).toMatchObject({created: 1, not_sent: 2, interrupted: true, total_this_run: {USD: 200}, total_overall: {USD: 300}})
  })
})

describe('pipelineSender', () => {
  const ports = (status: number, moveStatus: string, warning?: string, sent: string[] = []): MovementPorts => ({
    api: apiDouble({
      moves: {
        create: async (input: MoveCreateInput, key: string) => {
          sent.push(key)
          const data = {id: 'm', from_subaccount_id: A, to_subaccount_id: B, amount_in_minor_units: input.amount_in_minor_units, status: moveStatus.toLowerCase()}
          return response(status, data, {body: {data: {...data, status: moveStatus}, ...(warning ? {warning} : {})}, warning})
        },
      },
      subaccounts: {get: async () => Promise.reject(new Error('a row is never looked up again'))},
    }),
    history: {byKey: () => undefined, byResource: () => undefined, claimOf: () => undefined, movedSince: () => new Map()},
    prompter: {interactive: false, confirm: async () => false, input: async () => '', password: async () => '', note: () => undefined},
    profile: {name: 'p', live: true, limitSets: [], keyLabel: 'live_…x'},
    yes: false,
    overrideLimits: false,
    newKey: () => 'never',
  })

  it('sends the row\'s own key unguarded (the batch was confirmed) and classifies like every money request', async () => {
    const [row] = [...(await planned(rowsOf([`${A},${B},1`]), 'b')).pending()]
    const sent: string[] = []
    expect(await pipelineSender(ports(201, 'settled', undefined, sent))(row)).toMatchObject({kind: 'created', httpStatus: 201})
    expect(sent).toEqual([row.key])
    expect(await pipelineSender(ports(200, 'SETTLED'))(row)).toMatchObject({kind: 'replayed', httpStatus: 200})
    expect(await pipelineSender(ports(207, 'approved', 'w'))(row)).toMatchObject({kind: 'created', warning: 'w'})
    expect(await pipelineSender(ports(207, 'APPROVED', 'w'))(row)).toMatchObject({kind: 'replayed', warning: 'w'})
  })

  it('a replay that settles a move the journal recorded as approved (not settled) is "advanced"; one still approved is a replay', async () => {
    const [row] = [...(await planned(rowsOf([`${A},${B},1`]), 'b')).pending()]
    const journaled = (key: string) => (key === row.key ? {id: 'm', status: 'approved'} : undefined)
    expect(await pipelineSender(ports(200, 'SETTLED'), journaled)(row)).toMatchObject({kind: 'advanced'})
    expect(await pipelineSender(ports(200, 'APPROVED'), journaled)(row)).toMatchObject({kind: 'replayed'})
  })
})

describe('settlementOf: where a row\'s move stands', () => {
  const o = (status: string | undefined, httpStatus = 201, warning?: string) => ({kind: 'created' as const, httpStatus, move: {id: 'm', status} as never, ...(warning ? {warning} : {})})
  it.each([
    ['settled', 201, undefined, true, 'settled'],
    ['SETTLED', 200, undefined, false, 'settled'],
    ['approved', 207, 'w', true, 'open'],
    ['APPROVED', 200, undefined, true, 'open'],
    ['created', 201, undefined, false, 'awaiting'],
    ['created', 207, 'w', true, 'open'],
    [undefined, 201, undefined, true, 'settled'],
    [undefined, 201, undefined, false, 'awaiting'],
    [undefined, 207, 'w', true, 'open'],
  ] as const)('%s (%i, warning %s, auto_approve %s): %s', (status, http, warning, auto, want) => {
    expect(settlementOf(o(status, http, warning), {auto_approve: auto})).toBe(want)
  })
})
