/**
 * The audit trail's end: `audit verify` and every writer check that the log ends with the record
 * `audit.head` names, so a cut tail, a deleted log or head, or a garbled head is found (exit 1)
 * and never continued; `--expect-head` anchors the trail to a hash kept elsewhere.
 */
import {existsSync, readFileSync, rmSync, unlinkSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {AuditLog, GENESIS, hashOfRecord, readAudit, readAuditHead, verifyAudit, type AuditFields} from '../../src/audit/index.js'
import {AuditTrailError, PayopsError} from '../../src/errors.js'
import {tempDir} from '../support/env.js'

const dirs: string[] = []
const temp = () => {
  const d = tempDir('payops-audit-trail-').path
  dirs.push(d)
  return d
}
afterAll(() => dirs.forEach((d) => rmSync(d, {recursive: true, force: true})))

const fields = (n: number): AuditFields => ({kind: 'intent', op: `op-${n}`, profile: 'p', mode: 'test', method: 'POST', path: `/api/x/${n}`})

/** A trail of `n` records; returns its dir, file paths and the lines as written. */
async function trail(n: number) {
  const dir = temp()
  const log = new AuditLog(dir)
  for (let i = 0; i < n; i++) await log.append(fields(i))
  const file = join(dir, 'audit.jsonl')
  const headFile = join(dir, 'audit.head')
  const lines = readFileSync(file, 'utf8').trim().split('\n')
  const cut = (keep: number) => writeFileSync(file, lines.slice(0, keep).join('\n') + '\n')
  return {dir, log, file, headFile, lines, cut}
}

/** Expects a refused append: AuditTrailError, exit 1, the fix in the message, and nothing written. */
async function expectRefused(dir: string, problem: RegExp) {
  const file = join(dir, 'audit.jsonl')
  const headFile = join(dir, 'audit.head')
  const before = [existsSync(file) ? readFileSync(file, 'utf8') : null, existsSync(headFile) ? readFileSync(headFile, 'utf8') : null]
  const err = await new AuditLog(dir).append(fields(99)).then(
    () => undefined,
    (e: unknown) => e,
  )
  expect(err).toBeInstanceOf(AuditTrailError)
  expect(err).toBeInstanceOf(PayopsError)
  const e = err as AuditTrailError
  expect(e.exitCode).toBe(1)
  expect(e.message).toMatch(problem)
  expect(e.message).toContain(`the audit trail in ${dir} `)
  expect(e.message).toMatch(/run `payops audit verify`, then move audit\.jsonl and audit\.head aside to start a new trail$/)
  expect(e.message).not.toContain('\n')
  const after = [existsSync(file) ? readFileSync(file, 'utf8') : null, existsSync(headFile) ? readFileSync(headFile, 'utf8') : null]
  expect(after).toEqual(before)
}

describe('audit verify finds a trail whose end does not match its head', () => {
  it('an intact trail verifies and reports its head', async () => {
    const t = await trail(5)
    const last = readAudit(t.dir)[4]
    expect(readAuditHead(t.dir)).toEqual({state: 'ok', head: {seq: 5, hash: last.hash}})
    expect(verifyAudit(t.dir)).toEqual({ok: true, records: 5, head: {seq: 5, hash: last.hash}})
  })

  it('a deleted log while the head names records', async () => {
    const t = await trail(24)
    unlinkSync(t.file)
    const r = verifyAudit(t.dir)
    expect(r).toMatchObject({ok: false, records: 0, line: 1})
    expect(r.message).toBe(`${t.file}: line 1 is missing: there is no audit.jsonl but audit.head names record 24 (the log was deleted).`)
  })

  it('an emptied log while the head names records', async () => {
    const t = await trail(3)
    writeFileSync(t.file, '')
    expect(verifyAudit(t.dir)).toMatchObject({ok: false, line: 1, reason: expect.stringMatching(/the log ends at record 0 but audit\.head names record 3/)})
  })

  it('a cut tail with the head intact names the first missing line', async () => {
    const t = await trail(24)
    t.cut(20)
    const r = verifyAudit(t.dir)
    expect(r).toMatchObject({ok: false, records: 20, line: 21})
    expect(r.message).toBe(`${t.file}: line 21 is missing: the log ends at record 20 but audit.head names record 24 (records removed from the end).`)
  })

  it('a cut tail with the head deleted', async () => {
    const t = await trail(24)
    t.cut(20)
    unlinkSync(t.headFile)
    const r = verifyAudit(t.dir)
    expect(r).toMatchObject({ok: false, line: 20})
    expect(r.message).toBe(`${t.file}: line 20 (record 20) ends the log but audit.head is missing (the head was deleted, or the log was written without one).`)
  })

  it('a log with records and no head (as an older payops left it) is broken too', async () => {
    const t = await trail(2)
    unlinkSync(t.headFile)
    expect(verifyAudit(t.dir)).toMatchObject({ok: false, line: 2, reason: expect.stringMatching(/audit\.head is missing/)})
  })

  it('a cut tail with the head garbled, in every way', async () => {
    const t = await trail(24)
    t.cut(20)
    const good = readAuditHead(t.dir)
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
      const r = verifyAudit(t.dir)
      expect(r.ok, text).toBe(false)
      expect(r.message).toBe(`${t.headFile} ${detail}: the head was garbled, so the end of the log (record 20, line 20) cannot be checked.`)
    }
  })

  it('a head naming the last record with another hash', async () => {
    const t = await trail(4)
    writeFileSync(t.headFile, JSON.stringify({seq: 4, hash: 'b'.repeat(64)}))
    expect(verifyAudit(t.dir)).toMatchObject({ok: false, line: 4, reason: '(record 4) does not match audit.head (the record was replaced, or the head was changed)'})
  })

  it('a head behind the log (a write interrupted before the head moved) verifies if the log holds its record', async () => {
    const t = await trail(6)
    const recs = readAudit(t.dir)
    writeFileSync(t.headFile, JSON.stringify({seq: 4, hash: recs[3].hash}))
    expect(verifyAudit(t.dir)).toEqual({ok: true, records: 6, head: {seq: 6, hash: recs[5].hash}})
    writeFileSync(t.headFile, JSON.stringify({seq: 4, hash: recs[2].hash}))
    expect(verifyAudit(t.dir)).toMatchObject({ok: false, line: 4, reason: expect.stringMatching(/record 4\) does not match audit\.head/)})
  })

  it('a brand new config dir, or an empty log without a head, is an intact empty trail', () => {
    const dir = temp()
    expect(verifyAudit(dir)).toMatchObject({ok: true, records: 0})
    writeFileSync(join(dir, 'audit.jsonl'), '')
    expect(verifyAudit(dir)).toMatchObject({ok: true, records: 0})
  })
})

