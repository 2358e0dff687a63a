/**
 * The import journal: an append-only JSON-lines file beside the CSV that records the batch, each
 * row's Idempotency-Key when it is sent, and each outcome. Records are written in small groups and
 * fsync'd, so a re-run after Ctrl-C, kill -9, a crash or an outage skips what is done and re-sends
 * the rest with the same keys (the server's idempotency turns a re-send of a move that did land
 * into a replay, never a second move).
 */
import {closeSync, existsSync, fstatSync, fsync, fsyncSync, openSync, readFileSync, readSync, truncateSync, writeSync} from 'node:fs'
import {UsageError} from '../errors.js'
import {contentHash, deriveKey, derivedKeyPrefix} from './csv.js'

export interface BatchRecord {
  type: 'batch'
  batch_id: string
  file: string
  file_sha256: string
  rows: number
  created_at: string
}

export interface SentRecord {
  type: 'sent'
  line: number
  key: string
  /** contentHash of the row's content (from, to, amount, currency, auto_approve, metadata); absent in journals written by earlier versions. */
  fp?: string
  /** Written by earlier versions only. */
  at?: string
}

export interface DoneRecord {
  type: 'done'
  line: number
  key: string
  move_id: string
  status: string
  http_status: number
  /** True unless this run created the move (kept for older readers; see `kind`). */
  replayed: boolean
  kind?: 'created' | 'replayed' | 'advanced'
  warning?: string
  /** Written by earlier versions only. */
  at?: string
}

export interface FailedRecord {
  type: 'failed'
  line: number
  key: string
  status?: number
  error_code?: string
  message: string
  /** Written by earlier versions only. */
  at?: string
}

export interface FinishedRecord {
  type: 'finished'
  file_sha256: string
  at: string
}

export type JournalRecord = BatchRecord | SentRecord | DoneRecord | FailedRecord | FinishedRecord

/** What the journal knows of one key: the row it was sent from, and whether it may have made a move. */
export interface JournalEntry {
  key: string
  line: number
  /** Content hash of the row sent with this key (recovered from the file for old journals, when possible). */
  fp?: string
  /**
   * The key may have made a move: done, or sent without a definitive refusal (a 4xx other than
   * 408, 409 and 429 means the API made nothing with it).
   */
  landed: boolean
}

export interface JournalState {
  batch?: BatchRecord
  /** Every key the journal has sent, with its line and content. */
  entries: Map<string, JournalEntry>
  /** Latest outcome per key. */
  done: Map<string, DoneRecord>
  failed: Map<string, FailedRecord>
  sent: Set<string>
  finished?: FinishedRecord
  /** A torn last line (a crash mid-write) was ignored. */
  tornTail: boolean
}

export function journalPathFor(csvPath: string): string {
  return `${csvPath}.payops-journal.jsonl`
}

export function readJournal(path: string): JournalState {
  const state: JournalState = {entries: new Map(), done: new Map(), failed: new Map(), sent: new Set(), tornTail: false}
  if (!path || !existsSync(path)) return state
  const entry = (key: string, line: number): JournalEntry => {
    let e = state.entries.get(key)
    if (!e) state.entries.set(key, (e = {key, line, landed: true}))
    e.line = line
    return e
  }
  const lines = readFileSync(path, 'utf8').split('\n')
  const decoder = new RecordDecoder()
  lines.forEach((text, i) => {
    if (!text.trim()) return
    let rec: JournalRecord
    try {
      rec = decoder.decode(JSON.parse(text) as unknown, state.batch?.batch_id)
    } catch {
      if (i >= lines.length - 2) {
        state.tornTail = true
        return
      }
      throw new UsageError(`The import journal ${path} is corrupt at line ${i + 1}; move it aside to start over (moves already made keep their keys only if you keep it).`)
    }
    switch (rec.type) {
      case 'batch':
        state.batch ??= rec
        break
      case 'sent': {
        state.sent.add(rec.key)
        const e = entry(rec.key, rec.line)
        if (rec.fp) e.fp = rec.fp
        if (!state.done.has(rec.key)) e.landed = true
        break
      }
      case 'done':
        state.done.set(rec.key, rec)
        state.failed.delete(rec.key)
        entry(rec.key, rec.line).landed = true
        break
      case 'failed':
        if (!state.done.has(rec.key)) {
          state.failed.set(rec.key, rec)
          entry(rec.key, rec.line).landed = !isDefinitiveRefusal(rec.status)
        }
        break
      case 'finished':
        state.finished = rec
        break
    }
  })
  return state
}

