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
import {closeSync, constants, existsSync, fstatSync, lstatSync, mkdirSync, openSync, readFileSync, readSync} from 'node:fs'
import {open, rename} from 'node:fs/promises'
import {join} from 'node:path'
import {AuditTrailError, UsageError} from '../errors.js'
import {lockExclusive} from '../lock.js'

export {AuditTrailError}


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
  /** The id of the key that sent it (keyIdOf: a hash, never the key); absent in older records. */
  key_id?: string | null
  /** Who sent it: the profile's operator name, the OS user and the host (absent in older records). */
  operator?: string | null
  os_user?: string
  host?: string
  /** An approval through `approvals review`: who created what was approved, as the request file says. */
  maker?: string | null
  method: string
  path: string
  idempotency_key?: string | null
  /** A digest of what the request asked (movementDetails), to tell a key reused for another movement. */
  details?: string | null
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
  /** An account transfer's send day (YYYY-MM-DD, the schedule time zone), when it is scheduled. */
  scheduled_date?: string | null
  attempts?: number
}

export interface AuditRecord extends AuditFields {
  seq: number
  time: string
  pid: number
  prev: string
  hash: string
}

/**
 * Open flags that never follow a symbolic link at the file's own name (O_NOFOLLOW): a link
 * planted at `audit.jsonl`, `audit.head` or the head's temporary file fails to open (ELOOP), so
 * nothing is read from or written to its target.
 */
const NOFOLLOW = constants.O_NOFOLLOW ?? 0
const FLAGS = {
  read: constants.O_RDONLY | NOFOLLOW,
  update: constants.O_RDWR | NOFOLLOW,
  append: constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | NOFOLLOW,
  replace: constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | NOFOLLOW,
}

/** The error for a file of the trail that is a symbolic link (exit 2; its target untouched). */
function linkError(file: string): UsageError {
  return new UsageError(`${file} is a symbolic link; payops does not read or write the audit trail through one (its target was not touched). Replace it with the file itself.`)
}

/** ELOOP (the name is a symbolic link) as {@link linkError}; other errors as they are. */
function noLink(err: unknown, file: string): unknown {
  if ((err as NodeJS.ErrnoException).code === 'ELOOP') return linkError(file)
  // A platform without O_NOFOLLOW: the name is looked at instead.
  if (!NOFOLLOW && isLink(file)) return linkError(file)
  return err
}

function isLink(file: string): boolean {
  try {
    return lstatSync(file).isSymbolicLink()
  } catch {
    return false
  }
}

/** openSync for reading, never through a symbolic link. */
function openForRead(file: string): number {
  if (!NOFOLLOW && isLink(file)) throw linkError(file)
  try {
    return openSync(file, FLAGS.read)
  } catch (err) {
    throw noLink(err, file)
  }
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

/** What `audit.head` holds: the sequence number and hash of the last record written. */
export interface AuditHead {
  seq: number
  hash: string
}

/** `audit.head` as found on disk: absent, unreadable, or a head. */
export type HeadState = {state: 'absent'} | {state: 'garbled'; detail: string} | {state: 'ok'; head: AuditHead}

const HEX64 = /^[0-9a-f]{64}$/

/** Reads `audit.head`, telling an absent head from a garbled one; throws a UsageError when it is a symbolic link. */
export function readAuditHead(dir: string): HeadState {
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
    // A link planted at the head: refused (exit 2), never read or written through.
    if (err instanceof UsageError) throw err
    return {state: 'garbled', detail: `cannot be read: ${(err as Error).message}`}
  }
  let h: unknown
  try {
    h = JSON.parse(text)
  } catch {
    return {state: 'garbled', detail: text.trim() ? 'is not valid JSON' : 'is empty'}
  }
  const {seq, hash} = (h ?? {}) as Partial<AuditHead>
  if (typeof seq !== 'number' || !Number.isSafeInteger(seq) || seq < 0) return {state: 'garbled', detail: 'has no valid "seq"'}
  if (typeof hash !== 'string' || !HEX64.test(hash)) return {state: 'garbled', detail: 'has no valid "hash" (64 lower-case hex digits)'}
  if (seq === 0 && hash !== GENESIS) return {state: 'garbled', detail: 'names record 0 with a hash other than the genesis hash'}
  return {state: 'ok', head: {seq, hash}}
}

