/**
 * The audit trail's store: `audit verify` and every writer check that the chain ends with the
 * record its head names, so records cut off the end, a deleted or changed head, an edited last
 * record or deleted records are found (exit 1) and never continued; `--expect-head` anchors the
 * trail to a hash kept elsewhere; a check that refuses one record leaves the others of its group.
 */
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {AuditLog, readAudit, readAuditHead, verifyAudit, type AuditFields} from '../../src/audit/index.js'
import {AuditTrailError, NotConfirmedError, PayopsError} from '../../src/errors.js'
import {tempDirs} from '../support/index.js'
import {snapshotTrail, tamper, trailFile} from '../support/trail.js'

const temp = tempDirs('payops-audit-trail-')

const fields = (n: number): AuditFields => ({kind: 'intent', op: `op-${n}`, profile: 'p', mode: 'test', method: 'POST', path: `/api/x/${n}`})

/** A trail of `n` records (one group each); returns its dir and the log that wrote it (closed). */
async function trail(n: number) {
  const dir = temp()
  const log = new AuditLog(dir)
  for (let i = 0; i < n; i++) await log.append(fields(i))
  await log.close()
  return {dir, store: trailFile(dir)}
}

/** Expects a refused append: AuditTrailError, exit 1, one line with the fix, and nothing written. */
async function expectRefused(dir: string, problem: RegExp) {
  const before = snapshotTrail(dir)
  const log = new AuditLog(dir)
  const err = await log.append(fields(99)).then(
    () => undefined,
    (e: unknown) => e,
  )
  await log.close()
  expect(err).toBeInstanceOf(AuditTrailError)
  expect(err).toBeInstanceOf(PayopsError)
  const e = err as AuditTrailError
  expect(e.exitCode).toBe(1)
  expect(e.message).toMatch(problem)
  expect(e.message).toContain(`the audit trail in ${trailFile(dir)} `)
  expect(e.message).toMatch(/run `payops audit verify`; nothing can be added to a trail whose end does not match its head$/)
  expect(e.message).not.toContain('\n')
  expect(snapshotTrail(dir)).toEqual(before)
}

describe('audit verify finds a trail whose end does not match its head', () => {
  it('an intact trail verifies and reports its head', async () => {
    const t = await trail(5)
    const last = readAudit(t.dir)[4]
    expect(readAuditHead(t.dir)).toEqual({state: 'ok', head: {seq: 5, hash: last.hash}})
    expect(verifyAudit(t.dir)).toEqual({ok: true, records: 5, head: {seq: 5, hash: last.hash}})
  })

  it('records cut off the end with the head intact: the first missing record is named', async () => {
    const t = await trail(24)
    tamper(t.dir, 'DELETE FROM trail WHERE seq > 20')
    const r = verifyAudit(t.dir)
    expect(r).toMatchObject({ok: false, records: 20, line: 21})
    expect(r.message).toBe(`${t.store}: record 21 is missing: the chain ends at record 20 but the trail's head names record 24 (records removed from the end).`)
  })

  it('records cut off the end with the head deleted', async () => {
    const t = await trail(24)
    tamper(t.dir, 'DELETE FROM trail WHERE seq > 20')
    tamper(t.dir, 'DELETE FROM trail_head')
    expect(verifyAudit(t.dir).message).toBe(`${t.store}: record 20 ends the chain but the trail's head is missing (the head was deleted, or the chain was written without one).`)
  })

  it('a head naming the last record with another hash, or a record in the middle edited', async () => {
    const t = await trail(4)
    tamper(t.dir, 'UPDATE trail_head SET hash = ?', 'b'.repeat(64))
    expect(verifyAudit(t.dir)).toMatchObject({ok: false, line: 4, reason: "does not match the trail's head (the record was replaced, or the head was changed)"})
    const u = await trail(4)
    tamper(u.dir, "UPDATE trail SET record = replace(record, '/api/x/1', '/api/x/9') WHERE seq = 2")
    expect(verifyAudit(u.dir)).toMatchObject({ok: false, line: 2, reason: 'was edited (its hash does not match its content)'})
  })

  it('a brand new config dir is an intact empty trail, and nothing is created to say so', () => {
    const dir = join(temp(), 'nothing-yet')
    expect(verifyAudit(dir)).toMatchObject({ok: true, records: 0})
    expect(readAudit(dir)).toEqual([])
  })
})

