/**
 * The import journal: an append-only JSON-lines file beside the CSV that records the batch, each
 * row's Idempotency-Key when it is sent, and each outcome. Records are written in small groups and
 * fsync'd, so a re-run after Ctrl-C, kill -9, a crash or an outage skips what is done and re-sends
 * the rest with the same keys (the server's idempotency turns a re-send of a move that did land
 * into a replay, never a second move).
 */
import {closeSync, existsSync, fsyncSync, openSync, readFileSync, truncateSync, writeSync} from 'node:fs'
import {UsageError} from '../errors.js'
import {contentHash, deriveKey, type ImportRow, type RowError} from './csv.js'

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
  at: string
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

/** A 4xx answer after which the API holds nothing under the key (408, 409 and 429 are not). */
function isDefinitiveRefusal(status: number | undefined): boolean {
  return status !== undefined && status >= 400 && status < 500 && ![408, 409, 429].includes(status)
}

export type MatchedRow = ImportRow & {key: string; prior?: JournalEntry}

export interface MatchResult {
  /** Every row of the file, in file order, with its key (a journaled row keeps the key it was sent with). */
  rows: MatchedRow[]
  /** Rows already sent whose content changed: the import must stop. */
  changed: RowError[]
  /** Journaled rows that may have made a move and are no longer in the file. */
  missing: JournalEntry[]
}

/**
 * Matches the rows of a file to the rows its journal has sent, so that a row keeps its key
 * whatever was appended, inserted or reordered around it.
 *
 * - A row with an `idempotency_key` cell matches the journal entry of that key. If that key was
 *   sent (and may have made a move) with other content, the row has changed.
 * - Other rows match journal entries of the same content (from, to, amount, currency,
 *   auto_approve, metadata): first an entry sent from the same line, then the rest in line order.
 * - Rows left over are new: each gets the derived key of the smallest occurrence number the
 *   journal does not hold yet (on a first run: 1, 2, 3 for identical rows in file order).
 * - A journal entry left over that may have made a move has CHANGED when its line now holds a new
 *   row: the content it was sent with is nowhere in the file, and its line reads something else
 *   that was never sent. Otherwise (its line is gone, or holds a row matched elsewhere) it was
 *   removed from the file: reported, not an error. An entry the API refused outright (a 4xx
 *   other than 408, 409, 429) made no move, so a row fixed after such a failure is simply new.
 *
 * Journals written before content hashes were recorded: an entry's content is recovered when a
 * row of the file derives its key (the same content and occurrence as when it was sent); an
 * entry that no row derives is treated as above, with unknown content.
 */
export function matchRows(rows: ImportRow[], state: JournalState, batchId: string): MatchResult {
  const hash = new Map<ImportRow, string>(rows.map((r) => [r, contentHash(r.fingerprint)]))
  const entries = [...state.entries.values()].map((e) => ({...e}))
  // Old journals: recover the content of derived keys from the rows that derive them.
  if (entries.some((e) => !e.fp)) {
    const counts = new Map<string, number>()
    for (const r of rows) if (!r.idempotency_key) counts.set(r.fingerprint, (counts.get(r.fingerprint) ?? 0) + 1)
    const byKey = new Map<string, string>()
    for (const [fingerprint, c] of counts) for (let n = 1; n <= c; n++) byKey.set(deriveKey(batchId, fingerprint, n), contentHash(fingerprint))
    for (const r of rows) if (r.idempotency_key) byKey.set(r.idempotency_key, hash.get(r)!)
    for (const e of entries) e.fp ??= byKey.get(e.key)
  }
  const byKey = new Map(entries.map((e) => [e.key, e]))
  const used = new Set<JournalEntry>()
  const prior = new Map<ImportRow, JournalEntry>()
  const changed = new Map<number, string>()

  for (const r of rows) {
    if (!r.idempotency_key) continue
    const e = byKey.get(r.idempotency_key)
    if (!e) continue
    used.add(e)
    if (e.landed && e.fp && e.fp !== hash.get(r)) {
      changed.set(r.line, `idempotency_key "${r.idempotency_key}" was sent${e.line === r.line ? '' : ` from line ${e.line}`} with other content`)
    } else prior.set(r, e)
  }
  const explicit = new Set(rows.flatMap((r) => (r.idempotency_key ? [r.idempotency_key] : [])))
  const pool = new Map<string, JournalEntry[]>()
  for (const e of entries) {
    if (used.has(e) || !e.fp || explicit.has(e.key)) continue
    const list = pool.get(e.fp) ?? []
    list.push(e)
    pool.set(e.fp, list)
  }
  for (const list of pool.values()) list.sort((x, y) => x.line - y.line)
  const derived = rows.filter((r) => !r.idempotency_key)
  // Same content, same line first; then the rest of each content in line order.
  for (const r of derived) {
    const list = pool.get(hash.get(r)!)
    const i = list?.findIndex((e) => e.line === r.line) ?? -1
    if (i >= 0) prior.set(r, list!.splice(i, 1)[0])
  }
  for (const r of derived) {
    if (prior.has(r)) continue
    const e = pool.get(hash.get(r)!)?.shift()
    if (e) prior.set(r, e)
  }
  for (const r of prior.keys()) used.add(prior.get(r)!)

  const taken = new Set([...entries.map((e) => e.key), ...explicit])
  const nextN = new Map<string, number>()
  const out: MatchedRow[] = rows.map((r) => {
    const e = prior.get(r)
    if (e) return {...r, key: e.key, prior: e}
    if (r.idempotency_key) return {...r, key: r.idempotency_key}
    let n = nextN.get(r.fingerprint) ?? 1
    while (taken.has(deriveKey(batchId, r.fingerprint, n))) n++
    const key = deriveKey(batchId, r.fingerprint, n)
    taken.add(key)
    nextN.set(r.fingerprint, n + 1)
    return {...r, key}
  })

  const rowAt = new Map(out.map((r) => [r.line, r]))
  const missing: JournalEntry[] = []
  for (const e of entries) {
    if (used.has(e) || !e.landed) continue
    const now = rowAt.get(e.line)
    if (now && !now.prior && !changed.has(e.line)) {
      changed.set(e.line, e.fp ? 'differs from the row sent from this line, and that row is no longer in the file' : 'the journal (written by an older payops) records a row sent from this line that the file no longer holds')
    } else if (!now || now.prior) missing.push(e)
  }
  return {
    rows: out,
    changed: [...changed].map(([line, message]) => ({line, message})).sort((a, b) => a.line - b.line),
    missing: missing.sort((a, b) => a.line - b.line),
  }
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
