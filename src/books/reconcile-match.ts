/**
 * Reconciliation's matching, in temporary tables of the books database: the bank lines and the
 * expected items written as their pages arrive, paired one to one (exact amount by the smallest
 * date gap, then same-day counterparty as amount mismatches), and every item of the period written
 * and read back with the operator's resolutions.
 */
import type {SqlValue, Statement} from '../db/index.js'
import {dayString} from './dates.js'
import {EXCEPTION_KINDS, KINDS, STUCK_AFTER_DAYS, STUCK_AFTER_DAYS_OTHER, type Kind, type ReconcileItem, type ReconcileReport} from './reconcile-model.js'
import type {BooksStore} from './store.js'

export const norm = (s: string | null | undefined): string | null => {
  const t = s?.trim().toLowerCase()
  return t ? t : null
}

export type BankRow = {rid: number; id: string; day: number; dir: string | null; amount: number; currency: string; cp: string | null; description: string | null; cp_text: string | null}
/** `amount` and `currency` are what matching compares (null: lands converted); `own_*` the transfer's own. */
export type ExpRow = {rid: number; id: string; source: 'transfer' | 'bai2'; day: number; dir: string; amount: number | null; currency: string; own_amount: number; own_currency: string; cp: string | null; cp_text: string | null; status: string; rail: string | null}

export const TEMP_SCHEMA = `
  CREATE TEMP TABLE bank (rid INTEGER PRIMARY KEY, id TEXT NOT NULL, day INTEGER NOT NULL, dir TEXT, amount INTEGER NOT NULL, currency TEXT NOT NULL,
    cp TEXT, cp_text TEXT, description TEXT, used INTEGER NOT NULL DEFAULT 0);
  CREATE TEMP TABLE exp (rid INTEGER PRIMARY KEY, id TEXT NOT NULL, source TEXT NOT NULL, day INTEGER NOT NULL, dir TEXT NOT NULL, amount INTEGER, currency TEXT NOT NULL,
    own_amount INTEGER NOT NULL, own_currency TEXT NOT NULL, cp TEXT, cp_text TEXT, status TEXT NOT NULL, rail TEXT, used INTEGER NOT NULL DEFAULT 0);
  CREATE TEMP TABLE pairs (b INTEGER NOT NULL, e INTEGER NOT NULL, kind TEXT NOT NULL);
  CREATE TEMP TABLE items (date TEXT NOT NULL, key TEXT NOT NULL, body TEXT NOT NULL);
  CREATE TEMP TABLE cand (k INTEGER PRIMARY KEY, b INTEGER NOT NULL, e INTEGER NOT NULL);`

const PAGE = 1000

/**
 * The rows of `stmt` page by page: its last two parameters are the key to start after and the page
 * size, and it selects that key as `k` in increasing order. No statement stays open between pages,
 * so the caller may write meanwhile.
 */
function* pages<T extends {k: number}>(stmt: Statement, params: SqlValue[]): Generator<T[]> {
  let after = -1
  for (;;) {
    const rows = stmt.all<T>(...params, after, PAGE)
    if (rows.length > 0) yield rows
    if (rows.length < PAGE) return
    after = Number(rows[rows.length - 1].k)
  }
}

/** Buffers rows and writes them in one transaction per thousand. */
export function batcher<T>(store: BooksStore, write: (row: T) => void): {add(row: T): void; flush(): void; count: number} {
  let rows: T[] = []
  const b = {
    count: 0,
    add(row: T) {
      rows.push(row)
      b.count++
      if (rows.length >= 1000) b.flush()
    },
    flush() {
      if (rows.length === 0) return
      const batch = rows
      rows = []
      store.db.transaction(() => {
        for (const r of batch) write(r)
      })
    },
  }
  return b
}

/** Pairs the unused bank lines and expected items of the candidates in `cand`, in its order, as `kind`. */
function take(db: BooksStore['db'], used: {bank: Uint8Array; exp: Uint8Array}, kind: Kind): void {
  const insPair = db.prepare('INSERT INTO pairs (b, e, kind) VALUES (?, ?, ?)')
  const before = Number(db.prepare('SELECT coalesce(max(rowid), 0) AS n FROM pairs').get<{n: number}>()!.n)
  const candidates = db.prepare('SELECT k, b, e FROM cand WHERE k > ? ORDER BY k LIMIT ?')
  for (const page of pages<{k: number; b: number; e: number}>(candidates, [])) {
    db.transaction(() => {
      for (const p of page) {
        if (used.bank[p.b] || used.exp[p.e]) continue
        used.bank[p.b] = 1
        used.exp[p.e] = 1
        insPair.run(p.b, p.e, kind)
      }
    })
  }
  db.prepare('UPDATE bank SET used = 1 WHERE rid IN (SELECT b FROM pairs WHERE rowid > ?)').run(before)
  db.prepare('UPDATE exp SET used = 1 WHERE rid IN (SELECT e FROM pairs WHERE rowid > ?)').run(before)
  db.exec('DELETE FROM cand')
}

