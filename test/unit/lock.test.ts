/**
 * Locks between payops processes: a lock left by a process that is gone is taken over at once (a
 * killed import resumes in seconds); a lock of a live process, or one made after the owner file
 * that names a dead process, is not.
 */
import {spawnSync} from 'node:child_process'
import {existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync} from 'node:fs'
import {hostname, tmpdir} from 'node:os'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {clearAbandonedLock, lockExclusive} from '../../src/lock.js'

/** The pid of a process that has exited. */
function deadPid(): number {
  const r = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'])
  return Number(r.stdout.toString())
}

const noRetry = {stale: 5_000, retries: {retries: 0}}

describe('lockExclusive', () => {
  it('takes over at once a lock whose owner, on this host, is gone; release removes lock and owner file', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'payops-lock-')), 'rows.csv')
    mkdirSync(`${file}.lock`)
    writeFileSync(`${file}.lock.owner`, JSON.stringify({pid: deadPid(), host: hostname()}))
    const release = await lockExclusive(file, noRetry)
    expect(JSON.parse(readFileSync(`${file}.lock.owner`, 'utf8'))).toEqual({pid: process.pid, host: hostname()})
    await release()
    expect(existsSync(`${file}.lock`)).toBe(false)
    expect(existsSync(`${file}.lock.owner`)).toBe(false)
  })

  it('waits for a lock whose owner is alive, or of another host, or unknown', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'payops-lock-'))
    for (const owner of [{pid: process.ppid, host: hostname()}, {pid: deadPid(), host: `${hostname()}-elsewhere`}, undefined]) {
      const file = join(dir, `rows-${Math.random()}.csv`)
      mkdirSync(`${file}.lock`)
      if (owner) writeFileSync(`${file}.lock.owner`, JSON.stringify(owner))
      await expect(lockExclusive(file, noRetry)).rejects.toMatchObject({code: 'ELOCKED'})
      expect(existsSync(`${file}.lock`)).toBe(true)
    }
  })

  it('leaves alone a lock made after the owner file that names a dead process', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'payops-lock-')), 'rows.csv')
    writeFileSync(`${file}.lock.owner`, JSON.stringify({pid: deadPid(), host: hostname()}))
    await new Promise((r) => setTimeout(r, 30))
    mkdirSync(`${file}.lock`)
    expect(clearAbandonedLock(file)).toBe(false)
    expect(existsSync(`${file}.lock`)).toBe(true)
  })

  it('a second holder in the same process waits: the lock is exclusive', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'payops-lock-')), 'rows.csv')
    const release = await lockExclusive(file, noRetry)
    await expect(lockExclusive(file, noRetry)).rejects.toMatchObject({code: 'ELOCKED'})
    await release()
    const again = await lockExclusive(file, noRetry)
    await again()
  })
})
