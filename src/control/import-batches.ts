/**
 * The import batches' records, the same in both engines: a batch is recorded with the digest of
 * the rows it pays (one record per digest it has paid: a file that grows is recorded again), and
 * its journal is a list of records appended as rows are sent and answered. The SQL here reads
 * them in either engine (`p` is the table prefix, `payops.` in PostgreSQL; the placeholders are
 * the engine's).
 */
import type {ImportBatch, ImportJournalEntry} from './types.js'

/** The journal fields of a row record, in the order the engines write them. */
export const IMPORT_ROW_FIELDS = ['key', 'fp', 'line', 'n', 'state', 'kind', 'move_id', 'move_status', 'http_status', 'warning', 'error_status', 'error_code', 'message'] as const satisfies ReadonlyArray<keyof ImportJournalEntry>

/**
 * The latest batch of (entity, digest), with who started it and when, and (`progress`) how far its
 * journal got: counted only when asked, as it reads the batch's whole journal.
 */
export const BATCH_SQL = (p: string, entity: string, digest: string, progress: boolean) => `SELECT l.digest, l.batch_id, l.file, l.row_count, f.at AS started_at, f.actor AS started_by,
  (SELECT x.at FROM ${p}import_finished x WHERE x.batch_id = l.batch_id) AS finished_at,
  ${progress ? `(SELECT COUNT(DISTINCT r.key) FROM ${p}import_rows r WHERE r.batch_id = l.batch_id)` : '0'} AS sent,
  ${progress ? `(SELECT COUNT(DISTINCT r.key) FROM ${p}import_rows r WHERE r.batch_id = l.batch_id AND r.state = 'done')` : '0'} AS settled
FROM (SELECT * FROM ${p}import_batches WHERE entity = ${entity} AND digest = ${digest} ORDER BY seq DESC LIMIT 1) l
JOIN ${p}import_batches f ON f.seq = (SELECT MIN(b.seq) FROM ${p}import_batches b WHERE b.batch_id = l.batch_id)`

/** Where each key of a batch stands: its last `done` record, else its last record. */
export const JOURNAL_SQL = (p: string, batch: string) => `SELECT ${IMPORT_ROW_FIELDS.join(', ')} FROM (
  SELECT r.*, ROW_NUMBER() OVER (PARTITION BY r.key ORDER BY CASE WHEN r.state = 'done' THEN 0 ELSE 1 END, r.seq DESC) AS k
  FROM ${p}import_rows r WHERE r.batch_id = ${batch}) t
WHERE k = 1 ORDER BY line, key`

const iso = (v: unknown) => (v instanceof Date ? v.toISOString() : String(v))
const numOrNull = (v: unknown) => (v === null || v === undefined ? null : Number(v))
const strOrNull = (v: unknown) => (v === null || v === undefined ? null : String(v))

export function batchOf(r: Record<string, unknown>): ImportBatch {
  return {
    batch_id: String(r.batch_id), digest: String(r.digest), file: String(r.file), rows: Number(r.row_count),
    started_at: iso(r.started_at), started_by: String(r.started_by), finished_at: r.finished_at === null || r.finished_at === undefined ? null : iso(r.finished_at),
    sent: Number(r.sent), settled: Number(r.settled),
  }
}

export function journalEntryOf(r: Record<string, unknown>): ImportJournalEntry {
  return {
    key: String(r.key), fp: String(r.fp), line: Number(r.line), n: Number(r.n), state: r.state as ImportJournalEntry['state'],
    kind: strOrNull(r.kind), move_id: strOrNull(r.move_id), move_status: strOrNull(r.move_status), http_status: numOrNull(r.http_status),
    warning: strOrNull(r.warning), error_status: numOrNull(r.error_status), error_code: strOrNull(r.error_code), message: strOrNull(r.message),
  }
}
