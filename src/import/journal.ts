/**
 * The import journal: an append-only JSON-lines file beside the CSV that records the batch, each
 * row's Idempotency-Key when it is sent, and each outcome. Records are written in small groups and
 * fsync'd, so a re-run after Ctrl-C, kill -9, a crash or an outage skips what is done and re-sends
 * the rest with the same keys (the server's idempotency turns a re-send of a move that did land
 * into a replay, never a second move).
 */
import {closeSync, existsSync, fsyncSync, openSync, readFileSync, truncateSync, writeSync} from 'node:fs'
import {UsageError} from '../errors.js'

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
  at: string
}

export interface DoneRecord {
  type: 'done'
  line: number
  key: string
  move_id: string
  status: string
  http_status: number
  replayed: boolean
  warning?: string
  at: string
}

export interface FailedRecord {
  type: 'failed'
  line: number
  key: string
  status?: number
  error_code?: string
  message: string
  at: string
}

export interface FinishedRecord {
  type: 'finished'
  file_sha256: string
  at: string
}

export type JournalRecord = BatchRecord | SentRecord | DoneRecord | FailedRecord | FinishedRecord

export interface JournalState {
  batch?: BatchRecord
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
  const state: JournalState = {done: new Map(), failed: new Map(), sent: new Set(), tornTail: false}
  if (!existsSync(path)) return state
  const lines = readFileSync(path, 'utf8').split('\n')
  lines.forEach((text, i) => {
    if (!text.trim()) return
    let rec: JournalRecord
    try {
      rec = JSON.parse(text) as JournalRecord
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
      case 'sent':
        state.sent.add(rec.key)
        break
      case 'done':
        state.done.set(rec.key, rec)
        state.failed.delete(rec.key)
        break
      case 'failed':
        if (!state.done.has(rec.key)) state.failed.set(rec.key, rec)
        break
      case 'finished':
        state.finished = rec
        break
    }
  })
  return state
}

/** Appends records, flushing (write + fsync) every `flushMs` or `maxPending` records, and on close. */
export class JournalWriter {
  private fd: number
  private pending: string[] = []
  private timer?: NodeJS.Timeout

  constructor(
    readonly path: string,
    private readonly flushMs = 50,
    private readonly maxPending = 256,
  ) {
    // A crash can leave a torn last line: cut it off so that every line stays a whole record
    // (the row it described is simply re-sent with its key, which the server replays).
    if (existsSync(path)) {
      const text = readFileSync(path)
      if (text.length > 0 && text[text.length - 1] !== 0x0a) truncateSync(path, text.lastIndexOf(0x0a) + 1)
    }
    this.fd = openSync(path, 'a', 0o600)
  }

  append(rec: JournalRecord, urgent = false): void {
    this.pending.push(JSON.stringify(rec) + '\n')
    if (urgent || this.pending.length >= this.maxPending) this.flush()
    else this.timer ??= setTimeout(() => this.flush(), this.flushMs)
  }

  flush(): void {
    if (this.timer) clearTimeout(this.timer)
    this.timer = undefined
    if (this.pending.length === 0 || this.fd < 0) return
    const chunk = this.pending.join('')
    this.pending = []
    writeSync(this.fd, chunk)
    fsyncSync(this.fd)
  }

  close(): void {
    this.flush()
    if (this.fd >= 0) closeSync(this.fd)
    this.fd = -1
  }
}
