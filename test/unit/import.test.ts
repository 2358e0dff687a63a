import {appendFileSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {assignKeys, contentHash, parseImportCsv, totalsByCurrency, type ImportRow} from '../../src/import/csv.js'
import {JournalWriter, readJournal, type JournalState} from '../../src/import/journal.js'
import {matchRows} from '../../src/import/match.js'
import {runImport, type KeyedRow} from '../../src/import/run.js'
import {pipelineSender, type RowOutcome, type RowSender} from '../../src/import/send.js'
import type {MovementPorts} from '../../src/movements/types.js'
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

describe('assignKeys', () => {
  const rows = parseImportCsv([`from,to,amount`, `${A},${B},1`, `${A},${B},1`, `${A},${B},2`].join('\n')).rows

  it('gives identical rows distinct keys and is stable for the same batch', () => {
    const k1 = assignKeys(rows, 'batch-1').map((r) => r.key)
    expect(new Set(k1).size).toBe(3)
    expect(assignKeys(rows, 'batch-1').map((r) => r.key)).toEqual(k1)
    expect(assignKeys(rows, 'batch-2').map((r) => r.key)).not.toEqual(k1)
    expect(k1.every((k) => k.length <= 255 && k.startsWith('payops-import-'))).toBe(true)
  })

  it('editing one row leaves the other rows\' keys unchanged', () => {
    const edited = parseImportCsv([`from,to,amount`, `${A},${B},1`, `${A},${B},1`, `${A},${B},3`].join('\n')).rows
    const before = assignKeys(rows, 'b').map((r) => r.key)
    const after = assignKeys(edited, 'b').map((r) => r.key)
    expect(after.slice(0, 2)).toEqual(before.slice(0, 2))
    expect(after[2]).not.toBe(before[2])
  })

  it('uses the idempotency_key column when given', () => {
    const r = parseImportCsv(`from,to,amount,idempotency_key\n${A},${B},1,mine`).rows
    expect(assignKeys(r, 'b')[0].key).toBe('mine')
  })

  it('totals per currency exactly, refusing unsafe totals', () => {
    expect(totalsByCurrency([{amount_in_minor_units: 1, currency: 'USD'}, {amount_in_minor_units: 2, currency: 'USD'}, {amount_in_minor_units: 5, currency: 'JPY'}])).toEqual({USD: 3, JPY: 5})
    expect(() => totalsByCurrency([{amount_in_minor_units: Number.MAX_SAFE_INTEGER, currency: 'USD'}, {amount_in_minor_units: 1, currency: 'USD'}])).toThrow(UsageError)
  })
})

describe('journal', () => {
  it('reads back the batch, sent, done, failed and finished records; a later done wins over a failure', () => {
    const path = join(dir, 'a.jsonl')
    const w = new JournalWriter(path, 10_000)
    const at = new Date().toISOString()
    w.append({type: 'batch', batch_id: 'b1', file: 'f', file_sha256: 'x', rows: 2, created_at: at})
    w.append({type: 'sent', line: 2, key: 'k2', at})
    w.append({type: 'failed', line: 2, key: 'k2', message: 'boom', at})
    w.append({type: 'done', line: 2, key: 'k2', move_id: 'm2', status: 'settled', http_status: 200, replayed: true, at})
    w.append({type: 'failed', line: 3, key: 'k3', message: 'nope', status: 404, at})
    w.close()
    const s = readJournal(path)
    expect(s.batch?.batch_id).toBe('b1')
    expect([...s.done.keys()]).toEqual(['k2'])
    expect([...s.failed.keys()]).toEqual(['k3'])
    expect(s.sent.has('k2')).toBe(true)
    expect(s.finished).toBeUndefined()
  })

  it('survives a torn last line (a crash mid-write): the next writer cuts it off', () => {
    const path = join(dir, 'torn.jsonl')
    writeFileSync(path, JSON.stringify({type: 'batch', batch_id: 'b', file: 'f', file_sha256: 'x', rows: 1, created_at: 'now'}) + '\n{"type":"done","li')
    expect(readJournal(path).tornTail).toBe(true)
    const w = new JournalWriter(path)
    w.append({type: 'finished', file_sha256: 'x', at: 'now'}, true)
    w.close()
    const s = readJournal(path)
    expect(s.finished?.file_sha256).toBe('x')
    expect(readFileSync(path, 'utf8').split('\n').filter(Boolean)).toHaveLength(2)
  })

  it('a corrupt line in the middle is an error, not a silent restart', () => {
    const path = join(dir, 'corrupt.jsonl')
    writeFileSync(path, '{"type":"batch","batch_id":"b"}\nnot json\n{"type":"finished","file_sha256":"x","at":"now"}\n')
    expect(() => readJournal(path)).toThrow(/corrupt at line 2/)
    appendFileSync(path, '')
  })
})

const C = '00000000-0000-4000-8000-00000000000c'
let journalCount = 0

function rowsOf(lines: string[]): ImportRow[] {
  const r = parseImportCsv(['from,to,amount', ...lines].join('\n'))
  expect(r.errors).toEqual([])
  return r.rows
}

/**
 * A journal of a batch that sent `rows` with the keys a first run gives them. `outcome` per line:
 * done (default), sent (no answer recorded), or a failure status. `legacy` drops the content hashes
 * (journals written before they were recorded).
 */
function journalOf(rows: ImportRow[], batch: string, opts: {outcome?: Record<number, 'sent' | number>; legacy?: boolean} = {}): JournalState {
  const path = join(dir, `j${++journalCount}.jsonl`)
  const w = new JournalWriter(path, 10_000)
  const at = 'now'
  w.append({type: 'batch', batch_id: batch, file: 'f.csv', file_sha256: 'x', rows: rows.length, created_at: at})
  for (const r of assignKeys(rows, batch)) {
    w.append({type: 'sent', line: r.line, key: r.key, ...(opts.legacy ? {} : {fp: contentHash(r.fingerprint)}), at})
    const o = opts.outcome?.[r.line]
    if (o === 'sent') continue
    if (typeof o === 'number') w.append({type: 'failed', line: r.line, key: r.key, status: o, message: 'x', at})
    else w.append({type: 'done', line: r.line, key: r.key, move_id: `m${r.line}`, status: 'settled', http_status: 201, replayed: false, at})
  }
  w.close()
  return readJournal(path)
}

describe('matchRows (a re-run recognises the rows already sent)', () => {
  const sent = rowsOf([`${A},${B},1`, `${A},${B},2`, `${A},${C},3`])
  const keysBefore = assignKeys(sent, 'batch').map((r) => r.key)

  it('a first run keys rows exactly as assignKeys does', () => {
    const m = matchRows(sent, journalOf([], 'batch'), 'batch')
    expect(m.rows.map((r) => r.key)).toEqual(keysBefore)
    expect(m.changed).toEqual([])
  })

  it('appended rows are new; the rows sent before keep their keys', () => {
    const file = rowsOf([`${A},${B},1`, `${A},${B},2`, `${A},${C},3`, `${A},${B},4`])
    const state = journalOf(sent, 'batch')
    const m = matchRows(file, state, 'batch')
    expect(m.rows.slice(0, 3).map((r) => r.key)).toEqual(keysBefore)
    expect(m.rows.slice(0, 3).every((r) => r.prior)).toBe(true)
    expect(m.rows[3].prior).toBeUndefined()
    expect(state.done.has(m.rows[3].key)).toBe(false)
    expect(m.changed).toEqual([])
    expect(m.missing).toEqual([])
  })

  it('an inserted row and reordered rows: each sent row keeps its key by content', () => {
    const file = rowsOf([`${A},${C},3`, `${A},${B},9`, `${A},${B},1`, `${A},${B},2`])
    const m = matchRows(file, journalOf(sent, 'batch'), 'batch')
    expect(m.rows.map((r) => r.key)).toEqual([keysBefore[2], expect.any(String), keysBefore[0], keysBefore[1]])
    expect(m.rows[1].prior).toBeUndefined()
    expect(keysBefore).not.toContain(m.rows[1].key)
    expect(m.changed).toEqual([])
  })

  it('identical rows: two sent, a third appended gets a key of its own', () => {
    const two = rowsOf([`${A},${B},5`, `${A},${B},5`])
    const three = rowsOf([`${A},${B},5`, `${A},${B},5`, `${A},${B},5`])
    const m = matchRows(three, journalOf(two, 'batch'), 'batch')
    const before = assignKeys(two, 'batch').map((r) => r.key)
    expect(m.rows.slice(0, 2).map((r) => r.key)).toEqual(before)
    expect(before).not.toContain(m.rows[2].key)
    expect(new Set(m.rows.map((r) => r.key)).size).toBe(3)
    // An identical row inserted first: still two matched, one new.
    const m2 = matchRows(rowsOf([`${A},${B},5`, `${A},${C},1`, `${A},${B},5`, `${A},${B},5`]), journalOf(two, 'batch'), 'batch')
    expect(m2.rows.filter((r) => r.prior && r.amount_in_minor_units === 500)).toHaveLength(2)
    expect(m2.rows[0].key).toBe(before[0])
  })

  it('a sent row whose content changed in place is reported by line', () => {
    const file = rowsOf([`${A},${B},1`, `${A},${B},2.50`, `${A},${C},3`])
    const m = matchRows(file, journalOf(sent, 'batch'), 'batch')
    expect(m.changed.map((e) => e.line)).toEqual([3])
    expect(m.changed[0].message).toMatch(/differs from the row sent from this line/)
  })

  it('a sent row deleted from the file is missing, not changed', () => {
    const file = rowsOf([`${A},${B},1`, `${A},${C},3`])
    const m = matchRows(file, journalOf(sent, 'batch'), 'batch')
    expect(m.changed).toEqual([])
    expect(m.missing.map((e) => e.line)).toEqual([3])
  })

  it('a row the API refused outright (404) may be fixed: it is new, not changed; a row whose answer was lost may not', () => {
    const fixed = rowsOf([`${A},${B},1`, `${A},${B},2.50`, `${A},${C},3`])
    expect(matchRows(fixed, journalOf(sent, 'batch', {outcome: {3: 404}}), 'batch').changed).toEqual([])
    expect(matchRows(fixed, journalOf(sent, 'batch', {outcome: {3: 'sent'}}), 'batch').changed.map((e) => e.line)).toEqual([3])
    expect(matchRows(fixed, journalOf(sent, 'batch', {outcome: {3: 503}}), 'batch').changed.map((e) => e.line)).toEqual([3])
    // Unchanged, it is retried with the key it was sent with.
    const same = matchRows(sent, journalOf(sent, 'batch', {outcome: {3: 404}}), 'batch')
    expect(same.rows[1].key).toBe(keysBefore[1])
  })

  it('an idempotency_key cell whose key was sent with other content is changed', () => {
    const withKey = parseImportCsv(`from,to,amount,idempotency_key\n${A},${B},1,k1\n${A},${B},2,k2`).rows
    const edited = parseImportCsv(`from,to,amount,idempotency_key\n${A},${B},1,k1\n${A},${B},3,k2`).rows
    const m = matchRows(edited, journalOf(withKey, 'batch'), 'batch')
    expect(m.changed).toEqual([{line: 3, message: expect.stringMatching(/idempotency_key "k2" was sent with other content/)}])
  })

  it('old journals without content hashes: recovered from the rows that derive their keys', () => {
    const legacy = journalOf(sent, 'batch', {legacy: true})
    expect([...legacy.entries.values()].every((e) => e.fp === undefined)).toBe(true)
    const appended = rowsOf([`${A},${B},1`, `${A},${B},2`, `${A},${C},3`, `${A},${B},4`])
    const m = matchRows(appended, legacy, 'batch')
    expect(m.rows.slice(0, 3).map((r) => r.key)).toEqual(keysBefore)
    expect(m.rows[3].prior).toBeUndefined()
    expect(m.changed).toEqual([])
    const changed = matchRows(rowsOf([`${A},${B},1`, `${A},${B},7`, `${A},${C},3`]), legacy, 'batch')
    expect(changed.changed.map((e) => e.line)).toEqual([3])
    expect(changed.changed[0].message).toMatch(/older payops/)
  })
})

describe('runImport with a RowSender', () => {
  const rows = (): KeyedRow[] => assignKeys(rowsOf([`${A},${B},1`, `${A},${B},2`, `${A},${B},3`, `${A},${B},4`]), 'run')
  const move = {id: 'm', from_subaccount_id: A, to_subaccount_id: B, amount_in_minor_units: 1, status: 'settled'}

  it('counts each outcome kind once, totals what was sent this run and overall', async () => {
    const all = rows()
    const state = journalOf(rowsOf([`${A},${B},1`]), 'run')
    const kinds: Array<RowOutcome | Error> = [
      {kind: 'advanced', httpStatus: 200, move},
      {kind: 'created', httpStatus: 207, move, warning: 'settlement failed'},
      new ApiError({status: 404, errorCode: 'NOT_FOUND', message: 'gone'}),
    ]
    const send: RowSender = async () => {
      const k = kinds.shift()!
      if (k instanceof Error) throw k
      return k
    }
    const w = new JournalWriter(join(dir, 'run1.jsonl'), 10_000)
    const r = await runImport(send, all, state, w, {concurrency: 1})
    w.close()
    expect(r).toMatchObject({created: 0, replayed: 0, advanced: 1, already_done: 1, partial: 1, failed: 1, not_sent: 0, interrupted: false})
    expect(r.total_this_run).toEqual({USD: 500})
    expect(r.total_overall).toEqual({USD: 600})
    const j = readJournal(join(dir, 'run1.jsonl'))
    expect([...j.entries.values()].every((e) => typeof e.fp === 'string')).toBe(true)
    expect(j.done.get(all[1].key)).toMatchObject({kind: 'advanced', replayed: true})
  })

  it('stopped midway: only what was sent is counted and totalled', async () => {
    const abort = new AbortController()
    const send: RowSender = async () => {
      abort.abort()
      return {kind: 'created', httpStatus: 201, move}
    }
    const w = new JournalWriter(join(dir, 'run2.jsonl'), 10_000)
    const r = await runImport(send, rows(), journalOf([], 'run'), w, {concurrency: 1, signal: abort.signal})
    w.close()
    expect(r).toMatchObject({created: 1, not_sent: 3, interrupted: true, total_this_run: {USD: 100}, total_overall: {USD: 100}})
  })
})

describe('pipelineSender', () => {
  const ports = (status: number, moveStatus: string, warning?: string, sent: string[] = []) =>
    ({
      api: {
        moves: {
          create: async (input: {amount_in_minor_units: number}, key: string) => {
            sent.push(key)
            const data = {id: 'm', from_subaccount_id: A, to_subaccount_id: B, amount_in_minor_units: input.amount_in_minor_units, status: moveStatus.toLowerCase()}
            return {status, data, body: {data: {...data, status: moveStatus}, ...(warning ? {warning} : {})}, warning, headers: {}, attempts: 1, earlierAttemptUncertain: false, sentAt: Date.now()}
          },
        },
        subaccounts: {get: async () => Promise.reject(new Error('a row is never looked up again'))},
      },
      history: {byKey: () => undefined, byResource: () => undefined},
      prompter: {interactive: false, confirm: async () => false, input: async () => '', note: () => undefined},
      profile: {name: 'p', live: true, keyLabel: 'live_…x'},
      yes: false,
      overrideLimits: false,
      newKey: () => 'never',
    }) as unknown as MovementPorts
  const row = assignKeys(rowsOf([`${A},${B},1`]), 'b')[0]

  it('sends the row\'s own key unguarded (the batch was confirmed) and classifies like every money request', async () => {
    const sent: string[] = []
    expect(await pipelineSender(ports(201, 'settled', undefined, sent))(row)).toMatchObject({kind: 'created', httpStatus: 201})
    expect(sent).toEqual([row.key])
    expect(await pipelineSender(ports(200, 'SETTLED'))(row)).toMatchObject({kind: 'replayed', httpStatus: 200})
    expect(await pipelineSender(ports(207, 'approved', 'w'))(row)).toMatchObject({kind: 'created', warning: 'w'})
    expect(await pipelineSender(ports(207, 'APPROVED', 'w'))(row)).toMatchObject({kind: 'replayed', warning: 'w'})
  })
})