/** The head's size on disk: its JSON padded with spaces, so that every head overwrites the last one whole. */
const HEAD_BYTES = 128

/**
 * Writes `audit.head`. A head written by this version is overwritten in place: one write of
 * {@link HEAD_BYTES} bytes at offset 0 (within one disk sector, so a crash leaves the old head or
 * the new one) and an fdatasync, which costs far less than creating and renaming a file. Any other
 * head (absent, or written by an older version) is replaced atomically: a temporary file, fsync'd,
 * renamed over it.
 */
async function writeHead(dir: string, head: AuditHead): Promise<void> {
  const file = join(dir, AUDIT_HEAD)
  const text = JSON.stringify(head).padEnd(HEAD_BYTES - 1, ' ') + '\n'
  try {
    const fh = await open(file, FLAGS.update).catch((err: unknown) => {
      throw noLink(err, file)
    })
    try {
      if ((await fh.stat()).size === HEAD_BYTES) {
        await fh.write(text, 0, 'utf8')
        await fh.datasync()
        return
      }
    } finally {
      await fh.close()
    }
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err
  }
  const tmp = join(dir, `${AUDIT_HEAD}.tmp`)
  await appendDurably(tmp, text, 'w')
  await rename(tmp, file)
}

/**
 * Writes `text` and fsyncs it without blocking the event loop (the fsync runs on libuv's thread
 * pool): answers to requests in flight are read meanwhile, and the records they bring join the
 * next group. A write that fails part way (the disk full) is cut off again: the file is truncated
 * to the size it had and synced, so the log still ends on its last whole record and the next
 * writer continues the chain.
 */
async function appendDurably(file: string, text: string, flags: 'a' | 'w'): Promise<void> {
  if (!NOFOLLOW && isLink(file)) throw linkError(file)
  const fh = await open(file, flags === 'a' ? FLAGS.append : FLAGS.replace, 0o600).catch((err: unknown) => {
    throw noLink(err, file)
  })
  try {
    const size = flags === 'a' ? (await fh.stat()).size : 0
    try {
      await fh.writeFile(text)
      await fh.sync()
    } catch (err) {
      await fh
        .truncate(size)
        .then(() => fh.sync())
        .catch(() => undefined)
      throw err
    }
  } finally {
    await fh.close()
  }
}

/** The log's last line: none (absent or empty file), not a valid record, or a record. */
type Tail = {state: 'empty'} | {state: 'bad'} | {state: 'ok'; rec: AuditRecord}

/** Reads the last record of the log from the file's tail (records are small) and checks its own hash. */
function readTail(file: string): Tail {
  if (!existsSync(file) && !isLink(file)) return {state: 'empty'}
  const fd = openForRead(file)
  try {
    if (fstatSync(fd).size === 0) return {state: 'empty'}
    const line = linesFromEnd(fd).next().value
    if (line === undefined) return {state: 'bad'}
    try {
      const rec = JSON.parse(line) as AuditRecord
      const {hash, ...rest} = rec
      if (typeof rec.seq !== 'number' || recordHash(rest) !== hash) return {state: 'bad'}
      return {state: 'ok', rec}
    } catch {
      return {state: 'bad'}
    }
  } finally {
    closeSync(fd)
  }
}

/**
 * The log's lines that are not blank, from its end backwards, read `chunk` bytes at a time: the
 * tail and the record a head names are found without reading a long log whole.
 */
function* linesFromEnd(fd: number, chunk = 1 << 20): Generator<string> {
  // The end of a line cut at the start of the piece read last, to be read with the piece before it.
  let carry = Buffer.alloc(0)
  for (let end = fstatSync(fd).size; end > 0; ) {
    const start = Math.max(0, end - chunk)
    const piece = Buffer.alloc(end - start)
    readSync(fd, piece, 0, piece.length, start)
    const data = carry.length ? Buffer.concat([piece, carry]) : piece
    const first = start === 0 ? 0 : data.indexOf(0x0a) + 1
    end = start
    if (start > 0 && first === 0) {
      carry = data
      continue
    }
    const lines = data.toString('utf8', first).split('\n')
    for (let i = lines.length - 1; i >= 0; i--) if (lines[i].trim()) yield lines[i]
    carry = data.subarray(0, first)
  }
}

