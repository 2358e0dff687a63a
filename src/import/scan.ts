/**
 * Reading a journal fast, for resuming: what it holds by line (the key sent from each line, the
 * content it was sent with, whether its move is done) in typed arrays indexed by line, without a
 * JSON.parse or an object per record. The compact records (`["s",line,"~digest","fp"]` and
 * `{"type":"done","l":line,…}`) are read straight from the bytes; any other line is parsed as JSON
 * and read as readJournal reads it. A journal this cannot describe by line (a line sent with two
 * keys, an outcome naming another key than its line's, old records it does not know, a corrupt
 * line before the last ones) gives undefined: readJournal and matchRows decide then.
 */
import {existsSync, readFileSync} from 'node:fs'
import {derivedKeyPrefix} from './csv.js'
import type {BatchRecord, FinishedRecord} from './journal.js'
import type {RowTable} from './table.js'

/** The line has a key (sent from it, or named by an outcome on it). */
const KEY = 1
/** That key is derived from the batch id (its digest is stored); else it is in `explicit`. */
const DERIVED = 2
/** The content hash the key was last sent with is stored. */
const FP = 4
/** The key's move is done. */
const DONE = 8
/** Sent, and no outcome read since (an outcome without a key is that key's). */
const OPEN = 16

/** The highest line a journal may name (a larger one: readJournal decides). */
const MAX_LINE = 1 << 28

export class JournalIndex {
  batch?: BatchRecord
  finished?: FinishedRecord
  tornTail = false
  /** Lines with a key: the journal's keys when it describes a file aligned with it. */
  keyed = 0
  /** Lines with a done key. */
  done = 0
  flags = new Uint8Array(1024)
  digest = Buffer.alloc(16 * 1024)
  fp = Buffer.alloc(16 * 1024)
  readonly explicit = new Map<number, string>()

  has(line: number): boolean {
    return line < this.flags.length && (this.flags[line] & KEY) !== 0
  }

  isDone(line: number): boolean {
    return line < this.flags.length && (this.flags[line] & DONE) !== 0
  }

  /** The key on `line` (undefined: none), as readJournal gives it. */
  keyAt(line: number): string | undefined {
    if (!this.has(line)) return undefined
    if (!(this.flags[line] & DERIVED)) return this.explicit.get(line)
    return derivedKeyPrefix(this.batch!.batch_id) + this.digest.toString('hex', 16 * line, 16 * line + 16)
  }

  /** The content hash that key was last sent with (hex), when known. */
  fpAt(line: number): string | undefined {
    return this.has(line) && this.flags[line] & FP ? this.fp.toString('hex', 16 * line, 16 * line + 16) : undefined
  }

  /** Room for `line`. */
  reserve(line: number): void {
    if (line < this.flags.length) return
    let n = this.flags.length
    while (n <= line) n *= 2
    const flags = new Uint8Array(n)
    flags.set(this.flags)
    this.flags = flags
    for (const name of ['digest', 'fp'] as const) {
      const b = Buffer.alloc(16 * n)
      this[name].copy(b)
      this[name] = b
    }
  }
}

/** A key as stored by line: a derived key's 16-byte digest, or the key itself. */
type Key = {digest: Buffer} | {key: string}

/** The journal by line; an empty index when there is no journal; undefined when it cannot be read by line. */
export function scanJournal(path: string): JournalIndex | undefined {
  const idx = new JournalIndex()
  if (!path || !existsSync(path)) return idx
  return scanBytes(readFileSync(path), idx)
}

const B64 = new Int16Array(256).fill(-1)
'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'.split('').forEach((c, i) => (B64[c.charCodeAt(0)] = i))

/** 22 base64url characters at `at` (16 bytes) into `out` at `to`; false when they are not that. */
function b64At(buf: Buffer, at: number, out: Buffer, to: number): boolean {
  let acc = 0
  let bits = 0
  let o = to
  for (let i = 0; i < 22; i++) {
    const v = B64[buf[at + i]]
    if (v < 0) return false
    acc = ((acc << 6) | v) & 0xffffff
    bits += 6
    if (bits >= 8) {
      bits -= 8
      if (o < to + 16) out[o++] = (acc >> bits) & 0xff
    }
  }
  // The last character carries 2 bits of padding that must be zero (Buffer writes them so).
  return (acc & ((1 << bits) - 1)) === 0
}

/** Digits at `at` as a line number, and where they end; undefined when there are none (or too many). */
function intAt(buf: Buffer, at: number, end: number): {value: number; end: number} | undefined {
  let v = 0
  let i = at
  while (i < end && buf[i] >= 0x30 && buf[i] <= 0x39 && i - at < 10) v = v * 10 + buf[i++] - 0x30
  if (i === at || (buf[at] === 0x30 && i > at + 1) || v < 1 || v > MAX_LINE) return undefined
  return {value: v, end: i}
}

