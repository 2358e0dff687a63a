/**
 * The JSON-lines trail of earlier versions (`audit.jsonl` and `audit.head`), checked as it was
 * before it is imported into the store: a cut tail, a deleted log or head, or a garbled head is
 * found and named, so such a trail is refused rather than imported.
 */
import {unlinkSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {readLegacyHead, verifyLegacy} from '../../src/audit/legacy.js'
import {chained, GENESIS, type AuditFields, type AuditRecord} from '../../src/audit/records.js'
import {tempDirs} from '../support/index.js'

const temp = tempDirs('payops-audit-legacy-')

const fields = (n: number): AuditFields => ({kind: 'intent', op: `op-${n}`, profile: 'p', mode: 'test', method: 'POST', path: `/api/x/${n}`})

/** An old trail of `n` records, as earlier versions wrote it: the log, and its head padded to 128 bytes. */
async function trail(n: number) {
  const dir = temp()
  const records: AuditRecord[] = []
  let prev = GENESIS
  for (let i = 0; i < n; i++) {
    const rec = chained(fields(i), i + 1, prev, new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(), 1)
    records.push(rec)
    prev = rec.hash
  }
  const file = join(dir, 'audit.jsonl')
  const headFile = join(dir, 'audit.head')
  const lines = records.map((r) => JSON.stringify(r))
  writeFileSync(file, lines.map((l) => l + '\n').join(''))
  writeFileSync(headFile, JSON.stringify({seq: n, hash: prev}).padEnd(127) + '\n')
  const cut = (keep: number) => writeFileSync(file, lines.slice(0, keep).join('\n') + '\n')
  return {dir, file, headFile, lines, cut, records}
}

describe('an old trail whose end does not match its head is found (and so never imported)', () => {
  it('an intact trail verifies and reports its head', async () => {
    const t = await trail(5)
    const last = t.records[4]
    expect(readLegacyHead(t.dir)).toEqual({state: 'ok', head: {seq: 5, hash: last.hash}})
    expect(verifyLegacy(t.dir)).toEqual({ok: true, records: 5, head: {seq: 5, hash: last.hash}})
  })

  it('a deleted log while the head names records', async () => {
    const t = await trail(24)
    unlinkSync(t.file)
    const r = verifyLegacy(t.dir)
    expect(r).toMatchObject({ok: false, records: 0, line: 1})
    expect(r.message).toBe(`${t.file}: line 1 is missing: there are no records but audit.head names record 24 (the records were deleted).`)
  })

  it('an emptied log while the head names records', async () => {
    const t = await trail(3)
    writeFileSync(t.file, '')
    expect(verifyLegacy(t.dir)).toMatchObject({ok: false, line: 1, reason: expect.stringMatching(/there are no records but audit\.head names record 3/)})
  })

  it('a cut tail with the head intact names the first missing line', async () => {
    const t = await trail(24)
    t.cut(20)
    const r = verifyLegacy(t.dir)
    expect(r).toMatchObject({ok: false, records: 20, line: 21})
    expect(r.message).toBe(`${t.file}: line 21 is missing: the chain ends at record 20 but audit.head names record 24 (records removed from the end).`)
  })

  it('a cut tail with the head deleted', async () => {
    const t = await trail(24)
    t.cut(20)
    unlinkSync(t.headFile)
    const r = verifyLegacy(t.dir)
    expect(r).toMatchObject({ok: false, line: 20})
    expect(r.message).toBe(`${t.file}: line 20 (record 20) ends the chain but audit.head is missing (the head was deleted, or the chain was written without one).`)
  })

  it('a log with records and no head (as an older payops left it) is broken too', async () => {
    const t = await trail(2)
    unlinkSync(t.headFile)
    expect(verifyLegacy(t.dir)).toMatchObject({ok: false, line: 2, reason: expect.stringMatching(/audit\.head is missing/)})
  })

  it('a cut tail with the head garbled, in every way', async () => {
    const t = await trail(24)
    t.cut(20)
    const good = readLegacyHead(t.dir)
    expect(good.state).toBe('ok')
    for (const [text, detail] of [
      ['', 'is empty'],
      ['garbage', 'is not valid JSON'],
      ['{}', 'has no valid "seq"'],
      ['{"seq":-1,"hash":"' + 'a'.repeat(64) + '"}', 'has no valid "seq"'],
      ['{"seq":24,"hash":"xyz"}', 'has no valid "hash" (64 lower-case hex digits)'],
      ['{"seq":0,"hash":"' + 'a'.repeat(64) + '"}', 'names record 0 with a hash other than the genesis hash'],
      ['null', 'has no valid "seq"'],
    ]) {
      writeFileSync(t.headFile, text)
      const r = verifyLegacy(t.dir)
      expect(r.ok, text).toBe(false)
      expect(r.message).toBe(`${t.file}: audit.head ${detail}: the head was garbled, so the end of the chain (record 20, line 20) cannot be checked.`)
    }
  })

  it('a head naming the last record with another hash', async () => {
    const t = await trail(4)
    writeFileSync(t.headFile, JSON.stringify({seq: 4, hash: 'b'.repeat(64)}))
    expect(verifyLegacy(t.dir)).toMatchObject({ok: false, line: 4, reason: '(record 4) does not match audit.head (the record was replaced, or the head was changed)'})
  })

  it('a head behind the log (a write interrupted before the head moved) verifies if the log holds its record', async () => {
    const t = await trail(6)
    const recs = t.records
    writeFileSync(t.headFile, JSON.stringify({seq: 4, hash: recs[3].hash}))
    expect(verifyLegacy(t.dir)).toEqual({ok: true, records: 6, head: {seq: 6, hash: recs[5].hash}})
    writeFileSync(t.headFile, JSON.stringify({seq: 4, hash: recs[2].hash}))
    expect(verifyLegacy(t.dir)).toMatchObject({ok: false, line: 4, reason: expect.stringMatching(/record 4\) does not match audit\.head/)})
  })

  it('an empty log without a head is an intact empty trail', () => {
    const dir = temp()
    writeFileSync(join(dir, 'audit.jsonl'), '')
    expect(verifyLegacy(dir)).toMatchObject({ok: true, records: 0})
  })
})
