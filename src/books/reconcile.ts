/**
 * Reconciliation of one treasury account over a period: what the bank reported (its bank lines)
 * against what payops expects to see there (account transfers in and out of the account, and the
 * bank-sourced `bai2` credits of the subaccounts named), matched one to one.
 *
 * Matching, deterministic: a bank line and an expected item match when they have the same
 * currency, the exact amount and the same direction, and their dates are at most `window` days
 * apart; among all such pairs the smallest date gap is taken first (ties: the earlier expected
 * item, then its id, then the earlier bank line, then its id), each side at most once. Then, of
 * what is left, a bank line and an expected item of the same day, direction and counterparty are
 * paired as an `amount_mismatch`. What remains:
 *
 * - a bank line: `bank_only` (fees, wires nobody announced);
 * - a settled transfer or a bai2 credit: `transfer_only` once its window has passed (today is past
 *   its date + window), else `pending`;
 * - an approved or initiated transfer: `stuck` once past its rail's usual window
 *   ({@link STUCK_AFTER_DAYS}), else `pending`.
 *
 * Each item has a stable `key` (its kind and the ids it stands on); an exception (`bank_only`,
 * `transfer_only`, `stuck`, `amount_mismatch`) the operator resolved (`reconcile resolve KEY`) no
 * longer counts as one.
 *
 * Scale: every line and transfer is written to temporary tables of the books database as its page
 * arrives and matched there; only a byte per row is held in memory for the matching.
 */
import type {CommandContext} from '../context/index.js'
import {ApiError, UsageError} from '../errors.js'
import {addDays, dayNumber, dayString, scheduleDayOf, sendDayOf, serviceNow} from './dates.js'
import type {SqlValue, Statement} from '../db/index.js'
import {favourMemory} from '../memory.js'
import {BooksStore} from './store.js'
import {loadResolved, resolutionsInForce} from '../control/books.js'
import type {BankTransaction, TreasuryAccount} from '../api/schemas/treasury.js'

export const KINDS = ['matched', 'bank_only', 'transfer_only', 'stuck', 'amount_mismatch', 'pending'] as const
export type Kind = (typeof KINDS)[number]
export const EXCEPTION_KINDS: ReadonlySet<string> = new Set(['bank_only', 'transfer_only', 'stuck', 'amount_mismatch'])

/** Days after its send day past which a transfer still approved or initiated is `stuck`, per rail. */
export const STUCK_AFTER_DAYS: Readonly<Record<string, number>> = {
  instant_card: 1,
  instant_bank: 1,
  wire: 1,
  same_day_ach: 1,
  standard_ach: 3,
}
/** For a rail not in the table. */
export const STUCK_AFTER_DAYS_OTHER = 3
/** Transfers created this many days before the widened period are not read. */
export const LOOKBACK_DAYS = 90
export const DEFAULT_WINDOW_DAYS = 3
export const MAX_WINDOW_DAYS = 31


export interface ReconcileOptions {
  account: string
  from: string
  to: string
  window: number
  subaccounts: string[]
  /** Leave matched items out of the list (they are still counted). */
  hideMatched?: boolean
  /** Where the bank lines come from: the API's bank lines of the account (the default), or another source such as the bank's own file. */
  bankLines?: BankLineSource
}

/** Bank lines shaped as the API's, for the account (as the API lists it) over the widened period `from`..`to`. */
export type BankLineSource = (account: TreasuryAccount, from: string, to: string) => AsyncIterable<BankLine> | Iterable<BankLine>
export type BankLine = Pick<BankTransaction, 'id' | 'amount_in_minor_units' | 'currency_code' | 'description' | 'sender_info' | 'receiver_info' | 'direction' | 'transaction_date'>

export interface ReconcileItem {
  key: string
  /**
   * What `reconcile resolve` also takes for the key: for an exception, the start of its ids, as
   * short as is unique among the items seen here (8 characters, or more); otherwise its kind and
   * the start of its first id (resolve refuses those: they are not exceptions).
   */
  short_key: string
  kind: Kind
  /** An exception not resolved. */
  exception: boolean
  date: string
  direction: string | null
  /** The expected side's amount in its own currency (a transfer's, even when it lands converted), else the bank line's. */
  amount_in_minor_units: number | null
  currency_code: string
  counterparty: string | null
  bank_transaction_id: string | null
  bank_date: string | null
  bank_amount_in_minor_units: number | null
  bank_currency_code: string | null
  bank_description: string | null
  source: 'transfer' | 'bai2' | null
  expected_id: string | null
  expected_date: string | null
  expected_amount_in_minor_units: number | null
  expected_currency_code: string | null
  status: string | null
  rail: string | null
  gap_days: number | null
  resolution: {label: string; note: string | null; decided_at: string} | null
}