/**
 * The hash of the record numbered `seq` in the log, if there is one. A head behind the log is
 * behind by the group its writer was writing when it stopped, so the log is read from its end
 * backwards and the search ends at the first record numbered below `seq`: the log is never read
 * whole (after a large import killed between its log and its head, that was hundreds of
 * megabytes).
 */
export function hashOfRecord(file: string, seq: number, chunk = 1 << 20): string | undefined {
  const fd = openForRead(file)
  try {
    for (const line of linesFromEnd(fd, chunk)) {
      let rec: AuditRecord
      try {
        rec = JSON.parse(line) as AuditRecord
      } catch {
        continue
      }
      if (rec.seq === seq) return rec.hash
      if (typeof rec.seq === 'number' && rec.seq < seq) return undefined
    }
    return undefined
  } finally {
    closeSync(fd)
  }
}

/**
 * Where the chain continues from, checked against the head: the log's last record must be the
 * record the head names. A head behind the log is accepted when the log holds the record it names
 * (a write interrupted between the log and the head); anything else means records were cut off the
 * end, the head was deleted or changed, or the log was replaced, and the trail is refused.
 */
function checkTail(dir: string, file: string): {ok: true; seq: number; prev: string; fresh: boolean} | {ok: false; problem: string} {
  const head = readAuditHead(dir)
  const tail = readTail(file)
  if (tail.state === 'bad') return {ok: false, problem: `has a broken last line (the last line of ${AUDIT_FILE} is not a valid record)`}
  if (head.state === 'garbled') return {ok: false, problem: `has a garbled head (${AUDIT_HEAD} ${head.detail})`}
  if (head.state === 'absent') {
    if (tail.state === 'empty') return {ok: true, seq: 0, prev: GENESIS, fresh: true}
    return {ok: false, problem: `lost its head (${AUDIT_FILE} ends at record ${tail.rec.seq} but ${AUDIT_HEAD} is missing: deleted, or left by an older payops)`}
  }
  const h = head.head
  if (tail.state === 'empty') {
    if (h.seq === 0) return {ok: true, seq: 0, prev: GENESIS, fresh: false}
    return {ok: false, problem: `lost its log (${AUDIT_FILE} is missing or empty but ${AUDIT_HEAD} names record ${h.seq})`}
  }
  const last = tail.rec
  if (last.seq === h.seq && last.hash === h.hash) return {ok: true, seq: last.seq, prev: last.hash, fresh: false}
  if (last.seq < h.seq) return {ok: false, problem: `was cut or its head changed (${AUDIT_FILE} ends at record ${last.seq}, ${AUDIT_HEAD} names record ${h.seq})`}
  if (last.seq > h.seq && (h.seq === 0 ? GENESIS : hashOfRecord(file, h.seq)) === h.hash) return {ok: true, seq: last.seq, prev: last.hash, fresh: false}
  return {ok: false, problem: `was cut or its head changed (record ${h.seq} of ${AUDIT_FILE} is not the record ${AUDIT_HEAD} names)`}
}

/** Thrown by a writer that finds the trail's end does not match its head. */
function trailError(dir: string, problem: string): AuditTrailError {
  return new AuditTrailError(`the audit trail in ${dir} ${problem}: run \`payops audit verify\`, then move ${AUDIT_FILE} and ${AUDIT_HEAD} aside to start a new trail`)
}

/**
 * A check made under the trail's lock, right before a record is written: it reads the trail as it
 * is then (every record on disk, and those of the same group before it) and throws to refuse the
 * record, which is then not written. Daily caps and maker-checker are decided so, together with the
 * intent they allow: two runs at once cannot both pass on a trail that shows neither.
 */
export type TrailCheck = (records: AuditRecord[]) => void

interface Queued {
  fields: AuditFields
  check?: TrailCheck
  resolve: () => void
  reject: (e: unknown) => void
  done?: boolean
}

export class AuditLog {
  readonly file: string
  private queue: Queued[] = []
  private flushing?: Promise<void>
  /** Where this writer left the log (see unchangedTail). */
  private last?: {seq: number; hash: string; ino: number; size: number; mtimeMs: number}

  constructor(readonly dir: string) {
    this.file = join(dir, AUDIT_FILE)
  }

