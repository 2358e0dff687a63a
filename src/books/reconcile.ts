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
import type {Api} from '../api/index.js'
import {PATHS} from '../api/paths.js'
import {ApiError, UsageError} from '../errors.js'
import {addDays, dayNumber, scheduleDayOf, sendDayOf, serviceNow} from './dates.js'
import {favourMemory} from '../memory.js'
import {BooksStore} from './store.js'
import {loadResolved, resolutionsInForce} from '../control/books.js'
import type {TreasuryAccount} from '../api/schemas/treasury.js'
import {batcher, norm, pairUp, readItems, TEMP_SCHEMA, writeItems} from './reconcile-match.js'
import {EXCEPTION_KINDS, KINDS, LOOKBACK_DAYS, MAX_WINDOW_DAYS, type ReconcileOptions, type ReconcileReport} from './reconcile-model.js'

export * from './reconcile-model.js'

export function validate(opts: ReconcileOptions): void {
  if (opts.from > opts.to) throw new UsageError(`--from ${opts.from} is after --to ${opts.to}: give the earlier date first.`)
  if (!Number.isInteger(opts.window) || opts.window < 0 || opts.window > MAX_WINDOW_DAYS) throw new UsageError(`--window must be 0 to ${MAX_WINDOW_DAYS} days.`)
}

/** The account among this entity's accounts (its currency), and every account's label (counterparties of transfers). */
async function findAccount(api: Api, id: string): Promise<{account: TreasuryAccount; currency: string; labels: Map<string, string>}> {
  const labels = new Map<string, string>()
  let account: TreasuryAccount | undefined
  for await (const a of api.treasury.accounts({limit: 500}, {all: true})) {
    labels.set(a.id, a.label)
    if (a.id === id) account = a
  }
  if (account === undefined) {
    throw new ApiError({status: 404, errorCode: 'NOT_FOUND', message: `treasury account ${id} not found (it is not among this entity's accounts in GET ${PATHS.treasuryAccounts})`})
  }
  return {account, currency: account.currency_code.toUpperCase(), labels}
}

type Batch = ReturnType<typeof batcher<unknown[]>>
interface Span {
  lo: string
  hi: string
  loDay: number
  hiDay: number
}

/** What the bank reported, over the period widened by the window. */
async function loadBank(api: Api, opts: ReconcileOptions, account: TreasuryAccount, currency: string, span: Span, bank: Batch): Promise<void> {
  const bankLines = opts.bankLines
    ? opts.bankLines(account, span.lo, span.hi)
    : api.treasury.transactions(opts.account, {limit: 500, order: 'asc', transaction_date_gte: span.lo, transaction_date_lte: span.hi}, {all: true})
  for await (const t of bankLines) {
    if (!t.transaction_date) continue
    const dir = t.direction === 'credit' || t.direction === 'debit' ? t.direction : null
    const cpText = (dir === 'credit' ? t.sender_info : dir === 'debit' ? t.receiver_info : (t.sender_info ?? t.receiver_info)) ?? null
    bank.add([t.id, dayNumber(t.transaction_date), dir, t.amount_in_minor_units, (t.currency_code ?? currency).toUpperCase(), norm(cpText), cpText, t.description ?? null])
  }
  bank.flush()
}

/**
 * Account transfers in and out of the account that move (or have moved) money, sent (scheduled,
 * else created) within the widened period (those created long before it are not read); then the
 * bank-sourced credits of the subaccounts named.
 */
async function loadExpected(api: Api, opts: ReconcileOptions, currency: string, labels: Map<string, string>, span: Span, exp: Batch): Promise<void> {
  const createdFrom = `${addDays(span.lo, -LOOKBACK_DAYS)}T00:00:00.000Z`
  const filters = {limit: 500, order: 'asc' as const, account_id: [opts.account], status: ['approved', 'initiated', 'debited', 'settled'], created_at_gte: createdFrom}
  for await (const t of api.transfers.list(filters, {all: true})) {
    const sendDay = sendDayOf(t)
    if (!sendDay) continue
    const day = dayNumber(sendDay)
    if (day < span.loDay || day > span.hiDay) continue
    const out = t.from_account_id === opts.account
    const other = out ? t.to_account_id : t.from_account_id
    const tCurrency = t.currency_code.toUpperCase()
    // A transfer in from an account of another currency lands converted: its amount here is not known.
    const amount = tCurrency === currency ? t.amount_in_minor_units : null
    const cpText = labels.get(other) ?? other
    exp.add([t.id, 'transfer', day, out ? 'debit' : 'credit', amount, currency, t.amount_in_minor_units, tCurrency, norm(cpText), cpText, t.status, t.rail])
  }
  for (const sub of opts.subaccounts) {
    const activity = api.subaccounts.activity(sub, {limit: 500, order: 'asc', direction: 'credit', effective_at_gte: `${span.lo}T00:00:00.000Z`, effective_at_lte: `${span.hi}T23:59:59.999Z`}, {all: true})
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
}

export async function reconcile(opts: ReconcileOptions, ctx: CommandContext): Promise<ReconcileReport> {
  validate(opts)
  // Every page of lines and transfers passes through: keep the heap near what is live.
  favourMemory()
  const api = await ctx.api(['treasury', 'transfers', 'subaccounts'])
  const {account, currency, labels} = await findAccount(api, opts.account)
  const w = opts.window
  const lo = addDays(opts.from, -w)
  const hi = addDays(opts.to, w)
  const span = {lo, hi, loDay: dayNumber(lo), hiDay: dayNumber(hi)}

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
    await loadBank(api, opts, account, currency, span, bank)
    await loadExpected(api, opts, currency, labels, span, exp)
    pairUp(db, bank.count, exp.count, w)
    // The service's today (its answers' HTTP Date, read now that it has answered), in the schedule time zone.
    const today = dayNumber(scheduleDayOf(serviceNow(ctx, api)))
    const summary = writeItems(db, {fromDay: dayNumber(opts.from), toDay: dayNumber(opts.to), window: w, today, currency, hideMatched: opts.hideMatched})
    // The exceptions found are kept: what `reconcile resolve` may name.
    store.rememberItems(opts.account, new Date(ctx.clock.now()).toISOString(), [...EXCEPTION_KINDS])
    const items = readItems(db, summary)
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
