/**
 * Walking a chain of audit records: every record's hash and link, its sequence number, its end
 * checked against a head, and (with `expectHead`) against a hash kept elsewhere. One walk serves
 * the store's own chain (`audit verify`), an exported file (`audit verify FILE`) and the old
 * JSON-lines trail before it is imported.
 */
import {GENESIS, recordHash, type AuditHead, type AuditRecord} from './records.js'

export interface VerifyResult {
  ok: boolean
  records: number
  /** 1-based line (a file) or record number (the store) of the first problem, when there is one to name. */
  line?: number
  reason?: string
  /** The whole one-line finding, naming the file or store and the line or record. */
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

/** Where a chain ends as its keeper says: no head (a new trail), a head, or one that cannot be read. */
export type HeadState = {state: 'absent'} | {state: 'garbled'; detail: string} | {state: 'ok'; head: AuditHead}

/** A chain's records in order, each as the text it was stored as, with the number to name it by. */
export interface ChainSource {
  /** What the chain is (a file's path, the store's). */
  label: string
  /** `line` (a file) or `record` (the store). */
  unit: 'line' | 'record'
  items: Iterable<{n: number; text: string}>
  /** The head, asked for once the items are read (a keeper that moves its head after its records reads it before them). */
  head: () => HeadState
  /** What keeps the head, to name it (`audit.head`, `the store's head`, `the head line`). */
  headName: string
}

/** The state of a walk: where the chain has got to. */
interface Walk {
  prev: string
  seq: number
  hashes: string[]
  backwards: {count: number; first: BackwardTime[]}
  latest: {ms: number; time: string}
}

/** The problem with the next record, or undefined when it continues the chain (the walk moves on). */
function step(w: Walk, text: string, n: number): string | undefined {
  let rec: AuditRecord
  try {
    rec = JSON.parse(text) as AuditRecord
  } catch {
    return 'is not a valid record (edited or truncated)'
  }
  if (!rec || typeof rec !== 'object') return 'is not a valid record (edited or truncated)'
  const {hash, ...rest} = rec
  if (recordHash(rest) !== hash) return 'was edited (its hash does not match its content)'
  if (rec.prev !== w.prev) return rec.seq > w.seq + 1 ? 'follows a removed record (the chain skips)' : 'is out of order (reordered or removed records before it)'
  if (rec.seq !== w.seq + 1) return `has sequence ${rec.seq}, expected ${w.seq + 1} (reordered or removed records)`
  w.prev = hash
  w.seq = rec.seq
  w.hashes.push(hash)
  const ms = Date.parse(rec.time)
  if (ms < w.latest.ms) {
    if (++w.backwards.count <= 10) w.backwards.first.push({line: n, seq: rec.seq, time: rec.time, after: w.latest.time})
  } else if (Number.isFinite(ms)) w.latest = {ms, time: rec.time}
  return undefined
}

/** The chain's end against its head: the problem, or undefined. */
function endProblem(src: ChainSource, w: Walk, last: number): {line?: number; reason: string; message?: string} | undefined {
  const {headName, unit, label} = src
  const head = src.head()
  if (head.state === 'garbled') {
    return {reason: `${headName} ${head.detail}`, message: `${label}: ${headName} ${head.detail}: the head was garbled, so the end of the chain (record ${w.seq}, ${unit} ${last}) cannot be checked.`}
  }
  if (head.state === 'absent') {
    const which = unit === 'line' ? `(record ${w.seq}) ` : ''
    if (w.seq > 0) return {line: last, reason: `${which}ends the chain but ${headName} is missing (the head was deleted, or the chain was written without one)`}
    return undefined
  }
  const h = head.head
  if (h.seq > w.seq) {
    const reason = w.seq > 0 || last > 0 ? `is missing: the chain ends at record ${w.seq} but ${headName} names record ${h.seq} (records removed from the end)` : `is missing: there are no records but ${headName} names record ${h.seq} (the records were deleted)`
    return {line: last + 1, reason}
  }
  // h.seq <= seq: the head names a record the chain holds (the last one, or for the old file an
  // earlier one when a write was interrupted between the log and its head).
  if (w.hashes[h.seq] !== h.hash) return {line: h.seq, reason: `${unit === 'line' ? `(record ${h.seq}) ` : ''}does not match ${headName} (the record was replaced, or the head was changed)`}
  return undefined
}

/**
 * Walks the chain and checks its end against the head; names the first record that was edited,
 * removed, reordered or cut off, a deleted or garbled head, or deleted records. With `expectHead`,
 * also fails unless the head is the one kept elsewhere: the only check that catches a chain
 * recomputed wholesale by someone who can write where it is kept.
 */
export function verifyChain(src: ChainSource, opts: VerifyOptions = {}): VerifyResult {
  const fail = (records: number, line: number | undefined, reason: string, message?: string): VerifyResult => ({
    ok: false,
    records,
    ...(line === undefined ? {} : {line}),
    reason,
    message: message ?? `${src.label}: ${src.unit} ${line} ${reason}.`,
  })
  const w: Walk = {prev: GENESIS, seq: 0, hashes: [GENESIS], backwards: {count: 0, first: []}, latest: {ms: -Infinity, time: ''}}
  let count = 0
  let last = 0
  for (const {n, text} of src.items) {
    const problem = step(w, text, n)
    if (problem) return fail(count, n, problem)
    count++
    last = n
  }
  const end = endProblem(src, w, last)
  if (end) return fail(w.seq, end.line, end.reason, end.message)
  const head = {seq: w.seq, hash: w.prev}
  if (opts.expectHead !== undefined) {
    const want = opts.expectHead.toLowerCase()
    if (!head.hash.startsWith(want)) {
      const at = w.hashes.findIndex((x) => x.startsWith(want))
      const where =
        at > 0 && at < w.seq
          ? `it is record ${at}, ${w.seq - at} record${w.seq - at === 1 ? '' : 's'} before the head: the trail has grown since it was taken`
          : 'no record of the chain has it: the trail was rewritten, or it is another trail'
      const reason = `the head is record ${w.seq} with hash ${head.hash}, not --expect-head ${want} (${where})`
      return {...fail(w.seq, undefined, reason, `${src.label}: ${reason}.`), head}
    }
  }
  return {ok: true, records: count, head, ...(w.backwards.count ? {backwards: w.backwards} : {})}
}

const HEX64 = /^[0-9a-f]{64}$/

/** A head read from text (`audit.head`, an export's head line): its state, telling a garbled one apart. */
export function parseHead(text: string): HeadState {
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