/*
 * The compact records (written since mass imports; the verbose ones above are still read):
 *
 * - sent: a JSON array `["s", line, key, fp]`. A key derived from the batch id is written as `~`
 *   and its digest in base64url (a key of the file that starts with `~` or `=` gets a `=` in
 *   front); fp (the content hash) in base64url.
 * - done: `{"type":"done","l":line,"m":move_id,"o":kind}` (kind c, r or a; "w": the warning,
 *   "s": the move's status when not settled, "h": the HTTP status when not 200 or 201). With no
 *   "k", the key is the one last sent from that line (the writer names the key otherwise).
 * - failed: `{"type":"failed","l":line,"message":…,"status":…,"error_code":…}`, the key as above.
 *
 * No record repeats a timestamp: the batch record has its creation time.
 */
const KINDS = {created: 'c', replayed: 'r', advanced: 'a'} as const
const KIND_OF: Record<string, DoneRecord['kind']> = {c: 'created', r: 'replayed', a: 'advanced'}

const hexToB64 = (hex: string) => Buffer.from(hex, 'hex').toString('base64url')
const b64ToHex = (b64: string) => Buffer.from(b64, 'base64url').toString('hex')

/** Writes records compactly; remembers which key each line was last sent with (until its outcome). */
class RecordEncoder {
  private prefix?: string
  private readonly sentAt = new Map<number, string>()

  useBatch(batchId: string): void {
    this.prefix = derivedKeyPrefix(batchId)
  }

  private key(key: string): string {
    const p = this.prefix
    if (p && key.length === p.length + 32 && key.startsWith(p) && /^[0-9a-f]{32}$/.test(key.slice(p.length))) return `~${hexToB64(key.slice(p.length))}`
    // An explicit key that would read as a compact one is marked.
    return key.startsWith('~') || key.startsWith('=') ? `=${key}` : key
  }

  encode(rec: JournalRecord): string {
    switch (rec.type) {
      case 'batch':
        this.useBatch(rec.batch_id)
        return JSON.stringify(rec)
      case 'sent':
        if (rec.fp && !/^[0-9a-f]{32}$/.test(rec.fp)) return JSON.stringify(rec)
        this.sentAt.set(rec.line, rec.key)
        return JSON.stringify(['s', rec.line, this.key(rec.key), ...(rec.fp ? [hexToB64(rec.fp)] : [])])
      case 'done': {
        const out: Record<string, unknown> = {type: 'done', l: rec.line, ...this.keyOf(rec.line, rec.key), m: rec.move_id, o: KINDS[rec.kind ?? (rec.replayed ? 'replayed' : 'created')]}
        if (rec.status !== 'settled') out.s = rec.status
        if (rec.http_status !== 200 && rec.http_status !== 201) out.h = rec.http_status
        if (rec.warning) out.w = rec.warning
        return JSON.stringify(out)
      }
      case 'failed': {
        const {type, line, key: k, at: _at, ...rest} = rec
        return JSON.stringify({type, l: line, ...this.keyOf(line, k), ...rest})
      }
      default:
        return JSON.stringify(rec)
    }
  }

  /** Nothing when the reader can tell the key from the line (the key last sent from it). */
  private keyOf(line: number, key: string): {k?: string} {
    const last = this.sentAt.get(line)
    this.sentAt.delete(line)
    return last === key ? {} : {k: this.key(key)}
  }
}

/** Reads records of either form back into the verbose ones. Throws on anything else. */
class RecordDecoder {
  private readonly sentAt = new Map<number, string>()

  private key(k: unknown, batchId: string | undefined): string {
    if (typeof k !== 'string' || !k) throw new Error('bad key')
    if (k.startsWith('=')) return k.slice(1)
    if (!k.startsWith('~')) return k
    if (!batchId) throw new Error('no batch')
    return derivedKeyPrefix(batchId) + b64ToHex(k.slice(1))
  }

  private keyOf(rec: Record<string, unknown>, batchId: string | undefined): {line: number; key: string} {
    const line = rec.l
    if (typeof line !== 'number') throw new Error('bad line')
    const last = this.sentAt.get(line)
    this.sentAt.delete(line)
    const key = rec.k === undefined ? last : this.key(rec.k, batchId)
    if (!key) throw new Error('no key')
    return {line, key}
  }

