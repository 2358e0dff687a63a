/**
 * Exclusive locks between payops processes (proper-lockfile: a `FILE.lock` directory whose mtime
 * the holder refreshes). Beside the lock, `FILE.lock.owner` names the holder's pid and host, so a
 * lock left by a process of this machine that is gone (kill -9, a crash) is taken over at once
 * instead of after the stale period: a killed import resumes in seconds.
 */
import {readFileSync, rmSync, statSync, unlinkSync, writeFileSync} from 'node:fs'
import {hostname} from 'node:os'
import {loadLockfile} from './interop.js'

export interface LockOptions {
  /** Milliseconds after its last refresh at which a lock whose owner is unknown counts as abandoned. */
  stale: number
  retries: {retries: number; factor?: number; minTimeout?: number; maxTimeout?: number; randomize?: boolean}
}

/** The pid is a running process (or one this user may not signal: then it is treated as running). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/** Removes the lock of `file` when its owner file names a process of this host that is gone. */
export function clearAbandonedLock(file: string): boolean {
  const ownerFile = `${file}.lock.owner`
  let owner: {pid?: unknown; host?: unknown}
  try {
    owner = JSON.parse(readFileSync(ownerFile, 'utf8')) as typeof owner
  } catch {
    return false
  }
  if (typeof owner.pid !== 'number' || owner.host !== hostname() || owner.pid === process.pid || alive(owner.pid)) return false
  // The owner file must describe the lock there now: a lock made after it (another process took
  // the abandoned lock over meanwhile) is left alone.
  try {
    const lock = statSync(`${file}.lock`)
    if (lock.birthtimeMs > statSync(ownerFile).mtimeMs) return false
  } catch {
    return false
  }
  rmSync(`${file}.lock`, {recursive: true, force: true})
  rmSync(ownerFile, {force: true})
  return true
}

/** Takes the lock of `file` (the file itself need not exist); resolves with its release. */
export async function lockExclusive(file: string, opts: LockOptions): Promise<() => Promise<void>> {
  const lockfile = await loadLockfile()
  const ownerFile = `${file}.lock.owner`
  const acquire = (retries: LockOptions['retries']) =>
    lockfile.lock(file, {stale: opts.stale, realpath: false, retries, onCompromised: () => undefined})
  let release: () => Promise<void>
  try {
    release = await acquire({retries: 0})
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ELOCKED') throw err
    clearAbandonedLock(file)
    release = await acquire(opts.retries)
  }
  try {
    writeFileSync(ownerFile, JSON.stringify({pid: process.pid, host: hostname()}), {mode: 0o600})
  } catch {
    // Without an owner file the lock is still exclusive; it is only taken over after the stale period.
  }
  return async () => {
    try {
      unlinkSync(ownerFile)
    } catch {
      // already gone
    }
    await release()
  }
}
