import {mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {deriveKey} from '../../src/import/csv.js'
import {JournalWriter, readJournal} from '../../src/import/journal.js'

const dir = mkdtempSync(join(tmpdir(), 'payops-journal-'))
afterAll(() => rmSync(dir, {recursive: true, force: true}))

const batch = '5d0c7c2e-0000-4000-8000-000000000001'
const fp = 'a'.repeat(32)

describe('compact journal records', () => {
  it('round-trip: derived keys, explicit keys (also ones starting with ~ or =), outcomes named by line', () => {
    const path = join(dir, 'compact.jsonl')
    const k1 = deriveKey(batch, '["x"]', 1)
    const k2 = deriveKey(batch, '["x"]', 2)
    const w = new JournalWriter(path, 10_000)
    w.append({type: 'batch', batch_id: batch, file: 'f.csv', file_sha256: 'x', rows: 4, created_at: 'now'})
    w.append({type: 'sent', line: 2, key: k1, fp, at: 'now'})
    w.append({type: 'sent', line: 3, key: '~mine', fp, at: 'now'})
    w.append({type: 'sent', line: 4, key: '=also', at: 'now'})
    w.append({type: 'sent', line: 5, key: k2, fp, at: 'now'})
    w.append({type: 'done', line: 3, key: '~mine', move_id: 'm3', status: 'settled', http_status: 201, replayed: false, kind: 'created', at: 'now'})
    w.append({type: 'done', line: 2, key: k1, move_id: 'm2', status: 'created', http_status: 207, replayed: true, kind: 'advanced', warning: 'w', at: 'now'})
    w.append({type: 'failed', line: 5, key: k2, status: 503, error_code: 'unavailable', message: 'boom', at: 'now'})
    // An outcome of a key this writer did not send from that line names its key.
    w.append({type: 'done', line: 9, key: 'other', move_id: 'm9', status: 'settled', http_status: 200, replayed: true, kind: 'replayed', at: 'now'})
    w.close()
    const text = readFileSync(path, 'utf8')
    expect(text).not.toContain(k1)
    expect(text).not.toMatch(/"at"/)
    const s = readJournal(path)
    expect([...s.sent]).toEqual([k1, '~mine', '=also', k2])
    expect(s.entries.get(k1)).toMatchObject({line: 2, fp, landed: true})
    expect(s.entries.get('=also')?.fp).toBeUndefined()
    expect(s.done.get('~mine')).toMatchObject({line: 3, move_id: 'm3', status: 'settled', http_status: 201, kind: 'created', replayed: false})
    expect(s.done.get(k1)).toMatchObject({line: 2, move_id: 'm2', status: 'created', http_status: 207, kind: 'advanced', replayed: true, warning: 'w'})
    expect(s.failed.get(k2)).toMatchObject({line: 5, status: 503, error_code: 'unavailable', message: 'boom'})
    expect(s.done.get('other')).toMatchObject({line: 9, kind: 'replayed'})
    expect(s.done.has('=also')).toBe(false)
  })

  it('reads journals written by earlier versions, and one a newer run appended to', () => {
    const path = join(dir, 'old.jsonl')
    const k1 = deriveKey(batch, '["x"]', 1)
    const k2 = deriveKey(batch, '["x"]', 2)
    const verbose = [
      {type: 'batch', batch_id: batch, file: 'f.csv', file_sha256: 'x', rows: 2, created_at: 'now'},
      {type: 'sent', line: 2, key: k1, fp, at: 'now'},
      {type: 'done', line: 2, key: k1, move_id: 'm2', status: 'settled', http_status: 201, replayed: false, kind: 'created', at: 'now'},
      {type: 'sent', line: 3, key: k2, fp, at: 'now'},
    ]
    writeFileSync(path, verbose.map((r) => JSON.stringify(r)).join('\n') + '\n')
    const w = new JournalWriter(path, 10_000)
    w.useBatch(batch)
    w.append({type: 'sent', line: 3, key: k2, fp, at: 'now'})
    w.append({type: 'done', line: 3, key: k2, move_id: 'm3', status: 'settled', http_status: 200, replayed: true, kind: 'replayed', at: 'now'})
    w.append({type: 'finished', file_sha256: 'x', at: 'now'})
    w.close()
    const s = readJournal(path)
    expect(s.batch?.batch_id).toBe(batch)
    expect([...s.done.keys()]).toEqual([k1, k2])
    expect(s.done.get(k2)?.move_id).toBe('m3')
    expect(s.finished).toBeDefined()
  })

  it('a torn compact last line is ignored and cut by the next writer; a bad one in the middle is an error', () => {
    const path = join(dir, 'torn.jsonl')
    writeFileSync(path, JSON.stringify({type: 'batch', batch_id: batch, file: 'f', file_sha256: 'x', rows: 1, created_at: 'now'}) + '\n["s",2,"~AAAA')
    expect(readJournal(path).tornTail).toBe(true)
    new JournalWriter(path).close()
    expect(readFileSync(path, 'utf8').split('\n').filter(Boolean)).toHaveLength(1)
    // A torn line longer than the piece of the end the writer reads at a time.
    const whole = readFileSync(path, 'utf8')
    writeFileSync(path, whole + '{"type":"failed","l":2,"message":"' + 'x'.repeat(200_000))
    new JournalWriter(path).close()
    expect(readFileSync(path, 'utf8')).toBe(whole)
    writeFileSync(join(dir, 'bad.jsonl'), '{"type":"batch","batch_id":"b"}\n["x",2]\n{"type":"finished","file_sha256":"x","at":"now"}\n')
    expect(() => readJournal(join(dir, 'bad.jsonl'))).toThrow(/corrupt at line 2/)
    // An outcome by line with no key sent from that line cannot be read.
    writeFileSync(join(dir, 'orphan.jsonl'), '{"type":"batch","batch_id":"b"}\n{"type":"done","l":4,"m":"m","o":"c"}\n{"type":"finished","file_sha256":"x","at":"now"}\n')
    expect(() => readJournal(join(dir, 'orphan.jsonl'))).toThrow(/corrupt at line 2/)
  })
})
