/**
 * Locks between payops processes after kill -9: a lock whose owner (on this host) is gone is taken
 * over at once, a stale one (4 s here) whoever owned it; one whose owner lives or is on another
 * host, or whose owner is unknown and that is refreshed, is not.
 */
import {spawnSync} from 'node:child_process'
import {existsSync, mkdirSync, readFileSync, rmSync, utimesSync, writeFileSync} from 'node:fs'
import {hostname} from 'node:os'
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {breakAbandonedLock as breakLock, lockDirOf, lockExclusive, LockBusyError} from '../../src/lock.js'
import {tempDir} from '../support/env.js'

const breakAbandonedLock = (dir: string) => breakLock(dir, 4000)
const lockImport = (file: string) => lockExclusive(file, {stale: 4000, attempts: 1, waitMs: 0})

const dir = tempDir('payops-import-lock-').path
afterAll(() => rmSync(dir, {recursive: true, force: true}))
let n = 0

/** A pid no process has any more. */
const deadPid = () => spawnSync(process.execPath, ['-e', '0']).pid!

function lockLeftBehind(owner: {pid: number; host?: string} | undefined, ageMs: number): string {
  const file = join(dir, `f${++n}.csv`)
  const lock = lockDirOf(file)
  mkdirSync(lock)
  if (owner) writeFileSync(join(lock, 'owner'), JSON.stringify({host: hostname(), ...owner}))
  const t = (Date.now() - ageMs) / 1000
  utimesSync(lock, t, t)
  return file
}

describe('the import lock after kill -9', () => {
  it('is taken over when its owner is gone, or when it is stale', () => {
    expect(breakAbandonedLock(lockDirOf(lockLeftBehind({pid: deadPid()}, 0)))).toBe(true)
    expect(breakAbandonedLock(lockDirOf(lockLeftBehind(undefined, 5000)))).toBe(true)
    // No owner file (killed between making the lock and naming itself) and not refreshed.
    expect(breakAbandonedLock(lockDirOf(lockLeftBehind(undefined, 2000)))).toBe(true)
    expect(breakAbandonedLock(lockDirOf(lockLeftBehind({pid: process.ppid}, 5000)))).toBe(true)
  })

  it('is kept while refreshed, while its owner lives, or when its owner is on another host', () => {
    for (const [owner, age] of [
      [{pid: process.ppid}, 2500],
      [{pid: deadPid(), host: 'elsewhere'}, 2500],
      [undefined, 500],
    ] as const) {
      const file = lockLeftBehind(owner, age)
      expect(breakAbandonedLock(lockDirOf(file))).toBe(false)
      expect(existsSync(lockDirOf(file))).toBe(true)
    }
  })

  it('a run takes over an abandoned lock at once, names itself in it, and leaves nothing when released', async () => {
    const file = lockLeftBehind({pid: deadPid()}, 0)
    const started = Date.now()
    const release = await lockImport(file)
    expect(Date.now() - started).toBeLessThan(1000)
    expect(JSON.parse(readFileSync(join(lockDirOf(file), 'owner'), 'utf8'))).toMatchObject({pid: process.pid, host: hostname()})
    await release()
    expect(existsSync(lockDirOf(file))).toBe(false)
  })

  it('a lock held by a live process is busy: LockBusyError after the attempts, the lock kept', async () => {
    const file = lockLeftBehind({pid: process.ppid}, 0)
    await expect(lockImport(file)).rejects.toBeInstanceOf(LockBusyError)
    expect(existsSync(lockDirOf(file))).toBe(true)
  })

  it('is exclusive within one process too, and free again once released', async () => {
    const file = join(dir, `f${++n}.csv`)
    const release = await lockImport(file)
    await expect(lockImport(file)).rejects.toMatchObject({code: 'ELOCKED'})
    await release()
    await (await lockImport(file))()
  })

  it('a release after the lock was taken over (stale) leaves the new holder lock alone', async () => {
    const file = join(dir, `f${++n}.csv`)
    const first = await lockImport(file)
    // The first hold goes stale (its owner stopped refreshing it) and a second hold takes it over.
    const t = (Date.now() - 10_000) / 1000
    utimesSync(lockDirOf(file), t, t)
    const second = await lockImport(file)
    await first()
    expect(existsSync(lockDirOf(file))).toBe(true)
    await second()
    expect(existsSync(lockDirOf(file))).toBe(false)
  })
})
