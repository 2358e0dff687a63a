/** The audit trail store's file and schema (see store.ts), apart so that completion reads it without the writer. */
import type {Schema} from '../db/index.js'

export const TRAIL_FILE = 'audit.sqlite'

export const TRAIL_SCHEMA: Schema = {
  purpose: 'audit',
  migrations: [
    `CREATE TABLE trail (seq INTEGER PRIMARY KEY, kind TEXT NOT NULL, hash TEXT NOT NULL, record TEXT NOT NULL);
    CREATE TABLE trail_head (only_row INTEGER PRIMARY KEY CHECK (only_row = 1), seq INTEGER NOT NULL, hash TEXT NOT NULL);
    CREATE TABLE trail_imports (id INTEGER PRIMARY KEY AUTOINCREMENT, at TEXT NOT NULL, file TEXT NOT NULL, records INTEGER NOT NULL, head_hash TEXT NOT NULL);`,
  ],
}