  /**
   * Appends a record; resolves once it is on disk (grouped with others queued meanwhile). Rejects
   * with {@link AuditTrailError}, writing nothing, when the log's end does not match the head, and
   * with what `check` threw when it refuses the record (see {@link TrailCheck}).
   */
  append(fields: AuditFields, check?: TrailCheck): Promise<void> {
    return new Promise((resolve, reject) => {
      this.queue.push({fields, check, resolve, reject})
      if (!this.flushing) this.flushing = this.flushLoop()
    })
  }

  /** Resolves once every record appended so far is on disk and the lock of its group released. */
  async settled(): Promise<void> {
    while (this.flushing) await this.flushing
  }

  private async flushLoop(): Promise<void> {
    // Records appended while this turn of the event loop lasts (answers read together) join the
    // first group.
    await new Promise((r) => setImmediate(r))
    try {
      while (this.queue.length) {
        const batch = this.queue
        this.queue = []
        try {
          await this.write(batch)
        } catch (err) {
          for (const b of batch) if (!b.done) b.reject(err)
        }
      }
    } finally {
      this.flushing = undefined
    }
  }

  /**
   * The end of the chain as this writer left it, when the log is still the file it wrote (same
   * inode, size and modification time) and the head still names that end: the log's tail need not
   * be read and hashed again (a large import writes a group every few milliseconds).
   */
  private unchangedTail(): {ok: true; seq: number; prev: string; fresh: false} | undefined {
    const last = this.last
    if (!last) return undefined
    try {
      const st = lstatSync(this.file)
      if (!st.isFile() || st.ino !== last.ino || st.size !== last.size || st.mtimeMs !== last.mtimeMs) return undefined
    } catch {
      return undefined
    }
    const head = readAuditHead(this.dir)
    if (head.state !== 'ok' || head.head.seq !== last.seq || head.head.hash !== last.hash) return undefined
    return {ok: true, seq: last.seq, prev: last.hash, fresh: false}
  }

  /**
   * Appends a group under the lock: each record's check (if any) on the trail as it is, the records
   * it allows, fsync'd, then the head; then each written record's caller is told (the group and its
   * head are on disk) before the lock is released, so the callers do not wait for the release.
   */
  private async write(batch: Queued[]): Promise<void> {
    // The config dir exists once this writer has written to it.
    if (!this.last) mkdirSync(this.dir, {recursive: true, mode: 0o700})
    // The log need not exist yet: a refused write leaves no empty log behind.
    const release = await lockExclusive(this.file, {stale: 5_000, attempts: 400, waitMs: 25})
    try {
      // The chain continues from the log's last record, and only when that is the record the head names.
      const tail = this.unchangedTail() ?? checkTail(this.dir, this.file)
      if (!tail.ok) throw trailError(this.dir, tail.problem)
      let {prev, seq} = tail
      const lines: string[] = []
      const written: Queued[] = []
      const group: AuditRecord[] = []
      let onDisk: AuditRecord[] | undefined
      const time = new Date().toISOString()
      for (const entry of batch) {
        if (entry.check) {
          try {
            entry.check([...(onDisk ??= readRecords(this.file, true)), ...group])
          } catch (err) {
            entry.done = true
            entry.reject(err)
            continue
          }
        }
        const base = {...entry.fields, seq: seq + 1, time, pid: process.pid, prev}
        const hash = recordHash(base)
        const rec = {...base, hash}
        lines.push(JSON.stringify(rec))
        group.push(rec)
        written.push(entry)
        seq++
        prev = hash
      }
      if (!lines.length) return
      // A new trail gets its head first, so a crash during the first append leaves a head behind the log, not none.
      if (tail.fresh) await writeHead(this.dir, {seq: 0, hash: GENESIS})
      this.last = undefined
      await appendDurably(this.file, lines.join('\n') + '\n', 'a')
      await writeHead(this.dir, {seq, hash: prev})
      for (const entry of written) {
        entry.done = true
        entry.resolve()
      }
      const st = lstatSync(this.file)
      this.last = {seq, hash: prev, ino: st.ino, size: st.size, mtimeMs: st.mtimeMs}
    } finally {
      await release()
    }
  }
}