  decode(v: unknown, batchId: string | undefined): JournalRecord {
    if (Array.isArray(v)) {
      const [t, line, k, fp] = v as unknown[]
      if (t !== 's' || typeof line !== 'number') throw new Error('bad record')
      const key = this.key(k, batchId)
      this.sentAt.set(line, key)
      return {type: 'sent', line, key, ...(typeof fp === 'string' ? {fp: b64ToHex(fp)} : {})}
    }
    if (!v || typeof v !== 'object') throw new Error('bad record')
    const rec = v as Record<string, unknown>
    if (rec.type === 'sent' && typeof rec.line === 'number' && typeof rec.key === 'string') this.sentAt.set(rec.line, rec.key)
    if (rec.l === undefined) return rec as unknown as JournalRecord
    if (rec.type === 'done') {
      const kind = KIND_OF[rec.o as string]
      return {
        type: 'done',
        ...this.keyOf(rec, batchId),
        move_id: String(rec.m),
        status: typeof rec.s === 'string' ? rec.s : 'settled',
        http_status: typeof rec.h === 'number' ? rec.h : kind === 'created' ? 201 : 200,
        replayed: kind !== 'created',
        kind,
        ...(typeof rec.w === 'string' ? {warning: rec.w} : {}),
      }
    }
    if (rec.type === 'failed') {
      const {l: _l, k: _k, ...rest} = rec
      return {...(rest as unknown as FailedRecord), ...this.keyOf(rec, batchId)}
    }
    throw new Error('bad record')
  }
}

/** Appends records, flushing (write + fsync) every `flushMs` or `maxPending` records, and on close. */
/** A 4xx answer after which the API holds nothing under the key (408, 409 and 429 are not). */
export function isDefinitiveRefusal(status: number | undefined): boolean {
  return status !== undefined && status >= 400 && status < 500 && ![408, 409, 429].includes(status)
}

/** Where a file's unterminated last line starts (undefined: it ends with a newline, or is empty). */
function tornTailAt(path: string): number | undefined {
  const fd = openSync(path, 'r')
  try {
    const size = fstatSync(fd).size
    const chunk = Buffer.alloc(64 * 1024)
    for (let end = size; end > 0; ) {
      const start = Math.max(0, end - chunk.length)
      const n = readSync(fd, chunk, 0, end - start, start)
      if (end === size && chunk[n - 1] === 0x0a) return undefined
      const nl = chunk.subarray(0, n).lastIndexOf(0x0a)
      if (nl >= 0) return start + nl + 1
      end = start
    }
    return size > 0 ? 0 : undefined
  } finally {
    closeSync(fd)
  }
}

export class JournalWriter {
  private fd: number
  private pending: string[] = []
  private readonly encoder = new RecordEncoder()
  private timer?: NodeJS.Timeout
  /** Written since the last fsync that was waited for. */
  private unsynced = false

  constructor(
    readonly path: string,
    private readonly flushMs = 50,
    private readonly maxPending = 256,
  ) {
    // A crash can leave a torn last line: cut it off so that every line stays a whole record
    // (the row it described is simply re-sent with its key, which the server replays).
    // Only the end of the file is read (a large journal is not read whole again).
    if (existsSync(path)) {
      const cut = tornTailAt(path)
      if (cut !== undefined) truncateSync(path, cut)
    }
    this.fd = openSync(path, 'a', 0o600)
  }

  /** Keys derived from this batch id are written short (see RecordEncoder). */
  useBatch(batchId: string): void {
    this.encoder.useBatch(batchId)
  }

  append(rec: JournalRecord, urgent = false): void {
    this.pending.push(this.encoder.encode(rec) + '\n')
    if (urgent) this.flush()
    else if (this.pending.length >= this.maxPending) this.flush(false)
    else this.timer ??= setTimeout(() => this.flush(false), this.flushMs)
  }

  /** Writes the records appended so far; fsyncs them before returning unless `sync` is false. */
  flush(sync = true): void {
    if (this.timer) clearTimeout(this.timer)
    this.timer = undefined
    if (this.fd < 0) return
    if (this.pending.length) {
      writeSync(this.fd, this.pending.join(''))
      this.pending = []
      this.unsynced = true
    }
    if (!this.unsynced) return
    // A timed group is made durable off the event loop (answers keep being read meanwhile); an
    // urgent record, and the end of the run, wait for every group written before them.
    if (sync) fsyncSync(this.fd)
    else fsync(this.fd, () => undefined)
    this.unsynced = !sync
  }

  close(): void {
    this.flush()
    if (this.fd >= 0) closeSync(this.fd)
    this.fd = -1
  }
}
