/**
 * The audit trail: every mutating request is recorded as an `intent` before it is sent and an
 * `outcome` after, in `audit.jsonl` in the config dir. Each record carries the SHA-256 of the
 * previous record (`prev`) and its own (`hash`, over `prev` and its content), so an edited, removed
 * or reordered line breaks the chain at that line; `audit.head` keeps the last sequence number and
 * hash so that cutting lines off the end is detected too.
 *
 * Appends are serialised across processes with a lock (proper-lockfile) and grouped within a
 * process (one lock, one write and one fsync for all records queued meanwhile), then fsync'd.
 * Nothing secret is ever written: only the fields listed in {@link AuditFields}.
 */
import {createHash} from 'node:crypto'
import {closeSync, existsSync, fstatSync, fsyncSync, mkdirSync, openSync, readFileSync, readSync, writeFileSync, writeSync} from 'node:fs'
import {join} from 'node:path'

/** proper-lockfile is CommonJS: bundled, its exports may arrive as the default export. */
export const loadLockfile = () => import('proper-lockfile').then((m) => ((m as {lock?: unknown}).lock ? m : (m as unknown as {default: typeof m}).default))

export const AUDIT_FILE = 'audit.jsonl'
export const AUDIT_HEAD = 'audit.head'
export const GENESIS = '0'.repeat(64)

/** What an audit record may hold: never a key, secret or token. */
export interface AuditFields {
  kind: 'intent' | 'outcome'
  /** Ties an outcome to its intent. */
  op: string
  profile: string | null
  mode: 'live' | 'test' | 'unknown'
  method: string
  path: string
  idempotency_key?: string | null
  request_id?: string | null
  status?: number | null
  resource_id?: string | null
  error_code?: string | null
  /** The resource's status in the answer (movements). */
  resource_status?: string | null
  /** `created`, `replayed`, `advanced` or `conflict` (movements). */
  outcome?: string | null
  amount_in_minor_units?: number | null
  currency_code?: string | null
  from?: string | null
  to?: string | null
  attempts?: number
}

export interface AuditRecord extends AuditFields {
  seq: number
  time: string
  pid: number
  prev: string
  hash: string
}

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex')

/** The record's own hash: over everything but `hash`, in a fixed key order. */
export function recordHash(rec: Omit<AuditRecord, 'hash'>): string {
  const {prev, ...rest} = rec
  const ordered = Object.keys(rest)
    .sort()
    .map((k) => [k, (rest as Record<string, unknown>)[k]])
  return sha256(`${prev}\n${JSON.stringify(ordered)}`)
}

interface Head {
  seq: number
  hash: string
}

function readHead(dir: string): Head {
  const file = join(dir, AUDIT_HEAD)
  if (!existsSync(file)) return {seq: 0, hash: GENESIS}
  try {
    const h = JSON.parse(readFileSync(file, 'utf8')) as Head
    if (typeof h.seq === 'number' && typeof h.hash === 'string') return h
  } catch {
    // fall through: recovered from the log itself below
  }
  return {seq: -1, hash: ''}
}

/** The last record of the log, read from the file's tail (records are small). */
function lastRecord(file: string): AuditRecord | undefined {
  if (!existsSync(file)) return undefined
  const fd = openSync(file, 'r')
  try {
    const size = fstatSync(fd).size
    if (size === 0) return undefined
    const len = Math.min(size, 64 * 1024)
    const buf = Buffer.alloc(len)
    readSync(fd, buf, 0, len, size - len)
    const end = buf.toString('utf8').trimEnd()
    const line = end.slice(end.lastIndexOf('\n') + 1)
    try {
      return JSON.parse(line) as AuditRecord
    } catch {
      return undefined
    }
  } finally {
    closeSync(fd)
  }
}

export class AuditLog {
  readonly file: string
  private queue: Array<{fields: AuditFields; resolve: () => void; reject: (e: unknown) => void}> = []
  private flushing?: Promise<void>

  constructor(readonly dir: string) {
    this.file = join(dir, AUDIT_FILE)
  }

