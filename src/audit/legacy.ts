/**
 * The JSON-lines trail of earlier versions (`audit.jsonl` and its head `audit.head` in the config
 * dir), read only to be imported into the store once (see import.ts), and JSON-lines files read
 * for `audit verify FILE`. Files are opened with O_NOFOLLOW: a link planted at one is refused
 * (exit 2), nothing is read through it.
 */
import {closeSync, constants, lstatSync, openSync, readFileSync, readSync} from 'node:fs'
import {join} from 'node:path'
import {UsageError} from '../errors.js'
import {parseHead, verifyChain, type HeadState, type VerifyOptions, type VerifyResult} from './chain.js'

export const AUDIT_FILE = 'audit.jsonl'
export const AUDIT_HEAD = 'audit.head'

const NOFOLLOW = constants.O_NOFOLLOW ?? 0

/** The error for a file of the trail that is a symbolic link (exit 2; its target untouched). */
function linkError(file: string): UsageError {
  return new UsageError(`${file} is a symbolic link; payops does not read or write the audit trail through one (its target was not touched). Replace it with the file itself.`)
}

export function isLink(file: string): boolean {
  try {
    return lstatSync(file).isSymbolicLink()
  } catch {
    return false
  }
}

/** Whether a file is there (a link counts: it is refused when opened, never passed over). */
export function present(file: string): boolean {
  try {
    lstatSync(file)
    return true
  } catch {
    return false
  }
}

/** openSync for reading, never through a symbolic link. */
export function openForRead(file: string): number {
  if (!NOFOLLOW && isLink(file)) throw linkError(file)
  try {
    return openSync(file, constants.O_RDONLY | NOFOLLOW)
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ELOOP') throw linkError(file)
    throw err
  }
}

/** Reads `audit.head`, telling an absent head from a garbled one; throws a UsageError when it is a symbolic link. */
export function readLegacyHead(dir: string): HeadState {
  const file = join(dir, AUDIT_HEAD)
  let text: string
  try {
    const fd = openForRead(file)
    try {
      text = readFileSync(fd, 'utf8')
    } finally {
      closeSync(fd)
    }
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return {state: 'absent'}
    if (err instanceof UsageError) throw err
    return {state: 'garbled', detail: `cannot be read: ${(err as Error).message}`}
  }
  return parseHead(text)
}

/**
 * The lines of a file, read in chunks: a trail can outgrow the longest string JavaScript holds
 * (about 512 MB, some million imported rows). A last line without its line end is a line too.
 */
export function* linesOf(file: string): Generator<string> {
  const fd = openForRead(file)
  try {
    const buf = Buffer.alloc(8 << 20)
    let rest = Buffer.alloc(0)
    for (;;) {
      const got = readSync(fd, buf, 0, buf.length, null)
      if (got === 0) break
      const chunk = rest.length ? Buffer.concat([rest, buf.subarray(0, got)]) : buf.subarray(0, got)
      let start = 0
      for (let nl = chunk.indexOf(0x0a); nl !== -1; nl = chunk.indexOf(0x0a, start)) {
        yield chunk.toString('utf8', start, nl)
        start = nl + 1
      }
      // A copy: the chunk may be a view of the buffer the next read overwrites.
      rest = Buffer.from(chunk.subarray(start))
    }
    if (rest.length) yield rest.toString('utf8')
  } finally {
    closeSync(fd)
  }
}

/** The numbered lines of a file (1-based), blank ones left out. */
export function* numberedLines(file: string): Generator<{n: number; text: string}> {
  let n = 0
  for (const text of linesOf(file)) {
    n++
    if (text.trim()) yield {n, text}
  }
}

/** Verifies the old trail of a config dir: `audit.jsonl` against `audit.head`, as earlier versions did. */
export function verifyLegacy(dir: string, opts: VerifyOptions = {}): VerifyResult {
  const file = join(dir, AUDIT_FILE)
  // The head first: a writer appended to the log before it moved the head.
  const head = readLegacyHead(dir)
  return verifyChain({label: file, unit: 'line', items: present(file) ? numberedLines(file) : [], head: () => head, headName: AUDIT_HEAD}, opts)
}

/** The line an export ends with: the head of the chain it holds, so that lines cut off its end are found. */
export const HEAD_LINE_KEY = 'head'

/**
 * Verifies an exported file (`audit export --format jsonl`): its records, and its last line, the
 * head (`{"head":{"seq":N,"hash":H}}`), so that lines cut off the end are detected too. Read in
 * one pass: each line is held back until the next shows it was not the last.
 */
export function verifyExport(file: string, opts: VerifyOptions = {}): VerifyResult {
  let head: HeadState = {state: 'garbled', detail: 'is missing (the file does not end with its head line: lines were cut off its end, or it is not an export)'}
  function* records(): Generator<{n: number; text: string}> {
    let held: {n: number; text: string} | undefined
    for (const line of numberedLines(file)) {
      if (held) yield held
      held = line
    }
    if (held && held.text.startsWith(`{"${HEAD_LINE_KEY}"`)) {
      let parsed: unknown
      try {
        parsed = (JSON.parse(held.text) as Record<string, unknown>)[HEAD_LINE_KEY]
      } catch {
        parsed = undefined
      }
      head = parseHead(JSON.stringify(parsed ?? null))
    } else if (held) yield held
  }
  return verifyChain({label: file, unit: 'line', items: records(), head: () => head, headName: 'the head line'}, opts)
}