describe('writers refuse a trail whose end does not match its head', () => {
  it('a cut tail is refused, not continued (and its head is not rewritten)', async () => {
    const t = await trail(24)
    t.cut(20)
    await expectRefused(t.dir, /was cut or its head changed \(audit\.jsonl ends at record 20, audit\.head names record 24\)/)
    expect(verifyAudit(t.dir)).toMatchObject({ok: false, line: 21})
  })

  it('a deleted head is refused (whether deleted or never written by an older payops)', async () => {
    const t = await trail(3)
    unlinkSync(t.headFile)
    await expectRefused(t.dir, /lost its head \(audit\.jsonl ends at record 3 but audit\.head is missing/)
  })

  it('a garbled head is refused', async () => {
    const t = await trail(3)
    writeFileSync(t.headFile, '{"seq": 3')
    await expectRefused(t.dir, /has a garbled head \(audit\.head is not valid JSON\)/)
  })

  it('a deleted log is refused, and no empty log is left behind', async () => {
    const t = await trail(3)
    unlinkSync(t.file)
    await expectRefused(t.dir, /lost its log \(audit\.jsonl is missing or empty but audit\.head names record 3\)/)
    expect(existsSync(t.file)).toBe(false)
  })

  it('a changed head, or an edited or broken last line, is refused', async () => {
    const t = await trail(3)
    const head = readFileSync(t.headFile, 'utf8')
    writeFileSync(t.headFile, JSON.stringify({seq: 3, hash: 'c'.repeat(64)}))
    await expectRefused(t.dir, /was cut or its head changed \(record 3 of audit\.jsonl is not the record audit\.head names\)/)
    writeFileSync(t.headFile, head)
    writeFileSync(t.file, [...t.lines.slice(0, 2), t.lines[2].replace('/api/x/2', '/api/x/7')].join('\n') + '\n')
    await expectRefused(t.dir, /has a broken last line/)
    writeFileSync(t.file, [...t.lines.slice(0, 2), t.lines[2].slice(0, 40)].join('\n') + '\n')
    await expectRefused(t.dir, /has a broken last line/)
  })

  it('every append queued with a refused one is refused', async () => {
    const t = await trail(3)
    t.cut(1)
    const log = new AuditLog(t.dir)
    const results = await Promise.allSettled([log.append(fields(1)), log.append(fields(2)), log.append(fields(3))])
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected', 'rejected'])
    expect(readAudit(t.dir)).toHaveLength(1)
  })

  it('a head behind the log with the record it names is brought up to date by the next write', async () => {
    const t = await trail(6)
    const recs = readAudit(t.dir)
    writeFileSync(t.headFile, JSON.stringify({seq: 4, hash: recs[3].hash}))
    await t.log.append(fields(7))
    const now = readAudit(t.dir)
    expect(now).toHaveLength(7)
    expect(now[6].prev).toBe(recs[5].hash)
    expect(readAuditHead(t.dir)).toEqual({state: 'ok', head: {seq: 7, hash: now[6].hash}})
    expect(verifyAudit(t.dir)).toMatchObject({ok: true, records: 7})
  })

  it('a brand new config dir starts a trail; so does an empty log with a head at record 0', async () => {
    const dir = join(temp(), 'nested', 'config')
    await new AuditLog(dir).append(fields(1))
    expect(verifyAudit(dir)).toMatchObject({ok: true, records: 1})
    const other = temp()
    writeFileSync(join(other, 'audit.head'), JSON.stringify({seq: 0, hash: GENESIS}))
    await new AuditLog(other).append(fields(1))
    expect(readAudit(other)[0]).toMatchObject({seq: 1, prev: GENESIS})
  })
})

describe('audit verify --expect-head', () => {
  it('passes on the head hash or a prefix of it, in either case', async () => {
    const t = await trail(5)
    const hash = readAudit(t.dir)[4].hash
    for (const h of [hash, hash.slice(0, 12), hash.slice(0, 12).toUpperCase()]) expect(verifyAudit(t.dir, {expectHead: h})).toMatchObject({ok: true, head: {seq: 5, hash}})
  })

  it('fails on another hash, saying whether the trail grew or was rewritten', async () => {
    const t = await trail(5)
    const recs = readAudit(t.dir)
    const older = verifyAudit(t.dir, {expectHead: recs[2].hash.slice(0, 16)})
    expect(older).toMatchObject({ok: false, records: 5, head: {seq: 5, hash: recs[4].hash}})
    expect(older.line).toBeUndefined()
    expect(older.message).toBe(
      `${t.file}: the head is record 5 with hash ${recs[4].hash}, not --expect-head ${recs[2].hash.slice(0, 16)} (it is record 3, 2 records before the head: the trail has grown since it was taken).`,
    )
    const other = verifyAudit(t.dir, {expectHead: 'd'.repeat(12)})
    expect(other.ok).toBe(false)
    expect(other.message).toMatch(/not --expect-head dddddddddddd \(no record of the log has it: the trail was rewritten, or it is another trail\)\.$/)
  })

  it('catches a chain recomputed wholesale, which the chain alone cannot', async () => {
    const t = await trail(4)
    const anchor = readAudit(t.dir)[3].hash
    // Someone with write access rewrites the log from record 2 on and recomputes every hash and the head.
    const rewritten = temp()
    const log = new AuditLog(rewritten)
    const {seq: _seq, time: _time, pid: _pid, prev: _prev, hash: _hash, ...first} = readAudit(t.dir)[0]
    await log.append(first)
    for (let i = 1; i < 4; i++) await log.append({...fields(i), path: '/api/forged'})
    expect(verifyAudit(rewritten)).toMatchObject({ok: true, records: 4})
    expect(verifyAudit(rewritten, {expectHead: anchor})).toMatchObject({ok: false})
  })
})

describe('the record a head behind the log names', () => {
  it('is found from the end backwards, across pieces and lines cut between them; a record the log lacks is not', async () => {
    const t = await trail(40)
    const recs = readAudit(t.dir)
    const file = join(t.dir, 'audit.jsonl')
    // Pieces smaller than a line, of a line and a half, and larger than the log.
    for (const chunk of [7, 150, 1 << 20]) {
      for (const r of [recs[39], recs[38], recs[20], recs[0]]) expect(hashOfRecord(file, r.seq, chunk)).toBe(r.hash)
      expect(hashOfRecord(file, 41, chunk)).toBeUndefined()
    }
  })

  it('stops at the first record numbered below the one looked for (the log is not read whole)', async () => {
    const t = await trail(3)
    const file = join(t.dir, 'audit.jsonl')
    // A record numbered 5 before the others is never reached: record 3, at the end, is below 5.
    writeFileSync(file, `${JSON.stringify({seq: 5, hash: 'f'.repeat(64)})}\n${readFileSync(file, 'utf8')}`)
    expect(hashOfRecord(file, 5, 64)).toBeUndefined()
    expect(hashOfRecord(file, 2, 64)).toBe(readAudit(t.dir).find((r) => r.seq === 2)!.hash)
  })
})
