/** Reading what the operator hands over: a file named on the command line, or stdin. */
import {readFileSync} from 'node:fs'
import type {Readable} from 'node:stream'
import {UsageError} from './errors.js'

/** Reads a file named on the command line; a usage error naming it if it cannot. */
export function readFileArg(path: string, flag: string): Buffer {
  try {
    return readFileSync(path)
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code
    throw new UsageError(`${flag} ${path}: ${code === 'ENOENT' ? 'no such file' : (code ?? (err as Error).message)}.`)
  }
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