export interface VerifyResult {
  ok: boolean
  records: number
  /** 1-based line of the first problem (absent when the problem is the head itself or --expect-head). */
  line?: number
  reason?: string
  /** The whole one-line finding, naming the file and line or record. */
  message?: string
  /** The end of the verified trail (its last record's sequence number and hash): what to keep elsewhere as an anchor. */
  head?: AuditHead
  /**
   * Records dated earlier than a record before them (a clock set back while they were written): the
   * first ten, and how many in all. Daily caps read such a record by its place in the trail.
   */
  backwards?: {count: number; first: BackwardTime[]}
}

/** A record whose time is earlier than that of a record before it. */
export interface BackwardTime {
  line: number
  seq: number
  time: string
  /** The latest time of the records before it. */
  after: string
}

export interface VerifyOptions {
  /** Fail unless the trail's head hash starts with this (lower-case hex, at least 12 digits). */
  expectHead?: string
}

/**
 * Walks the chain and checks its end against `audit.head`; names the first line that was edited,
 * removed, reordered or cut off, a deleted or garbled head, or a deleted log. With `expectHead`,
 * also fails unless the head is the one kept elsewhere: the only check that catches a chain
 * recomputed wholesale by someone who can write to the config dir.
 */
export function verifyAudit(dir: string, opts: VerifyOptions = {}): VerifyResult {
  const file = join(dir, AUDIT_FILE)
  const headFile = join(dir, AUDIT_HEAD)
  const fail = (records: number, line: number | undefined, reason: string, message?: string): VerifyResult => ({
    ok: false,
    records,
    ...(line === undefined ? {} : {line}),
    reason,
    message: message ?? `${file}: line ${line} ${reason}.`,
  })
  // The head first: a writer appends to the log before it moves the head, so a head read before
  // the log never names a record the log does not hold yet.
  const headState = readAuditHead(dir)
  const logExists = existsSync(file) || isLink(file)
  let prev = GENESIS
  let seq = 0
  const hashes: string[] = [GENESIS]
  const backwards: {count: number; first: BackwardTime[]} = {count: 0, first: []}
  let latest = {ms: -Infinity, time: ''}
  let i = 0
  for (const line of logExists ? linesOf(file) : []) {
    const n = ++i
    let rec: AuditRecord
    try {
      rec = JSON.parse(line) as AuditRecord
    } catch {
      return fail(i - 1, n, 'is not a valid record (edited or truncated)')
    }
    const {hash, ...rest} = rec
    if (recordHash(rest) !== hash) return fail(i - 1, n, 'was edited (its hash does not match its content)')
    if (rec.prev !== prev) {
      return fail(i - 1, n, rec.seq > seq + 1 ? 'follows a removed record (the chain skips)' : 'is out of order (reordered or removed records before it)')
    }
    if (rec.seq !== seq + 1) return fail(i - 1, n, `has sequence ${rec.seq}, expected ${seq + 1} (reordered or removed records)`)
    prev = hash
    seq = rec.seq
    hashes.push(hash)
    const ms = Date.parse(rec.time)
    if (ms < latest.ms) {
      if (++backwards.count <= 10) backwards.first.push({line: n, seq: rec.seq, time: rec.time, after: latest.time})
    } else if (Number.isFinite(ms)) latest = {ms, time: rec.time}
  }
  const n = i
  if (headState.state === 'garbled') {
    const reason = `${AUDIT_HEAD} ${headState.detail}`
    return fail(seq, undefined, reason, `${headFile} ${headState.detail}: the head was garbled, so the end of the log (record ${seq}, line ${n}) cannot be checked.`)
  }
  if (headState.state === 'absent') {
    if (seq > 0) return fail(seq, n, `(record ${seq}) ends the log but ${AUDIT_HEAD} is missing (the head was deleted, or the log was written without one)`)
  } else {
    const h = headState.head
    if (h.seq > seq) {
      const reason = logExists
        ? `is missing: the log ends at record ${seq} but ${AUDIT_HEAD} names record ${h.seq} (records removed from the end)`
        : `is missing: there is no ${AUDIT_FILE} but ${AUDIT_HEAD} names record ${h.seq} (the log was deleted)`
      return fail(seq, n + 1, reason)
    }
    // h.seq <= seq: the head names a record the log holds (the last one, or an earlier one when a write was interrupted).
    if (hashes[h.seq] !== h.hash) {
      return fail(seq, h.seq, `(record ${h.seq}) does not match ${AUDIT_HEAD} (the record was replaced, or the head was changed)`)
    }
  }
  const head = {seq, hash: prev}
  if (opts.expectHead !== undefined) {
    const want = opts.expectHead.toLowerCase()
    if (!head.hash.startsWith(want)) {
      const at = hashes.findIndex((x) => x.startsWith(want))
      const where =
        at > 0 && at < seq
          ? `it is record ${at}, ${seq - at} record${seq - at === 1 ? '' : 's'} before the head: the trail has grown since it was taken`
          : 'no record of the log has it: the trail was rewritten, or it is another trail'
      const reason = `the head is record ${seq} with hash ${head.hash}, not --expect-head ${want} (${where})`
      return {...fail(seq, undefined, reason, `${file}: ${reason}.`), head}
    }
  }
  return {ok: true, records: n, head, ...(backwards.count ? {backwards} : {})}
}

