/**
 * What the file at a state path is (absent, an SQLite state, a JSON state of an earlier payops),
 * judged by its first bytes without changing it, and the one-line refusals of a file that is none.
 */
import type {Stats} from 'node:fs'
import {open, stat} from 'node:fs/promises'
import {UsageError} from '../lib/errors.js'
import {oneLine} from '../lib/text.js'
import {refuseSymlinks} from './db.js'

const SQLITE_HEADER = 'SQLite format 3\0'

/** What {@link convertHint} tells the user to run (the flag `emulator start` offers for it). */
export const IMPORT_FLAG = '--import-state'

/** Why a file operation failed, in words (no temporary file names). */
export function reason(err: unknown): string {
  const e = err as NodeJS.ErrnoException
  switch (e?.code) {
    case 'ENOENT':
      return 'its directory does not exist'
    case 'ENOTDIR':
      return 'a part of its directory path is not a directory'
    case 'EISDIR':
      return 'it is a directory'
    case 'EACCES':
    case 'EPERM':
      return 'permission denied'
    case 'EROFS':
      return 'the file system is read-only'
    case 'ENOSPC':
      return 'no space left on the device'
    default:
      return oneLine(String(e?.message ?? err))
  }
}

export const invalid = (path: string, why: string) =>
  new UsageError(`Emulator state file ${path} is not a valid state: ${oneLine(why)}. It was left untouched; move it away or choose another --state file.`)

/** The problems of a parsed JSON state file, or undefined when its shape is right. */
/** What the file at a state path is, judged by its first bytes (the file is only read). */
export type Kind = 'absent' | 'sqlite' | 'json'

export async function inspect(path: string): Promise<Kind> {
  refuseSymlinks(path, 'state file')
  let st: Stats
  try {
    st = await stat(path)
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 'absent'
    throw new UsageError(`Cannot read the emulator state file ${path}: ${reason(err)}.`)
  }
  if (st.isDirectory()) throw invalid(path, 'it is a directory')
  if (!st.isFile()) throw invalid(path, 'it is not a regular file')
  if (st.size === 0) throw invalid(path, 'it is empty')
  const head = Buffer.alloc(64)
  let n: number
  try {
    const fh = await open(path, 'r')
    try {
      n = (await fh.read(head, 0, head.length, 0)).bytesRead
    } finally {
      await fh.close()
    }
  } catch (err) {
    throw new UsageError(`Cannot read the emulator state file ${path}: ${reason(err)}.`)
  }
  if (n >= 16 && head.toString('latin1', 0, 16) === SQLITE_HEADER) return 'sqlite'
  const text = head.toString('utf8', 0, n).replace(/^\uFEFF/, '').trimStart()
  if (text.startsWith('{') || text.startsWith('[')) return 'json'
  throw invalid(path, 'it is neither an SQLite nor a JSON state file of payops')
}

/** The one line that refuses a JSON state file of an earlier payops (and says how to convert it). */
export function convertHint(path: string): string {
  return `Emulator state file ${path} is a JSON state file written by an earlier payops; this payops keeps --state in SQLite and left the file untouched. Start without --state, or convert it into a new file: payops emulator start --state NEW_FILE ${IMPORT_FLAG} ${path}`
}
