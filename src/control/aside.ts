/** Files an earlier payops kept, once moved into the control store, are renamed aside (kept, never read again). */
import {existsSync, renameSync} from 'node:fs'

export const MOVED_SUFFIX = '.moved'

/** Renames a moved file (and the WAL files SQLite may have left beside it) aside. */
export function putAside(file: string): void {
  for (const suffix of ['-wal', '-shm']) {
    if (existsSync(file + suffix)) renameSync(file + suffix, file + MOVED_SUFFIX + suffix)
  }
  try {
    renameSync(file, file + MOVED_SUFFIX)
  } catch (err) {
    // Another process moved it meanwhile.
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err
  }
}
