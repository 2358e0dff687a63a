/** Reading what the operator hands over: a file named on the command line, or stdin. */
import {readFileSync} from 'node:fs'
import {UsageError} from './errors.js'

/** Reads a file named on the command line (`-` is stdin); a usage error naming it if it cannot. */
export function readFileArg(path: string, flag: string): Buffer {
  try {
    return readFileSync(path === '-' ? 0 : path)
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code
    throw new UsageError(`${flag} ${path}: ${code === 'ENOENT' ? 'no such file' : (code ?? (err as Error).message)}.`)
  }
}

/** Everything on stdin (ids, a key, a raw body). */
export async function readStdin(): Promise<Buffer> {
  const chunks: Buffer[] = []
  for await (const c of process.stdin) chunks.push(c as Buffer)
  return Buffer.concat(chunks)
}
