/**
 * The bank's own statement files in: which format a file is (by its content, never its name), and
 * the reader of each (the writers are in ./writers.ts, the format names in ./formats.ts).
 */
import {createHash} from 'node:crypto'
import {UsageError} from '../../errors.js'
import {oneLine, replaceUnsafeChars} from '../../text.js'
import {readBai2} from './bai2.js'
import {readCamt} from './camt.js'
import {readMt940} from './mt940.js'
import {MAX_BANK_FILE_BYTES, type BankFile} from './types.js'

export type {BankFile, BankFileAccount, BankFileLine} from './types.js'

export type Sniffed = 'bai2' | 'camt' | 'mt940'

/** The format of a file's text, from its first records; undefined when it is none of them. */
export function sniff(text: string): Sniffed | undefined {
  const head = text.slice(0, 4096).replace(/^\uFEFF/, '').trimStart()
  if (/^01,[^\n]*\/\s*(\r?\n|$)/.test(head)) return 'bai2'
  if (head.startsWith('<') && /urn:iso:std:iso:20022:tech:xsd:camt\.05[234]\./.test(head)) return 'camt'
  if (/^(\{1:[^}]*\}(\{2:[^}]*\})?(\{3:[^}]*\})?\{4:\s*)?:20:/.test(head) && /(^|\n):25:/.test(head)) return 'mt940'
  return undefined
}

/**
 * The digest that recognises a file by its content: SHA-256 of its text with any byte-order mark
 * dropped, line ends made LF, trailing spaces of each line and blank lines removed (a file passed
 * through another system's line endings is the same file).
 */
export function contentDigest(text: string): string {
  const hash = createHash('sha256')
  const body = text.startsWith('\uFEFF') ? 1 : 0
  // Line by line, so no second copy of the file is made: each line less its end and trailing spaces, then LF.
  for (let start = body; start < text.length; ) {
    let end = text.indexOf('\n', start)
    if (end === -1) end = text.length
    let last = end
    while (last > start && (text[last - 1] === '\r' || text[last - 1] === ' ' || text[last - 1] === '\t')) last--
    const line = text.slice(start, last)
    if (line.includes('\r')) {
      // A lone CR ends a line too (old Mac files): the line is split on it.
      for (const part of line.split('\r')) {
        const t = part.replace(/[ \t]+$/, '')
        if (t !== '') hash.update(`${t}\n`)
      }
    } else if (line !== '') hash.update(`${line}\n`)
    start = end + 1
  }
  return hash.digest('hex')
}

export interface ReadBankFile extends BankFile {
  digest: string
}

/** Reads a statement file's bytes: its format recognised by content, checked whole, or one line saying why not (exit 2). */
export function readBankFile(bytes: Buffer, file: string): ReadBankFile {
  const name = oneLine(replaceUnsafeChars(file), 200)
  if (bytes.length > MAX_BANK_FILE_BYTES) throw new UsageError(`${name} is ${bytes.length} bytes, more than the ${MAX_BANK_FILE_BYTES / 1024 / 1024} MiB a statement file may be.`)
  const text = bytes.toString('utf8')
  if (text.includes('\uFFFD')) throw new UsageError(`${name} is not UTF-8 (or ASCII) text: a statement file is read as text.`)
  const kind = sniff(text)
  if (!kind) {
    const start = oneLine(replaceUnsafeChars(text.replace(/^\uFEFF/, '').trimStart().slice(0, 24)), 24)
    throw new UsageError(`${name} is not a BAI2, camt.052/053/054 or MT940 file (it begins "${start}"): payops recognises them by their content.`)
  }
  const clean = text.startsWith('\uFEFF') ? text.slice(1) : text
  const read = kind === 'bai2' ? readBai2(clean, name) : kind === 'camt' ? readCamt(clean, name) : readMt940(clean, name)
  return Object.assign(read, {digest: contentDigest(text)})
}
