/**
 * Exclusive locks between payops processes: `FILE.lock`, a directory made by proper-lockfile and
 * touched by its owner while held, stale once untouched for the stale period. Its owner writes its
 * pid and host in it (`FILE.lock/owner`), so that a run after kill -9 or a crash takes over a lock
 * whose owner is gone (on this host, no process has its pid) at once rather than after the stale
 * period: a killed import resumes in seconds (a lock with no owner file, which a process killed
 * while making it leaves, is taken over once untouched for 1.5 s). A lock judged abandoned is
 * first moved aside (an atomic rename), then judged again where it now is, and put back if it no
 * longer looks abandoned (another run took the lock in between).
 */
import {systemClock} from './context/host.js'
import {randomUUID} from 'node:crypto'
import {readFileSync, renameSync, rmSync, statSync} from 'node:fs'
import {rename, rm, writeFile} from 'node:fs/promises'
import {hostname} from 'node:os'
import {join} from 'node:path'
import {loadLockfile} from './interop.js'

export interface LockOptions {
  /** Milliseconds untouched after which a lock counts as abandoned, whoever owns it (at least 2,000). */
  stale: number
  /** Tries before giving up, `waitMs` apart. */
  attempts: number
  waitMs: number
}

/** Thrown when the lock is still held after every attempt. */
export class LockBusyError extends Error {
  readonly code = 'ELOCKED'
}

export const lockDirOf = (file: string) => `${file}.lock`

function ownerOf(dir: string): {pid: number; host: string; token?: string} | undefined {
  try {
    const o = JSON.parse(readFileSync(join(dir, 'owner'), 'utf8')) as {pid?: unknown; host?: unknown; token?: unknown}
    return typeof o.pid === 'number' && typeof o.host === 'string' ? {pid: o.pid, host: o.host, ...(typeof o.token === 'string' ? {token: o.token} : {})} : undefined
  } catch {
    return undefined
  }
}

/** The pid is a running process (or one this user may not signal: then it is treated as running). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (err) {
    return (err as NodeJS.ErrnoException).code !== 'ESRCH'
  }
}

/**
 * An owner writes its owner file within moments of making the lock and refreshes the lock every
 * second: a lock with no owner file, untouched this long, was left by a process killed in between.
 */
const OWNERLESS_MS = 1500

/** The lock at `dir` is stale, or its owner is gone (or never named itself and does not refresh it). */
function abandoned(dir: string, staleMs: number): boolean {
  let mtime: number
  try {
    mtime = statSync(dir).mtimeMs
  } catch {
    return false
  }
  const age = systemClock.now() - mtime
  if (age > staleMs) return true
  const owner = ownerOf(dir)
  if (!owner) return age > OWNERLESS_MS
  return owner.host === hostname() && owner.pid !== process.pid && !alive(owner.pid)
}

/** Removes the lock at `dir` when it is abandoned; true when one was removed. */
export function breakAbandonedLock(dir: string, staleMs: number): boolean {
  if (!abandoned(dir, staleMs)) return false
  const aside = `${dir}.abandoned-${randomUUID().slice(0, 8)}`
  try {
    renameSync(dir, aside)
  } catch {
    return false
  }
  if (!abandoned(aside, staleMs)) {
    // Another run took the lock between the two looks: give it back.
    try {
      renameSync(aside, dir)
    } catch {
      rmSync(aside, {recursive: true, force: true})
    }
    return false
  }
  rmSync(aside, {recursive: true, force: true})
  return true
}

/**
 * Takes the lock of `file` (the file itself need not exist); resolves with its release. Throws
 * {@link LockBusyError} when another process still holds it after every attempt.
 */
export async function lockExclusive(file: string, opts: LockOptions): Promise<() => Promise<void>> {
  const lockfile = await loadLockfile()
  const dir = lockDirOf(file)
  const stale = Math.max(2000, opts.stale)
  for (let attempt = 1; ; attempt++) {
    breakAbandonedLock(dir, stale)
    try {
      const release = await lockfile.lock(file, {stale, update: 1000, realpath: false, retries: 0, onCompromised: () => undefined})
      // The token tells this hold from a later one of the same process (after a stale takeover).
      const token = randomUUID()
      try {
        await writeFile(join(dir, 'owner'), JSON.stringify({pid: process.pid, host: hostname(), token}), {mode: 0o600, flag: 'wx'})
      } catch {
        // Without it the lock is taken over when stale, as any.
      }
      return async () => {
        // proper-lockfile stops refreshing the lock first (its own removal fails: the owner file is
        // in it); then the lock goes away whole, owner file and all (a rename), so that no moment
        // leaves a lock without its owner, and only if it is still this hold's (a lock taken over
        // from this process belongs to its new holder).
        await release().catch(() => undefined)
        if (ownerOf(dir)?.token !== token) return
        const aside = `${dir}.released-${randomUUID().slice(0, 8)}`
        // Off the event loop: a large import releases the audit trail's lock after every group.
        try {
          await rename(dir, aside)
          await rm(aside, {recursive: true, force: true})
        } catch {
          await rm(join(dir, 'owner'), {force: true})
        }
      }
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code
      // Held (or being removed as stale, with an owner file in it): look again.
      if (code !== 'ELOCKED' && code !== 'ENOTEMPTY' && code !== 'EEXIST') throw err
      if (attempt >= opts.attempts) throw new LockBusyError(`${file} is locked by another payops process (${dir})`)
      await new Promise((resolve) => setTimeout(resolve, opts.waitMs))
    }
  }
}
