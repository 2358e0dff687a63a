/** Bounded reads for the webhook tools: a payload or a secret file never loads more than its limit. */
import {open} from 'node:fs/promises'
import type {Readable} from 'node:stream'
import {UsageError} from '../errors.js'

function sizeText(bytes: number): string {
  return bytes % (1024 * 1024) === 0 ? `${bytes / (1024 * 1024)} MB` : bytes % 1024 === 0 ? `${bytes / 1024} KB` : `${bytes} bytes`
}

/**
 * Reads the file at `path` (`-` for stdin), or stdin when `path` is undefined, stopping with a
 * usage error (exit 2) as soon as more than `max` bytes have come: `/dev/zero` or an endless pipe
 * costs at most `max` bytes. `what` ends the error message (why the limit exists). `stdin` is the
 * command's input stream (from its context); a read of stdin without one is a programming error.
 */
export async function readBounded(path: string | undefined, flag: string, max: number, what: string, stdin?: Readable): Promise<Buffer> {
  const name = path === undefined || path === '-' ? 'stdin' : `${flag} ${path}`
  const tooLarge = () => new UsageError(`${name}: more than ${sizeText(max)}, ${what}.`)
  const chunks: Buffer[] = []
  let size = 0
  if (path === undefined || path === '-') {
    if (!stdin) throw new Error(`readBounded: no stdin given to read ${name} from`)
    for await (const c of stdin) {
      const chunk = typeof c === 'string' ? Buffer.from(c) : (c as Buffer)
      size += chunk.length
      if (size > max) {
        stdin.destroy()
        throw tooLarge()
      }
      chunks.push(chunk)
    }
    return Buffer.concat(chunks, size)
  }
  let fh: import('node:fs/promises').FileHandle
  try {
    fh = await open(path, 'r')
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code
    throw new UsageError(`${flag} ${path}: ${code === 'ENOENT' ? 'no such file' : (code ?? (err as Error).message)}.`)
  }
  try {
    const buf = Buffer.allocUnsafe(Math.min(max + 1, 64 * 1024))
    for (;;) {
      let n: number
      try {
        ;({bytesRead: n} = await fh.read(buf, 0, buf.length, null))
      } catch (err) {
        throw new UsageError(`${flag} ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}.`)
      }
      if (n === 0) break
      size += n
      if (size > max) throw tooLarge()
      chunks.push(Buffer.from(buf.subarray(0, n)))
    }
  } finally {
    await fh.close().catch(() => undefined)
  }
  return Buffer.concat(chunks, size)
}