const SENT = Buffer.from('["s",')
const SENT_KEY = Buffer.from(',"~')
const SENT_FP = Buffer.from('","')
const DONE_REC = Buffer.from('{"type":"done","l":')
const DONE_NEXT = Buffer.from(',"m":')
const FAILED_REC = Buffer.from('{"type":"failed","l":')
const NAMED_KEY = Buffer.from(',"k":')

const startsAt = (buf: Buffer, at: number, end: number, what: Buffer) => end - at >= what.length && buf.compare(what, 0, what.length, at, at + what.length) === 0

/** Why a record cannot be read: `torn` (as readJournal, a corrupt record among the last lines is ignored) or `general`. */
class Unreadable extends Error {
  constructor(readonly corrupt: boolean) {
    super(corrupt ? 'corrupt record' : 'not by line')
  }
}

export function scanBytes(buf: Buffer, idx: JournalIndex): JournalIndex | undefined {
  const scratch = Buffer.alloc(16)
  const scratchFp = Buffer.alloc(16)
  let prefix: string | undefined
  const keyOf = (k: unknown): Key => {
    if (typeof k !== 'string' || !k) throw new Unreadable(true)
    if (k.startsWith('=')) return plain(k.slice(1))
    if (!k.startsWith('~')) return plain(k)
    if (!prefix) throw new Unreadable(true)
    const digest = Buffer.from(k.slice(1), 'base64url')
    if (digest.length !== 16 || digest.toString('base64url') !== k.slice(1)) throw new Unreadable(false)
    return {digest}
  }
  const plain = (key: string): Key => {
    const tail = prefix && key.startsWith(prefix) ? key.slice(prefix.length) : ''
    return /^[0-9a-f]{32}$/.test(tail) ? {digest: Buffer.from(tail, 'hex')} : {key}
  }
  /** The line's key is `k` (a second key on a line: not by line). */
  const setKey = (line: number, k: Key): void => {
    idx.reserve(line)
    const f = idx.flags[line]
    if (f & KEY) {
      const same = 'digest' in k ? (f & DERIVED) !== 0 && idx.digest.compare(k.digest, 0, 16, 16 * line, 16 * line + 16) === 0 : (f & DERIVED) === 0 && idx.explicit.get(line) === k.key
      if (!same) throw new Unreadable(false)
      return
    }
    idx.keyed++
    if ('digest' in k) {
      k.digest.copy(idx.digest, 16 * line)
      idx.flags[line] = f | KEY | DERIVED
    } else {
      idx.explicit.set(line, k.key)
      idx.flags[line] = f | KEY
    }
  }
  const sent = (line: number, k: Key, fp?: Buffer): void => {
    setKey(line, k)
    idx.flags[line] |= OPEN
    if (fp) {
      fp.copy(idx.fp, 16 * line)
      idx.flags[line] |= FP
    }
  }
  /** An outcome: of the key named, else of the key last sent from its line (none: unreadable, as readJournal). */
  const outcome = (line: number, k: Key | undefined, done: boolean): void => {
    idx.reserve(line)
    const open = (idx.flags[line] & OPEN) !== 0
    if (!k && !open) throw new Unreadable(true)
    idx.flags[line] &= ~OPEN
    if (k) setKey(line, k)
    if (done && !(idx.flags[line] & DONE)) {
      idx.flags[line] |= DONE
      idx.done++
    }
  }
  const fpOf = (v: unknown, hex: boolean): Buffer | undefined => {
    if (v === undefined) return undefined
    if (typeof v !== 'string') throw new Unreadable(false)
    const b = Buffer.from(v, hex ? 'hex' : 'base64url')
    if (b.length !== 16 || b.toString(hex ? 'hex' : 'base64url') !== v) throw new Unreadable(false)
    return b
  }
  const lineOf = (v: unknown): number => {
    if (typeof v !== 'number') throw new Unreadable(true)
    if (!Number.isInteger(v) || v < 1 || v > MAX_LINE) throw new Unreadable(false)
    return v
  }

  /** A record by its bytes, when it is a compact one this reads so; false otherwise. */
  const fast = (s: number, e: number): boolean => {
    if (startsAt(buf, s, e, SENT)) {
      if (!prefix) return false
      const n = intAt(buf, s + SENT.length, e)
      if (!n || !startsAt(buf, n.end, e, SENT_KEY)) return false
      const k = n.end + SENT_KEY.length
      if (e - k !== 22 + 3 + 22 + 2 || !startsAt(buf, k + 22, e, SENT_FP) || buf[e - 2] !== 0x22 || buf[e - 1] !== 0x5d) return false
      if (!b64At(buf, k, scratch, 0) || !b64At(buf, k + 25, scratchFp, 0)) return false
      sent(n.value, {digest: scratch}, scratchFp)
      return true
    }
    const done = startsAt(buf, s, e, DONE_REC)
    if (done || startsAt(buf, s, e, FAILED_REC)) {
      const n = intAt(buf, s + (done ? DONE_REC : FAILED_REC).length, e)
      if (!n || buf[e - 1] !== 0x7d) return false
      // An outcome naming its key ("k" follows the line) is read as JSON.
      if (done ? !startsAt(buf, n.end, e, DONE_NEXT) : buf[n.end] !== 0x2c || startsAt(buf, n.end, e, NAMED_KEY)) return false
      outcome(n.value, undefined, done)
      return true
    }
    return false
  }

  /** Any other record, parsed: as readJournal reads it. */
  const slow = (v: unknown): void => {
    if (Array.isArray(v)) {
      const [t, line, k, fp] = v as unknown[]
      if (t !== 's' || typeof line !== 'number') throw new Unreadable(true)
      const key = keyOf(k)
      sent(lineOf(line), key, typeof fp === 'string' ? fpOf(fp, false) : undefined)
      return
    }
    if (!v || typeof v !== 'object') throw new Unreadable(true)
    const rec = v as Record<string, unknown>
    if (rec.l !== undefined) {
      if (rec.type !== 'done' && rec.type !== 'failed') throw new Unreadable(true)
      const line = lineOf(rec.l)
      outcome(line, rec.k === undefined ? undefined : keyOf(rec.k), rec.type === 'done')
      return
    }
    switch (rec.type) {
      case 'batch':
        if (!idx.batch) {
          // Keys read before the batch record could not be told derived: readJournal decides.
          if (idx.keyed) throw new Unreadable(false)
          idx.batch = rec as unknown as BatchRecord
          prefix = typeof idx.batch.batch_id === 'string' ? derivedKeyPrefix(idx.batch.batch_id) : undefined
          if (!prefix) throw new Unreadable(false)
        }
        return
      case 'finished':
        idx.finished = rec as unknown as FinishedRecord
        return
      case 'sent':
        // Written by earlier versions: the whole key (and, later, the content hash in hex).
        if (typeof rec.line !== 'number' || typeof rec.key !== 'string') throw new Unreadable(false)
        sent(lineOf(rec.line), plain(rec.key), fpOf(rec.fp, true))
        return
      default:
        throw new Unreadable(false)
    }
  }

  // Lines as readJournal splits them: the last two pieces may be a torn record.
  let s = 0
  while (s <= buf.length) {
    let e = buf.indexOf(0x0a, s)
    const last = e < 0
    if (last) e = buf.length
    const tail = last || buf.indexOf(0x0a, e + 1) < 0
    try {
      if (e > s && !(tail ? false : fast(s, e))) {
        const text = buf.toString('utf8', s, e)
        if (text.trim()) {
          let v: unknown
          try {
            v = JSON.parse(text)
          } catch {
            throw new Unreadable(true)
          }
          slow(v)
        }
      }
    } catch (err) {
      if (!(err instanceof Unreadable)) throw err
      if (!(err.corrupt && tail)) return undefined
      idx.tornTail = true
    }
    s = e + 1
  }
  // A journal with keys but no batch record: readJournal decides.
  if (idx.keyed && !idx.batch) return undefined
  return idx
}

