/**
 * The lock of a file being imported: `FILE.lock`, a directory made by proper-lockfile and touched
 * every second by its owner, stale after 4 s without a touch. Its owner writes its pid and host in
 * it (`FILE.lock/owner`), so that a run after kill -9 takes over a lock whose owner is gone (on
 * this host, no process has its pid) once it has not been touched for 2 s, rather than after 4 s.
 * A lock judged abandoned is first moved aside (an atomic rename), then judged again where it now
 * is, and put back if it no longer looks abandoned (another run took the lock in between).
 */
import {randomUUID} from 'node:crypto'
import {readFileSync, renameSync, rmSync, statSync, writeFileSync} from 'node:fs'
import {hostname} from 'node:os'
import {join} from 'node:path'
import {UsageError} from '../errors.js'
import {loadLockfile} from '../interop.js'

const STALE_MS = 4000
/** An owner refreshes its lock every second: one untouched this long is not being refreshed. */
const UNTOUCHED_MS = 2000
const ATTEMPTS = 13
const WAIT_MS = 500

export const lockDirOf = (file: string) => `${file}.lock`

function ownerOf(dir: string): {pid: number; host: string} | undefined {
  try {
    const o = JSON.parse(readFileSync(join(dir, 'owner'), 'utf8')) as {pid?: unknown; host?: unknown}
    return typeof o.pid === 'number' && typeof o.host === 'string' ? {pid: o.pid, host: o.host} : undefined
  } catch {
    return undefined
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (err) {
    return (err as NodeJS.ErrnoException).code !== 'ESRCH'
  }
}

/** The lock at `dir` is stale, or its owner is gone and it is not being refreshed. */
function abandoned(dir: string): boolean {
  let mtime: number
  try {
    mtime = statSync(dir).mtimeMs
  } catch {
    return false
  }
  const age = Date.now() - mtime
  if (age > STALE_MS) return true
  const owner = ownerOf(dir)
  return age > UNTOUCHED_MS && owner !== undefined && owner.host === hostname() && owner.pid !== process.pid && !alive(owner.pid)
}

/** Removes the lock at `dir` when it is abandoned; true when one was removed. */
export function breakAbandonedLock(dir: string): boolean {
  if (!abandoned(dir)) return false
  const aside = `${dir}.abandoned-${randomUUID().slice(0, 8)}`
  try {
    renameSync(dir, aside)
  } catch {
    return false
  }
  if (!abandoned(aside)) {
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
 * Takes the lock of `file` (another import of it: waits up to 6 s, then fails). Resolves with its
 * release.
 */
export async function lockImport(file: string): Promise<() => Promise<void>> {
  const lockfile = await loadLockfile()
  const dir = lockDirOf(file)
  for (let attempt = 1; ; attempt++) {
    breakAbandonedLock(dir)
    try {
      const release = await lockfile.lock(file, {stale: STALE_MS, update: 1000, realpath: false, retries: 0, onCompromised: () => undefined})
      try {
        writeFileSync(join(dir, 'owner'), JSON.stringify({pid: process.pid, host: hostname()}), {mode: 0o600})
      } catch {
        // Without it the lock is taken over when stale, as any.
      }
      return async () => {
        rmSync(join(dir, 'owner'), {force: true})
        await release()
      }
    } catch {
      // Held (or being removed as stale, with an owner file in it): look again.
      if (attempt >= ATTEMPTS) throw new UsageError(`Another payops import of ${file} is running (lock ${dir}).`)
      await new Promise((resolve) => setTimeout(resolve, WAIT_MS))
    }
  }
}