/** Every record of the log in the config dir `dir` (lines that are not JSON are skipped). */
export function readAudit(dir: string): AuditRecord[] {
  return readRecords(join(dir, AUDIT_FILE))
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

/**
 * What was last read of each log: its identity, how far it was read (the end of its last whole
 * line), that line and the records up to it. The trail read again under its lock, right before an
 * intent is written (a moment after the command read it whole), parses only what was appended
 * since, when the file is the same one and still holds that line where it ended; every other read
 * is whole.
 */
const lastRead = new Map<string, {dev: number; ino: number; bytes: number; lastLine: string; records: AuditRecord[]}>()

/** The text of the `length` bytes before `end`. */
function bytesBefore(fd: number, end: number, length: number): string {
  const buf = Buffer.alloc(Math.min(length, end))
  readSync(fd, buf, 0, buf.length, end - buf.length)
  return buf.toString('utf8')
}

/** The lines from byte `start` on, each with the offset after its line end (none for a last line without one). */
function* linesAt(fd: number, start: number): Generator<{line: string; end?: number}> {
  const buf = Buffer.alloc(8 << 20)
  let rest = Buffer.alloc(0)
  let pos = start
  for (;;) {
    const got = readSync(fd, buf, 0, buf.length, pos)
    if (got === 0) break
    const chunk = rest.length ? Buffer.concat([rest, buf.subarray(0, got)]) : buf.subarray(0, got)
    const base = pos - rest.length
    pos += got
    let from = 0
    for (let nl = chunk.indexOf(0x0a); nl !== -1; nl = chunk.indexOf(0x0a, from)) {
      yield {line: chunk.toString('utf8', from, nl), end: base + nl + 1}
      from = nl + 1
    }
    rest = Buffer.from(chunk.subarray(from))
  }
  if (rest.length) yield {line: rest.toString('utf8')}
}

const parsed = (line: string): AuditRecord | undefined => {
  if (!line.trim()) return undefined
  try {
    return JSON.parse(line) as AuditRecord
  } catch {
    return undefined
  }
}

function readRecords(file: string, appendedOnly = false): AuditRecord[] {
  if (!existsSync(file) && !isLink(file)) return []
  const fd = openForRead(file)
  try {
    const st = fstatSync(fd)
    const known = appendedOnly ? lastRead.get(file) : undefined
    const same = known && known.dev === st.dev && known.ino === st.ino && st.size >= known.bytes && bytesBefore(fd, known.bytes, Buffer.byteLength(known.lastLine) + 1) === `${known.lastLine}\n`
    const records = same ? [...known.records] : []
    let bytes = same ? known.bytes : 0
    let lastLine = same ? known.lastLine : ''
    let unended: AuditRecord | undefined
    for (const {line, end} of linesAt(fd, bytes)) {
      const rec = parsed(line)
      // A last line without its line end (a write under way) is read, not kept as read.
      if (end === undefined) {
        unended = rec
        continue
      }
      if (rec) records.push(rec)
      bytes = end
      lastLine = line
    }
    lastRead.set(file, {dev: st.dev, ino: st.ino, bytes, lastLine, records: [...records]})
    return unended ? [...records, unended] : records
  } finally {
    closeSync(fd)
  }
}