/**
 * Marks the rows of a batch's first-run table (every row keyed as a first run keys it: its key
 * cell, else its derived key of occurrence n among identical rows in file order) that the journal
 * holds, when the journal is aligned with the file: every line the journal has a key on holds a
 * row of the file whose first-run key is that key and whose content is the content it was sent
 * with. False (the table unchanged as to done rows... but not to be used) when it is not.
 *
 * Then the table is the one matchRows gives (it is not called): each journaled row keeps its key;
 * a row with a key cell not in the journal keeps its cell; and a row with neither gets, among the
 * rows of its content, the smallest occurrence number no journaled row of that content holds, in
 * file order — which is its own occurrence number, as the journaled rows of that content hold
 * theirs. Nothing has changed (every journal entry matches its own line's content) and nothing is
 * missing; a row is done when its key's move is. The journal's keys are distinct first-run keys of
 * distinct lines, so the journal has no two lines with one key.
 */
export function alignWithJournal(table: RowTable, idx: JournalIndex): boolean {
  let matched = 0
  for (let i = 0; i < table.length; i++) {
    const line = table.lineOf(i)
    if (!idx.has(line)) continue
    const f = idx.flags[line]
    if (!(f & FP) || !table.contentIs(i, idx.fp, 16 * line)) return false
    if (f & DERIVED ? !table.derivedKeyIs(i, idx.digest, 16 * line) : !table.otherKeyIs(i, idx.explicit.get(line)!)) return false
    table.markJournaled(i, (f & DONE) !== 0)
    matched++
  }
  return matched === idx.keyed
}
