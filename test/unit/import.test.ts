import {appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {assignKeys, parseImportCsv, totalsByCurrency} from '../../src/import/csv.js'
import {JournalWriter, readJournal} from '../../src/import/journal.js'
import {UsageError} from '../../src/errors.js'

const A = '00000000-0000-4000-8000-00000000000a'
const B = '00000000-0000-4000-8000-00000000000b'
const dir = mkdtempSync(join(tmpdir(), 'payops-import-unit-'))
afterAll(() => rmSync(dir, {recursive: true, force: true}))

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
    const meta = parseImportCsv(`from,to,amount,metadata.__proto__\n${A},${B},1,x`)
    expect(Object.getPrototypeOf({})).toBe(Object.prototype)
    expect(meta.rows[0]?.client_metadata?.['__proto__' as string] ?? meta.errors.length).toBeTruthy()
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