/**
 * One to one, smallest date gap first. The candidate pairs are written in that order, then read
 * back page by page (no statement stays open while pairs are written).
 */
export function pairUp(db: BooksStore['db'], bankCount: number, expCount: number, window: number): void {
  const used = {bank: new Uint8Array(bankCount + 1), exp: new Uint8Array(expCount + 1)}
  db.exec('CREATE INDEX temp.bank_match ON bank (amount, currency, dir, day)')
  // Gap by gap (0, 1, … window days), each in (expected day, id, bank day, id) order: the order
  // comes from the indexes, so no sort of every pair is held.
  db.exec('CREATE INDEX temp.exp_order ON exp (day, id)')
  const byGap = db.prepare(
    `INSERT INTO cand (b, e) SELECT b.rid, e.rid FROM exp e JOIN bank b ON b.amount = e.amount AND b.currency = e.currency AND b.dir = e.dir AND (b.day = e.day + ? OR b.day = e.day - ?)
     WHERE e.used = 0 AND b.used = 0 ORDER BY e.day, e.id, b.day, b.id`,
  )
  for (let gap = 0; gap <= window; gap++) {
    byGap.run(gap, gap)
    take(db, used, 'matched')
  }
  // Then, of what is left: the same day, direction and counterparty, another amount; the closest
  // amounts pair first (a transfer that lands converted, whose amount here is not known, last).
  db.exec(
    `INSERT INTO cand (b, e) SELECT b.rid, e.rid FROM exp e JOIN bank b ON b.day = e.day AND b.dir = e.dir AND b.cp = e.cp
     WHERE b.used = 0 AND e.used = 0 AND b.cp IS NOT NULL ORDER BY e.amount IS NULL, abs(b.amount - e.amount), e.day, e.id, b.id`,
  )
  take(db, used, 'amount_mismatch')
}

/** The period's days and what to leave out, for writing its items. */
export interface Period {
  fromDay: number
  toDay: number
  window: number
  /** The service's today (a day number), which decides pending against stuck and transfer_only. */
  today: number
  currency: string
  hideMatched?: boolean
}

/** One item of the period from its bank line and expected item (either may be missing). */
function itemOf(kind: Kind, b: BankRow | undefined, e: ExpRow | undefined, period: Period): Omit<ReconcileItem, 'exception' | 'resolution' | 'short_key'> {
  const day = e && e.day >= period.fromDay && e.day <= period.toDay ? e.day : b!.day
  return {
    key: [kind, b?.id, e?.id].filter(Boolean).join(':'),
    kind,
    date: dayString(day),
    direction: e?.dir ?? b?.dir ?? null,
    amount_in_minor_units: e ? e.own_amount : (b?.amount ?? null),
    currency_code: e?.own_currency ?? b?.currency ?? period.currency,
    counterparty: e?.cp_text ?? b?.cp_text ?? null,
    bank_transaction_id: b?.id ?? null,
    bank_date: b ? dayString(b.day) : null,
    bank_amount_in_minor_units: b?.amount ?? null,
    bank_currency_code: b?.currency ?? null,
    bank_description: b?.description ?? null,
    source: e?.source ?? null,
    expected_id: e?.id ?? null,
    expected_date: e ? dayString(e.day) : null,
    expected_amount_in_minor_units: e?.own_amount ?? null,
    expected_currency_code: e?.own_currency ?? null,
    status: e?.status ?? null,
    rail: e?.rail ?? null,
    gap_days: b && e ? Math.abs(b.day - e.day) : null,
  }
}

