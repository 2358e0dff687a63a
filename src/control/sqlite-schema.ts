/**
 * The file and schema of the control store on one machine (`controls.sqlite` in the config dir,
 * purpose `controls`): apart from the store's code (sqlite.ts, src/audit/store.ts) so that a
 * reader that needs only the file, such as completion's read-only look at the audit trail
 * (src/audit/tail.ts), loads nothing else. Each entry of `migrations` is one schema version,
 * never edited once shipped.
 */
import type {Schema} from '../db/index.js'
import {SQLITE_RECORDS} from './migration-records.js'

export const CONTROLS_FILE = 'controls.sqlite'

export const CONTROLS_SCHEMA: Schema = {
  purpose: 'controls',
  migrations: [
    `CREATE TABLE intents (
      seq INTEGER PRIMARY KEY AUTOINCREMENT, at TEXT NOT NULL, day TEXT NOT NULL, actor TEXT NOT NULL,
      entity TEXT NOT NULL, kind TEXT NOT NULL, currency TEXT NOT NULL, amount INTEGER NOT NULL CHECK (amount >= 0),
      destination TEXT, status TEXT NOT NULL CHECK (status IN ('allowed', 'refused')), detail TEXT NOT NULL DEFAULT '{}');
    CREATE TABLE outcomes (
      seq INTEGER PRIMARY KEY AUTOINCREMENT, intent_seq INTEGER NOT NULL REFERENCES intents (seq), at TEXT NOT NULL,
      actor TEXT NOT NULL, status TEXT NOT NULL, detail TEXT NOT NULL DEFAULT '{}');
    CREATE TABLE daily_totals (
      entity TEXT NOT NULL, day TEXT NOT NULL, currency TEXT NOT NULL, total INTEGER NOT NULL, last_seq INTEGER NOT NULL,
      PRIMARY KEY (entity, day, currency));
    CREATE TABLE policies (seq INTEGER PRIMARY KEY AUTOINCREMENT, at TEXT NOT NULL, actor TEXT NOT NULL, key TEXT NOT NULL, value TEXT);
    CREATE TABLE approval_requests (
      id INTEGER PRIMARY KEY AUTOINCREMENT, at TEXT NOT NULL, maker TEXT NOT NULL, entity TEXT NOT NULL, kind TEXT NOT NULL,
      currency TEXT NOT NULL, amount INTEGER NOT NULL, destination TEXT, detail TEXT NOT NULL DEFAULT '{}');
    CREATE TABLE approval_decisions (
      request_id INTEGER PRIMARY KEY REFERENCES approval_requests (id), at TEXT NOT NULL, checker TEXT NOT NULL,
      decision TEXT NOT NULL CHECK (decision IN ('approved', 'rejected')), note TEXT);`,
    // Import batches by the digest of their rows, and their journals (src/control/import-batches.ts).
    `CREATE TABLE import_batches (
      seq INTEGER PRIMARY KEY AUTOINCREMENT, entity TEXT NOT NULL, digest TEXT NOT NULL, batch_id TEXT NOT NULL, file TEXT NOT NULL,
      row_count INTEGER NOT NULL, at TEXT NOT NULL, actor TEXT NOT NULL);
    CREATE INDEX import_batches_digest ON import_batches (entity, digest, seq);
    CREATE INDEX import_batches_batch ON import_batches (batch_id, seq);
    CREATE TABLE import_finished (batch_id TEXT PRIMARY KEY, at TEXT NOT NULL, actor TEXT NOT NULL);
    CREATE TABLE import_rows (
      seq INTEGER PRIMARY KEY AUTOINCREMENT, batch_id TEXT NOT NULL, key TEXT NOT NULL, fp TEXT NOT NULL, line INTEGER NOT NULL, n INTEGER NOT NULL,
      state TEXT NOT NULL, kind TEXT, move_id TEXT, move_status TEXT, http_status INTEGER, warning TEXT, error_status INTEGER, error_code TEXT,
      message TEXT, at TEXT NOT NULL, actor TEXT NOT NULL);
    CREATE INDEX import_rows_batch ON import_rows (batch_id, key, seq);`,
    // Reconciliation decisions, the book of names, watch alert state (src/control/records-sqlite.ts).
    SQLITE_RECORDS,
    // The audit trail (src/audit/store.ts): one row a record with its place in the SHA-256 chain,
    // the one-row head, and the JSON-lines trails of earlier versions imported.
    `CREATE TABLE trail (seq INTEGER PRIMARY KEY, kind TEXT NOT NULL, hash TEXT NOT NULL, record TEXT NOT NULL);
    CREATE TABLE trail_head (only_row INTEGER PRIMARY KEY CHECK (only_row = 1), seq INTEGER NOT NULL, hash TEXT NOT NULL);
    CREATE TABLE trail_imports (id INTEGER PRIMARY KEY AUTOINCREMENT, at TEXT NOT NULL, file TEXT NOT NULL, records INTEGER NOT NULL, head_hash TEXT NOT NULL);`,
  ],
}