describe('writers refuse a trail whose end does not match its head', () => {
  it('records cut off the end are refused, not continued (and the head is not moved)', async () => {
    const t = await trail(24)
    tamper(t.dir, 'DELETE FROM trail WHERE seq > 20')
    await expectRefused(t.dir, /was cut or its head changed \(the trail ends at record 20, its head names record 24\)/)
    expect(verifyAudit(t.dir)).toMatchObject({ok: false, line: 21})
  })

  it('a deleted head, deleted records and a garbled head are refused', async () => {
    const t = await trail(3)
    tamper(t.dir, 'DELETE FROM trail_head')
    await expectRefused(t.dir, /lost its head \(the trail ends at record 3 but its head is missing\)/)
    const u = await trail(3)
    tamper(u.dir, 'DELETE FROM trail')
    await expectRefused(u.dir, /lost its records \(there are none but its head names record 3\)/)
    const v = await trail(3)
    tamper(v.dir, "UPDATE trail_head SET hash = 'xyz'")
    await expectRefused(v.dir, /has a garbled head/)
  })

  it('a changed head, or an edited last record, is refused', async () => {
    const t = await trail(3)
    tamper(t.dir, 'UPDATE trail_head SET hash = ?', 'c'.repeat(64))
    await expectRefused(t.dir, /was cut or its head changed \(the trail ends at record 3, its head names record 3 with another hash\)/)
    const u = await trail(3)
    tamper(u.dir, "UPDATE trail SET record = replace(record, '/api/x/2', '/api/x/7') WHERE seq = 3")
    await expectRefused(u.dir, /has a broken last record \(record 3 does not match its hash\)/)
  })

  it('every append queued with a refused one is refused', async () => {
    const t = await trail(3)
    tamper(t.dir, 'DELETE FROM trail WHERE seq > 1')
    const log = new AuditLog(t.dir)
    const results = await Promise.allSettled([log.append(fields(1)), log.append(fields(2)), log.append(fields(3))])
    await log.close()
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected', 'rejected'])
    expect(readAudit(t.dir)).toHaveLength(1)
  })

  it('a check that refuses one record of a group leaves the others, and sees the group before it', async () => {
    const t = await trail(2)
    const log = new AuditLog(t.dir)
    const seen: number[] = []
    const refuse = (records: Array<{seq: number}>) => {
      seen.push(records.length)
      throw new NotConfirmedError('over the cap')
    }
    const results = await Promise.allSettled([log.append(fields(3)), log.append(fields(4), refuse), log.append(fields(5), (r) => void seen.push(r.length))])
    await log.close()
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled'])
    expect((results[1] as PromiseRejectedResult).reason).toBeInstanceOf(NotConfirmedError)
    expect(seen).toEqual([3, 3])
    expect(readAudit(t.dir).map((r) => r.op)).toEqual(['op-0', 'op-1', 'op-3', 'op-5'])
    expect(verifyAudit(t.dir)).toMatchObject({ok: true, records: 4})
  })

  it('a brand new config dir (and its parents) starts a trail', async () => {
    const dir = join(temp(), 'nested', 'config')
    const log = new AuditLog(dir)
    await log.append(fields(1))
    await log.close()
    expect(verifyAudit(dir)).toMatchObject({ok: true, records: 1})
    expect(readAudit(dir)[0]).toMatchObject({seq: 1, prev: '0'.repeat(64)})
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
      `${t.store}: the head is record 5 with hash ${recs[4].hash}, not --expect-head ${recs[2].hash.slice(0, 16)} (it is record 3, 2 records before the head: the trail has grown since it was taken).`,
    )
    const other = verifyAudit(t.dir, {expectHead: 'd'.repeat(12)})
    expect(other.ok).toBe(false)
    expect(other.message).toMatch(/not --expect-head dddddddddddd \(no record of the chain has it: the trail was rewritten, or it is another trail\)\.$/)
  })

  it('catches a chain recomputed wholesale, which the chain alone cannot', async () => {
    const t = await trail(4)
    const anchor = readAudit(t.dir)[3].hash
    // Someone with write access rewrites the trail from record 2 on and recomputes every hash and the head.
    const rewritten = temp()
    const log = new AuditLog(rewritten)
    const {seq: _seq, time: _time, pid: _pid, prev: _prev, hash: _hash, ...first} = readAudit(t.dir)[0]
    await log.append(first)
    for (let i = 1; i < 4; i++) await log.append({...fields(i), path: '/api/forged'})
    await log.close()
    expect(verifyAudit(rewritten)).toMatchObject({ok: true, records: 4})
    expect(verifyAudit(rewritten, {expectHead: anchor})).toMatchObject({ok: false})
  })
})
