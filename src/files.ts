/** Reading what the operator hands over: a file named on the command line, or stdin. */
import {createHash} from 'node:crypto'
import {closeSync, constants, createReadStream, fstatSync, lstatSync, openSync, readFileSync, readSync, realpathSync} from 'node:fs'
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

/**
 * The last `maxBytes` of a file as text (the whole file when it is smaller), and whether it was
 * cut (its first line may then be a piece of one); undefined when the file cannot be read, or is a
 * symbolic link (state files are never opened through one).
 */
export function readTail(file: string, maxBytes: number): {text: string; cut: boolean} | undefined {
  let fd: number
  try {
    fd = openSync(file, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0))
  } catch {
    return undefined
  }
  try {
    const size = fstatSync(fd).size
    const start = Math.max(0, size - maxBytes)
    const buf = Buffer.alloc(size - start)
    let got = 0
    while (got < buf.length) {
      const n = readSync(fd, buf, got, buf.length - got, start + got)
      if (n === 0) break
      got += n
    }
    return {text: buf.toString('utf8', 0, got), cut: start > 0}
  } catch {
    return undefined
  } finally {
    closeSync(fd)
  }
}
