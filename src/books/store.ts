/**
 * The books' local database (`books.sqlite` in the config dir, purpose `books`): the exceptions
 * reconciliations found here, the bank files reconciled and the cash position snapshots. The
 * operator's reconciliation decisions live in the control store (src/control/books.ts); those an
 * earlier payops kept here (table `decisions`) move there once, and the table is renamed
 * `decisions_moved`. A reconciliation run also works here, in temporary tables of its own
 * connection (SQLite keeps them in a temporary file past its page cache): memory stays flat
 * however many bank lines and transfers it matches.
 */
import {join} from 'node:path'
import {mkdirSync} from 'node:fs'
import {openDatabase, type Database, type Schema} from '../db/index.js'

export const BOOKS_FILE = 'books.sqlite'

export const BOOKS_SCHEMA: Schema = {
  purpose: 'books',
  migrations: [
    `CREATE TABLE decisions (key TEXT PRIMARY KEY, label TEXT NOT NULL, note TEXT, decided_at TEXT NOT NULL, profile TEXT) WITHOUT ROWID;
     CREATE TABLE snapshots (id INTEGER PRIMARY KEY, taken_at TEXT NOT NULL, profile TEXT, reporting_currency TEXT, body TEXT NOT NULL);`,
    // The exceptions reconciliations found: what `reconcile resolve` may name (whole, or by a unique prefix).
    `CREATE TABLE seen_items (key TEXT PRIMARY KEY, kind TEXT NOT NULL, id_part TEXT NOT NULL, account_id TEXT NOT NULL, seen_at TEXT NOT NULL) WITHOUT ROWID;
     CREATE INDEX seen_items_id ON seen_items (id_part);`,
    // The bank's statement files reconciled, by the digest of their content (bankfiles/reconcile-files.ts).
    `CREATE TABLE bank_files (digest TEXT PRIMARY KEY, statement_id TEXT NOT NULL, format TEXT NOT NULL, account_id TEXT NOT NULL, lines INTEGER NOT NULL,
       first_at TEXT NOT NULL, last_at TEXT NOT NULL) WITHOUT ROWID;
     CREATE INDEX bank_files_statement ON bank_files (statement_id);`,
  ],
}

/** A LIKE pattern for what begins with `text` (its own % and _ taken literally). */
const likePrefix = (text: string) => `${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`

export interface SeenItem {
  key: string
  kind: string
  account_id: string
  seen_at: string
}

export interface Snapshot {
  id: number
  taken_at: string
  profile: string | null
  body: string
}

export class BooksStore {
  private constructor(readonly db: Database) {}

  static open(configDir: string): BooksStore {
    mkdirSync(configDir, {recursive: true, mode: 0o700})
    return new BooksStore(openDatabase(join(configDir, BOOKS_FILE), BOOKS_SCHEMA, {synchronous: 'FULL'}))
  }

  /** Keeps the exception items of a reconciliation (held in the temporary table `items`) as seen. */
  rememberItems(account: string, seenAt: string, kinds: readonly string[]): void {
    const marks = kinds.map(() => '?').join(', ')
    this.db
      .prepare(
        `INSERT INTO main.seen_items (key, kind, id_part, account_id, seen_at)
         SELECT key, substr(key, 1, instr(key, ':') - 1), substr(key, instr(key, ':') + 1), ?, ? FROM temp.items WHERE substr(key, 1, instr(key, ':') - 1) IN (${marks})
         ON CONFLICT (key) DO UPDATE SET account_id = excluded.account_id, seen_at = excluded.seen_at`,
      )
      .run(account, seenAt, ...kinds)
  }

  /**
   * The seen items a key names: the key itself, else those whose key, or whose ids (the key after
   * its kind), begin with it (at most `limit`).
   */
  itemsNamed(text: string, limit = 6): SeenItem[] {
    const exact = this.db.prepare('SELECT key, kind, account_id, seen_at FROM seen_items WHERE key = ?').get<SeenItem>(text)
    if (exact) return [exact]
    const like = likePrefix(text)
    return this.db
      .prepare("SELECT key, kind, account_id, seen_at FROM seen_items WHERE key LIKE ? ESCAPE '\\' OR id_part LIKE ? ESCAPE '\\' ORDER BY key LIMIT ?")
      .all<SeenItem>(like, like, limit)
  }

  /** How many seen items other than `key` have keys beginning with `prefix`. */
  othersWithKey(prefix: string, key: string): number {
    return Number(this.db.prepare("SELECT count(*) AS n FROM seen_items WHERE key LIKE ? ESCAPE '\\' AND key <> ?").get<{n: number}>(likePrefix(prefix), key)!.n)
  }

  /** How many seen items other than `key` have ids beginning with `prefix`. */
  othersWithIds(prefix: string, key: string): number {
    const like = likePrefix(prefix)
    return Number(this.db.prepare("SELECT count(*) AS n FROM seen_items WHERE id_part LIKE ? ESCAPE '\\' AND key <> ?").get<{n: number}>(like, key)!.n)
  }

  saveSnapshot(takenAt: string, profile: string | null, reportingCurrency: string | null, body: unknown): number {
    return Number(this.db.prepare('INSERT INTO snapshots (taken_at, profile, reporting_currency, body) VALUES (?, ?, ?, ?)').run(takenAt, profile, reportingCurrency, JSON.stringify(body)).lastInsertRowid)
  }

  /** The latest snapshot of this profile (null: taken without one). */
  lastSnapshot(profile: string | null): Snapshot | undefined {
    return this.db.prepare('SELECT id, taken_at, profile, body FROM snapshots WHERE profile IS ? ORDER BY id DESC LIMIT 1').get<Snapshot>(profile)
  }

  close(): void {
    this.db.close()
  }
}