export interface ReconcileReport {
  account_id: string
  currency_code: string
  from: string
  to: string
  window_days: number
  summary: Record<Kind | 'resolved' | 'exceptions', number>
  items: ReconcileItem[]
}

export function validate(opts: ReconcileOptions): void {
  if (opts.from > opts.to) throw new UsageError(`--from ${opts.from} is after --to ${opts.to}: give the earlier date first.`)
  if (!Number.isInteger(opts.window) || opts.window < 0 || opts.window > MAX_WINDOW_DAYS) throw new UsageError(`--window must be 0 to ${MAX_WINDOW_DAYS} days.`)
}

const norm = (s: string | null | undefined): string | null => {
  const t = s?.trim().toLowerCase()
  return t ? t : null
}

type BankRow = {rid: number; id: string; day: number; dir: string | null; amount: number; currency: string; cp: string | null; description: string | null; cp_text: string | null}
/** `amount` and `currency` are what matching compares (null: lands converted); `own_*` the transfer's own. */
type ExpRow = {rid: number; id: string; source: 'transfer' | 'bai2'; day: number; dir: string; amount: number | null; currency: string; own_amount: number; own_currency: string; cp: string | null; cp_text: string | null; status: string; rail: string | null}

const TEMP_SCHEMA = `
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
function batcher<T>(store: BooksStore, write: (row: T) => void): {add(row: T): void; flush(): void; count: number} {
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

export async function reconcile(opts: ReconcileOptions, ctx: CommandContext): Promise<ReconcileReport> {
  validate(opts)
  // Every page of lines and transfers passes through: keep the heap near what is live.
  favourMemory()
  const api = await ctx.api(['treasury', 'transfers', 'subaccounts'])
  const labels = new Map<string, string>()
  let currency: string | undefined
  let account: TreasuryAccount | undefined
  for await (const a of api.treasury.accounts({limit: 500}, {all: true})) {
    labels.set(a.id, a.label)
    if (a.id === opts.account) {
      currency = a.currency_code.toUpperCase()
      account = a
    }
  }
  if (currency === undefined) {
    throw new ApiError({status: 404, errorCode: 'NOT_FOUND', message: `treasury account ${opts.account} not found (it is not among this entity's accounts in GET /api/treasury/accounts)`})
  }
  const w = opts.window
  const lo = addDays(opts.from, -w)
  const hi = addDays(opts.to, w)
  const [loDay, hiDay, fromDay, toDay] = [dayNumber(lo), dayNumber(hi), dayNumber(opts.from), dayNumber(opts.to)]

  const resolved = await resolutionsInForce(ctx)
  const store = BooksStore.open(ctx.configDir)
  try {
    const db = store.db
    db.exec(TEMP_SCHEMA)
    loadResolved(db, resolved)
    const insBank = db.prepare('INSERT INTO bank (id, day, dir, amount, currency, cp, cp_text, description) VALUES (?, ?, ?, ?, ?, ?, ?, ?)')
    const insExp = db.prepare('INSERT INTO exp (id, source, day, dir, amount, currency, own_amount, own_currency, cp, cp_text, status, rail) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)')
    const bank = batcher<unknown[]>(store, (r) => insBank.run(...(r as never[])))
    const exp = batcher<unknown[]>(store, (r) => insExp.run(...(r as never[])))

    // What the bank reported, over the period widened by the window.
    const bankLines = opts.bankLines
      ? opts.bankLines(account!, lo, hi)
      : api.treasury.transactions(opts.account, {limit: 500, order: 'asc', transaction_date_gte: lo, transaction_date_lte: hi}, {all: true})
    for await (const t of bankLines) {
      if (!t.transaction_date) continue
      const dir = t.direction === 'credit' || t.direction === 'debit' ? t.direction : null
      const cpText = (dir === 'credit' ? t.sender_info : dir === 'debit' ? t.receiver_info : (t.sender_info ?? t.receiver_info)) ?? null
      bank.add([t.id, dayNumber(t.transaction_date), dir, t.amount_in_minor_units, (t.currency_code ?? currency).toUpperCase(), norm(cpText), cpText, t.description ?? null])
    }
    bank.flush()

    // Account transfers in and out of the account that move (or have moved) money, sent (scheduled,
    // else created) within the widened period; those created long before it are not read.
    const createdFrom = `${addDays(lo, -LOOKBACK_DAYS)}T00:00:00.000Z`
    const filters = {limit: 500, order: 'asc' as const, account_id: [opts.account], status: ['approved', 'initiated', 'debited', 'settled'], created_at_gte: createdFrom}
    for await (const t of api.transfers.list(filters, {all: true})) {
      const sendDay = sendDayOf(t)
      if (!sendDay) continue
      const day = dayNumber(sendDay)
      if (day < loDay || day > hiDay) continue
      const out = t.from_account_id === opts.account
      const other = out ? t.to_account_id : t.from_account_id
      const tCurrency = t.currency_code.toUpperCase()
      // A transfer in from an account of another currency lands converted: its amount here is not known.
      const amount = tCurrency === currency ? t.amount_in_minor_units : null
      const cpText = labels.get(other) ?? other
      exp.add([t.id, 'transfer', day, out ? 'debit' : 'credit', amount, currency, t.amount_in_minor_units, tCurrency, norm(cpText), cpText, t.status, t.rail])
    }
    // Bank-sourced credits of the subaccounts named.
    for (const sub of opts.subaccounts) {
      const activity = api.subaccounts.activity(sub, {limit: 500, order: 'asc', direction: 'credit', effective_at_gte: `${lo}T00:00:00.000Z`, effective_at_lte: `${hi}T23:59:59.999Z`}, {all: true})
      // An item without a currency is in its subaccount's (looked up once, only then); when that is not named either, its amount is not known here.
      let subCurrency: Promise<string | null> | undefined
      for await (const a of activity) {
        if (a.source !== 'bai2') continue
        subCurrency ??= a.currency_code ? undefined : api.subaccounts.get(sub).then((r) => r.data.currency_code?.toUpperCase() || null)
        const c = a.currency_code ? a.currency_code.toUpperCase() : await subCurrency
        const amount = c === null ? null : a.amount_in_minor_units
        exp.add([a.id, 'bai2', dayNumber(a.effective_at), 'credit', amount, c ?? currency, amount, c ?? currency, null, null, 'settled', null])
      }
    }
    exp.flush()

    // One to one, smallest date gap first. The candidate pairs are written in that order, then read
    // back page by page (no statement stays open while pairs are written).
    const bankUsed = new Uint8Array(bank.count + 1)
    const expUsed = new Uint8Array(exp.count + 1)
    db.exec('CREATE INDEX temp.bank_match ON bank (amount, currency, dir, day)')
    const insPair = db.prepare('INSERT INTO pairs (b, e, kind) VALUES (?, ?, ?)')
    const take = (kind: Kind) => {
      const before = Number(db.prepare('SELECT coalesce(max(rowid), 0) AS n FROM pairs').get<{n: number}>()!.n)
      const candidates = db.prepare('SELECT k, b, e FROM cand WHERE k > ? ORDER BY k LIMIT ?')
      for (const page of pages<{k: number; b: number; e: number}>(candidates, [])) {
        db.transaction(() => {
          for (const p of page) {
            if (bankUsed[p.b] || expUsed[p.e]) continue
            bankUsed[p.b] = 1
            expUsed[p.e] = 1
            insPair.run(p.b, p.e, kind)
          }
        })
      }
      db.prepare('UPDATE bank SET used = 1 WHERE rid IN (SELECT b FROM pairs WHERE rowid > ?)').run(before)
      db.prepare('UPDATE exp SET used = 1 WHERE rid IN (SELECT e FROM pairs WHERE rowid > ?)').run(before)
      db.exec('DELETE FROM cand')
    }
    // Gap by gap (0, 1, … window days), each in (expected day, id, bank day, id) order: the order
    // comes from the indexes, so no sort of every pair is held.
    db.exec('CREATE INDEX temp.exp_order ON exp (day, id)')
    const byGap = db.prepare(
      `INSERT INTO cand (b, e) SELECT b.rid, e.rid FROM exp e JOIN bank b ON b.amount = e.amount AND b.currency = e.currency AND b.dir = e.dir AND (b.day = e.day + ? OR b.day = e.day - ?)
       WHERE e.used = 0 AND b.used = 0 ORDER BY e.day, e.id, b.day, b.id`,
    )
    for (let gap = 0; gap <= w; gap++) {
      byGap.run(gap, gap)
      take('matched')
    }
    // Then, of what is left: the same day, direction and counterparty, another amount; the closest
    // amounts pair first (a transfer that lands converted, whose amount here is not known, last).
    db.exec(
      `INSERT INTO cand (b, e) SELECT b.rid, e.rid FROM exp e JOIN bank b ON b.day = e.day AND b.dir = e.dir AND b.cp = e.cp
       WHERE b.used = 0 AND e.used = 0 AND b.cp IS NOT NULL ORDER BY e.amount IS NULL, abs(b.amount - e.amount), e.day, e.id, b.id`,
    )
    take('amount_mismatch')

    // The items of the period.
    const insItem = db.prepare('INSERT INTO items (date, key, body) VALUES (?, ?, ?)')
    const summary = Object.fromEntries([...KINDS, 'resolved', 'exceptions'].map((k) => [k, 0])) as ReconcileReport['summary']
    const put = (kind: Kind, b: BankRow | undefined, e: ExpRow | undefined) => {
      const key = [kind, b?.id, e?.id].filter(Boolean).join(':')
      const day = e && e.day >= fromDay && e.day <= toDay ? e.day : b!.day
      summary[kind]++
      const item: Omit<ReconcileItem, 'exception' | 'resolution' | 'short_key'> = {
        key,
        kind,
        date: dayString(day),
        direction: e?.dir ?? b?.dir ?? null,
        amount_in_minor_units: e ? e.own_amount : (b?.amount ?? null),
        currency_code: e?.own_currency ?? b?.currency ?? currency,
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
      if (kind === 'matched' && opts.hideMatched) return
      insItem.run(item.date, key, JSON.stringify(item))
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
    // The service's today (its answers' HTTP Date, read now that it has answered), in the schedule time zone.
    const today = dayNumber(scheduleDayOf(serviceNow(ctx, api)))
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

    // The exceptions found are kept: what `reconcile resolve` may name.
    store.rememberItems(opts.account, new Date(ctx.clock.now()).toISOString(), [...EXCEPTION_KINDS])
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
    for (const item of items) item.short_key = shortKey(store, item.key)
    return {account_id: opts.account, currency_code: currency, from: opts.from, to: opts.to, window_days: w, summary, items}
  } finally {
    store.close()
  }
}

/** The length a short key starts at: 8 characters of an id. */
export const SHORT_KEY_LENGTH = 8

/**
 * A key short enough for an 80-column table that `reconcile resolve` takes: an exception's ids
 * cut to 8 characters; while another item seen here starts the same way, its kind and those
 * characters, then 4 more each time (the whole key when nothing shorter is unique). Another kind's
 * key is its kind and 8 characters of its first id.
 */
export function shortKey(store: Pick<BooksStore, 'othersWithIds' | 'othersWithKey'>, key: string): string {
  const colon = key.indexOf(':')
  const kind = key.slice(0, colon)
  const ids = key.slice(colon + 1)
  if (!EXCEPTION_KINDS.has(kind)) return key.slice(0, colon + 1 + SHORT_KEY_LENGTH)
  for (let n = SHORT_KEY_LENGTH; n < ids.length; n += 4) {
    if (store.othersWithIds(ids.slice(0, n), key) === 0) return ids.slice(0, n)
    if (store.othersWithKey(`${kind}:${ids.slice(0, n)}`, key) === 0) return `${kind}:${ids.slice(0, n)}`
  }
  return key
}

/** The one line that ends a run with exceptions (exit 9). */
export function exceptionsLine(report: ReconcileReport): string {
  const parts = [...EXCEPTION_KINDS].map((k) => [k, report.items.filter((i) => i.exception && i.kind === k).length] as const).filter(([, n]) => n > 0)
  return `${report.summary.exceptions} exception${report.summary.exceptions === 1 ? '' : 's'} on ${report.account_id} from ${report.from} to ${report.to} (${parts.map(([k, n]) => `${n} ${k}`).join(', ')}); resolve each with \`payops reconcile resolve KEY --as LABEL\`.`
}

/** The one sentence that sums a run up (stderr on a terminal). */
export function summaryLine(report: ReconcileReport): string {
  const s = report.summary
  return `${report.account_id} ${report.from}..${report.to} (window ${report.window_days} d): ${KINDS.map((k) => `${s[k]} ${k}`).join(', ')}; ${s.resolved} resolved, ${s.exceptions} open exception${s.exceptions === 1 ? '' : 's'}.`
}