/** Writes the items of the period (pairs, then what is left on either side) and counts them by kind. */
export function writeItems(db: BooksStore['db'], period: Period): ReconcileReport['summary'] {
  const {fromDay, toDay, today, window: w} = period
  const insItem = db.prepare('INSERT INTO items (date, key, body) VALUES (?, ?, ?)')
  const summary = Object.fromEntries([...KINDS, 'resolved', 'exceptions'].map((k) => [k, 0])) as ReconcileReport['summary']
  const put = (kind: Kind, b: BankRow | undefined, e: ExpRow | undefined) => {
    summary[kind]++
    if (kind === 'matched' && period.hideMatched) return
    const item = itemOf(kind, b, e, period)
    insItem.run(item.date, item.key, JSON.stringify(item))
  }
  const pairRows = db.prepare(
    `SELECT p.rowid AS k, p.kind AS kind, b.rid AS b_rid, b.id AS b_id, b.day AS b_day, b.dir AS b_dir, b.amount AS b_amount, b.currency AS b_currency, b.cp_text AS b_cp_text, b.description AS b_description,
            e.rid AS e_rid, e.id AS e_id, e.source AS e_source, e.day AS e_day, e.dir AS e_dir, e.amount AS e_amount, e.currency AS e_currency, e.own_amount AS e_own_amount, e.own_currency AS e_own_currency, e.cp_text AS e_cp_text, e.status AS e_status, e.rail AS e_rail
     FROM pairs p JOIN bank b ON b.rid = p.b JOIN exp e ON e.rid = p.e WHERE ((b.day BETWEEN ? AND ?) OR (e.day BETWEEN ? AND ?)) AND p.rowid > ? ORDER BY p.rowid LIMIT ?`,
  )
  for (const page of pages<Record<string, never> & {k: number}>(pairRows, [fromDay, toDay, fromDay, toDay])) {
    db.transaction(() => {
      for (const r of page) {
        const b = {rid: r.b_rid, id: r.b_id, day: r.b_day, dir: r.b_dir, amount: r.b_amount, currency: r.b_currency, cp: null, cp_text: r.b_cp_text, description: r.b_description} as BankRow
        const e = {rid: r.e_rid, id: r.e_id, source: r.e_source, day: r.e_day, dir: r.e_dir, amount: r.e_amount, currency: r.e_currency, own_amount: r.e_own_amount, own_currency: r.e_own_currency, cp: null, cp_text: r.e_cp_text, status: r.e_status, rail: r.e_rail} as ExpRow
        put(r.kind as Kind, b, e)
      }
    })
  }
  const bankLeft = db.prepare('SELECT rid AS k, * FROM bank WHERE used = 0 AND day BETWEEN ? AND ? AND rid > ? ORDER BY rid LIMIT ?')
  for (const page of pages<BankRow & {k: number}>(bankLeft, [fromDay, toDay])) db.transaction(() => page.forEach((b) => put('bank_only', b, undefined)))
  const expLeft = db.prepare('SELECT rid AS k, * FROM exp WHERE used = 0 AND day BETWEEN ? AND ? AND rid > ? ORDER BY rid LIMIT ?')
  for (const page of pages<ExpRow & {k: number}>(expLeft, [fromDay, toDay])) {
    db.transaction(() => {
      for (const e of page) {
        let kind: Kind
        if (e.status === 'approved' || e.status === 'initiated') kind = today > e.day + (STUCK_AFTER_DAYS[e.rail ?? ''] ?? STUCK_AFTER_DAYS_OTHER) ? 'stuck' : 'pending'
        else kind = today > e.day + w ? 'transfer_only' : 'pending'
        put(kind, undefined, e)
      }
    })
  }
  return summary
}

/** The items written, in date and key order, with the resolutions in force (the control store's, loaded into temp.resolved); counts exceptions and resolved ones. */
export function readItems(db: BooksStore['db'], summary: ReconcileReport['summary']): ReconcileItem[] {
  const items: ReconcileItem[] = []
  const rows = db.prepare(
    'SELECT i.body AS body, d.label AS label, d.note AS note, d.decided_at AS decided_at FROM items i LEFT JOIN temp.resolved d ON d.key = i.key ORDER BY i.date, i.key',
  )
  for (const r of rows.iterate<{body: string; label: string | null; note: string | null; decided_at: string | null}>()) {
    const item = JSON.parse(r.body) as ReconcileItem
    item.resolution = r.label === null ? null : {label: r.label, note: r.note, decided_at: r.decided_at!}
    item.exception = EXCEPTION_KINDS.has(item.kind) && item.resolution === null
    if (item.exception) summary.exceptions++
    if (EXCEPTION_KINDS.has(item.kind) && item.resolution) summary.resolved++
    items.push(item)
  }
  return items
}
