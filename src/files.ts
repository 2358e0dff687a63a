/** Reading what the operator hands over: a file named on the command line, or stdin. */
import {createHash} from 'node:crypto'
import {createReadStream, lstatSync, readFileSync, realpathSync} from 'node:fs'
import type {Readable} from 'node:stream'
import {UsageError} from './errors.js'

/** The one-line error of a file named on the command line that cannot be read. */
function fileError(err: unknown, what: string): UsageError {
  const code = (err as NodeJS.ErrnoException).code
  return new UsageError(`${what}: ${code === 'ENOENT' ? 'no such file' : (code ?? (err as Error).message)}.`)
}

/** Reads a file named on the command line; a usage error naming it if it cannot. */
export function readFileArg(path: string, flag: string): Buffer {
  try {
    return readFileSync(path)
  } catch (err) {
    throw fileError(err, `${flag} ${path}`)
  }
}

/** The real path of a file named on the command line (symlinks resolved); a usage error naming it if there is none. */
export function realPathArg(path: string): string {
  try {
    return realpathSync(path)
  } catch (err) {
    throw fileError(err, `Cannot read ${path}`)
  }
}

/** The SHA-256 of a file's bytes, read a megabyte at a time. */
export async function sha256File(path: string): Promise<string> {
  const hash = createHash('sha256')
  for await (const chunk of createReadStream(path, {highWaterMark: 1 << 20})) hash.update(chunk as Buffer)
  return hash.digest('hex')
}

/** Everything a stream holds (stdin: ids, a key, a raw body). */
export async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = []
  for await (const c of stream) chunks.push(typeof c === 'string' ? Buffer.from(c) : (c as Buffer))
  return Buffer.concat(chunks)
}

/** A file named on the command line, or everything on `stdin` when it is `-`. */
export function readFileOrStdin(path: string, flag: string, stdin: Readable): Promise<Buffer> {
  return path === '-' ? readAll(stdin) : Promise.resolve(readFileArg(path, flag))
}

/** Whether `path` is a symbolic link (false when there is nothing there): state files are never opened through one. */
export function isSymlink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink()
  } catch {
    return false
  }
}