  /** Appends a record; resolves once it is on disk (grouped with others queued meanwhile). */
  append(fields: AuditFields): Promise<void> {
    return new Promise((resolve, reject) => {
      this.queue.push({fields, resolve, reject})
      if (!this.flushing) this.flushing = this.flushLoop()
    })
  }

  private async flushLoop(): Promise<void> {
    try {
      while (this.queue.length) {
        const batch = this.queue
        this.queue = []
        try {
          await this.write(batch.map((b) => b.fields))
          for (const b of batch) b.resolve()
        } catch (err) {
          for (const b of batch) b.reject(err)
        }
      }
    } finally {
      this.flushing = undefined
    }
  }

  private async write(batch: AuditFields[]): Promise<void> {
    mkdirSync(this.dir, {recursive: true, mode: 0o700})
    if (!existsSync(this.file)) writeFileSync(this.file, '', {mode: 0o600, flag: 'a'})
    const lockfile = await loadLockfile()
    const release = await lockfile.lock(this.file, {
      stale: 10_000,
      realpath: false,
      retries: {retries: 100, factor: 1.2, minTimeout: 5, maxTimeout: 100, randomize: true},
      onCompromised: () => undefined,
    })
    try {
      // The chain continues from the log's own last record; the head only guards its end.
      const last = lastRecord(this.file)
      let prev = last?.hash ?? GENESIS
      let seq = last?.seq ?? 0
      const lines: string[] = []
      const time = new Date().toISOString()
      for (const fields of batch) {
        const base = {...fields, seq: ++seq, time, pid: process.pid, prev}
        const hash = recordHash(base)
        lines.push(JSON.stringify({...base, hash}))
        prev = hash
      }
      const fd = openSync(this.file, 'a', 0o600)
      try {
        writeSync(fd, lines.join('\n') + '\n')
        fsyncSync(fd)
      } finally {
        closeSync(fd)
      }
      writeFileSync(join(this.dir, AUDIT_HEAD), JSON.stringify({seq, hash: prev}) + '\n', {mode: 0o600})
    } finally {
      await release()
    }
  }
}

export interface VerifyResult {
  ok: boolean
  records: number
  /** 1-based line of the first problem. */
  line?: number
  reason?: string
}

/** Walks the chain; names the first line that was edited, removed, reordered or cut off. */
export function verifyAudit(dir: string): VerifyResult {
  const file = join(dir, AUDIT_FILE)
  if (!existsSync(file)) return {ok: true, records: 0}
  const lines = readFileSync(file, 'utf8').split('\n')
  if (lines[lines.length - 1] === '') lines.pop()
  let prev = GENESIS
  let seq = 0
  for (let i = 0; i < lines.length; i++) {
    const n = i + 1
    let rec: AuditRecord
    try {
      rec = JSON.parse(lines[i]) as AuditRecord
    } catch {
      return {ok: false, records: i, line: n, reason: 'is not a valid record (edited or truncated)'}
    }
    const {hash, ...rest} = rec
    if (recordHash(rest) !== hash) return {ok: false, records: i, line: n, reason: 'was edited (its hash does not match its content)'}
    if (rec.prev !== prev) {
      return {ok: false, records: i, line: n, reason: rec.seq > seq + 1 ? 'follows a removed record (the chain skips)' : 'is out of order (reordered or removed records before it)'}
    }
    if (rec.seq !== seq + 1) return {ok: false, records: i, line: n, reason: `has sequence ${rec.seq}, expected ${seq + 1} (reordered or removed records)`}
    prev = hash
    seq = rec.seq
  }
  const head = readHead(dir)
  if (head.seq > seq) return {ok: false, records: seq, line: lines.length + 1, reason: `is missing: the log ends at record ${seq} but ${head.seq} were written (records removed from the end)`}
  if (head.seq === seq && head.hash !== prev && seq > 0) return {ok: false, records: seq, line: lines.length, reason: 'does not match the recorded head of the log (replaced)'}
  return {ok: true, records: lines.length}
}

export function readAudit(dir: string): AuditRecord[] {
  const file = join(dir, AUDIT_FILE)
  if (!existsSync(file)) return []
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .flatMap((l) => {
      try {
        return [JSON.parse(l) as AuditRecord]
      } catch {
        return []
      }
    })
}
