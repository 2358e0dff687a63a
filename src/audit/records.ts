/**
 * What an audit record is: the fields a mutating request leaves (never a key, secret or token),
 * its place in the chain (`seq`, `prev`) and its own hash, over `prev` and its content, so that an
 * edited, removed or reordered record breaks the chain at that record.
 */
import {createHash} from 'node:crypto'

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

/** The end of a chain: the sequence number and hash of its last record. */
export interface AuditHead {
  seq: number
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

/** The record that follows `prev` as record `seq`, hashed. */
export function chained(fields: AuditFields, seq: number, prev: string, time: string, pid: number): AuditRecord {
  const base = {...fields, seq, time, pid, prev}
  return {...base, hash: recordHash(base)}
}

/**
 * A check made right before a record is written, inside the trail's write transaction: it reads
 * the trail as it is then (every record in the store, and those of the same group before it) and
 * throws to refuse the record, which is then not written. Daily caps and maker-checker are
 * decided so, together with the intent they allow: two runs at once cannot both pass on a trail
 * that shows neither.
 */
export type TrailCheck = (records: AuditRecord[]) => void
