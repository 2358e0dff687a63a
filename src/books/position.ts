/**
 * The cash position: per treasury account, the balance now, the committed flows (transfers
 * created, approved or initiated that are due: not scheduled, or scheduled for today or earlier),
 * the transfers scheduled for each day of the horizon, and the projected balance at its end; per
 * subaccount named, its balance. Totals in a reporting currency come only from the
 * conversion-estimate operation (between the account and an account of that currency) and are
 * indicative. Subaccount balances are held within their treasury account's balance, so they are
 * listed but never added to the totals.
 *
 * A transfer in from an account of another currency lands converted at a rate not known yet: it
 * is left out of the receiving account's figures (and counted in `unconverted_inflows`). An amount is
 * read in the currency its transfer names (`currency_code`): a transfer out in a currency other than
 * the account's is left out of that account's figures too (`unconverted_outflows`, with a warning).
 * A subaccount whose currency the API does not name is shown with its currency unknown.
 */
import type {Api} from '../api/index.js'
import type {CommandContext} from '../context/index.js'
import {ResponseError, UsageError} from '../errors.js'
import {normalizeCurrency, readableMinor, subtractMinor, unreadableFigure} from '../money.js'
import {addDays, scheduleDayOf, serviceNow} from './dates.js'
import {BooksStore} from './store.js'

export const DEFAULT_HORIZON_DAYS = 14
export const MAX_HORIZON_DAYS = 366
const OPEN = ['created', 'approved', 'initiated']

export interface PositionOptions {
  horizon: number
  reportingCurrency?: string
  subaccounts: string[]
}

export interface DayFlows {
  date: string
  outflows_in_minor_units: number
  inflows_in_minor_units: number
}

/** Figures are null where an account's balance is unreadable (past 2^53, or an answer payops cannot read). */
export interface Reporting {
  currency_code: string
  balance_in_minor_units: number | null
  projected_balance_in_minor_units: number | null
  indicative: true
}

export interface AccountPosition {
  account_id: string
  label: string
  currency_code: string
  /** Null when unreadable (see `unreadable`): the account's other figures are still shown. */
  balance_in_minor_units: number | null
  committed_outflows_in_minor_units: number
  committed_inflows_in_minor_units: number
  scheduled_outflows_in_minor_units: number
  scheduled_inflows_in_minor_units: number
  scheduled: DayFlows[]
  unconverted_inflows: number
  /** Transfers out in a currency other than the account's: their debit here is not known. */
  unconverted_outflows: number
  projected_balance_in_minor_units: number | null
  reporting: Reporting | null
  /** Why the balance is null: the one figure named as unreadable. */
  unreadable?: string
}

export interface SubaccountPosition {
  subaccount_id: string
  name: string
  /** Null when the API names no currency for the subaccount: none is assumed. */
  currency_code: string | null
  balance_in_minor_units: number | null
  unreadable?: string
}

export interface Position {
  as_of: string
  today: string
  horizon_days: number
  horizon_end: string
  accounts: AccountPosition[]
  subaccounts: SubaccountPosition[]
  totals: (Reporting & {note: string}) | null
}

export function validate(opts: PositionOptions): string | undefined {
  if (!Number.isInteger(opts.horizon) || opts.horizon < 0 || opts.horizon > MAX_HORIZON_DAYS) throw new UsageError(`--horizon must be 0 to ${MAX_HORIZON_DAYS} days.`)
  return opts.reportingCurrency === undefined ? undefined : normalizeCurrency(opts.reportingCurrency)
}

export async function position(opts: PositionOptions, ctx: CommandContext): Promise<Position> {
  const reporting = validate(opts)
  const api = await ctx.api(['treasury', 'transfers', 'subaccounts'])
  const accounts = []
  for await (const a of api.treasury.accounts({limit: 500, order: 'asc'}, {all: true})) accounts.push(a)
  // scheduled_date is a day in the schedule time zone: so is the today it is compared with, the
  // service's (read once it has answered).
  const now = serviceNow(ctx, api)
  const today = scheduleDayOf(now)
  const end = addDays(today, opts.horizon)
  const byCurrency = new Map<string, string>()
  for (const a of accounts) if (!byCurrency.has(a.currency_code.toUpperCase())) byCurrency.set(a.currency_code.toUpperCase(), a.id)
  if (reporting !== undefined && !byCurrency.has(reporting)) {
    throw new UsageError(`No treasury account in ${reporting}: totals are converted with the conversion-estimate operation, which converts between two accounts. Choose one of ${[...byCurrency.keys()].join(', ')}.`)
  }
  const rows = new Map<string, AccountPosition>()
  for (const a of accounts) rows.set(a.id, emptyRow(a, await accountBalance(api, a.id, a.label)))
  await addOpenTransfers(api, ctx, rows, today, end)
  const totals = reporting === undefined ? null : await inReporting(api, rows, reporting, byCurrency.get(reporting)!)
  const subaccounts: SubaccountPosition[] = []
  for (const id of opts.subaccounts) subaccounts.push(await subaccountPosition(api, id))
  return {as_of: new Date(now).toISOString(), today, horizon_days: opts.horizon, horizon_end: end, accounts: [...rows.values()], subaccounts, totals}
}

/** An account's row with its balance, before any transfer is counted. */
function emptyRow(a: {id: string; label: string; currency_code: string}, {balance, unreadable}: {balance: number | null; unreadable?: string}): AccountPosition {
  return {
    account_id: a.id,
    label: a.label,
    currency_code: a.currency_code.toUpperCase(),
    balance_in_minor_units: balance,
    ...(unreadable ? {unreadable} : {}),
    committed_outflows_in_minor_units: 0,
    committed_inflows_in_minor_units: 0,
    scheduled_outflows_in_minor_units: 0,
    scheduled_inflows_in_minor_units: 0,
    scheduled: [],
    unconverted_inflows: 0,
    unconverted_outflows: 0,
    projected_balance_in_minor_units: 0,
    reporting: null,
  }
}

/** Open transfers: committed now, or scheduled day by day up to the horizon's end; then each row's projection. */
async function addOpenTransfers(api: Api, ctx: CommandContext, rows: Map<string, AccountPosition>, today: string, end: string): Promise<void> {
  const days = new Map<string, Map<string, DayFlows>>()
  const dayOf = (account: string, date: string) => {
    let m = days.get(account)
    if (!m) days.set(account, (m = new Map()))
    let d = m.get(date)
    if (!d) m.set(date, (d = {date, outflows_in_minor_units: 0, inflows_in_minor_units: 0}))
    return d
  }
  for await (const t of api.transfers.list({limit: 500, order: 'asc', status: OPEN}, {all: true})) {
    const when = t.scheduled_date && t.scheduled_date > today ? t.scheduled_date : null
    if (when !== null && when > end) continue
    const from = rows.get(t.from_account_id)
    const to = rows.get(t.to_account_id)
    if (from && from.currency_code !== t.currency_code.toUpperCase()) {
      from.unconverted_outflows++
      ctx.out.warn(`Transfer ${t.id} out of ${from.account_id} is in ${t.currency_code.toUpperCase()}, not the account's ${from.currency_code}: left out of its figures.`)
    } else if (from) {
      if (when === null) from.committed_outflows_in_minor_units += t.amount_in_minor_units
      else dayOf(from.account_id, when).outflows_in_minor_units += t.amount_in_minor_units
    }
    if (to) {
      if (to.currency_code !== t.currency_code.toUpperCase()) to.unconverted_inflows++
      else if (when === null) to.committed_inflows_in_minor_units += t.amount_in_minor_units
      else dayOf(to.account_id, when).inflows_in_minor_units += t.amount_in_minor_units
    }
  }
  for (const r of rows.values()) {
    r.scheduled = [...(days.get(r.account_id)?.values() ?? [])].sort((x, y) => (x.date < y.date ? -1 : 1))
    r.scheduled_outflows_in_minor_units = r.scheduled.reduce((s, d) => s + d.outflows_in_minor_units, 0)
    r.scheduled_inflows_in_minor_units = r.scheduled.reduce((s, d) => s + d.inflows_in_minor_units, 0)
    r.projected_balance_in_minor_units =
      r.balance_in_minor_units === null ? null : r.balance_in_minor_units - r.committed_outflows_in_minor_units + r.committed_inflows_in_minor_units - r.scheduled_outflows_in_minor_units + r.scheduled_inflows_in_minor_units
  }
}

/** Each row in the reporting currency (converted with the conversion estimate, indicative), and the totals. */
async function inReporting(api: Api, rows: Map<string, AccountPosition>, reporting: string, target: string): Promise<NonNullable<Position['totals']>> {
  const convert = async (from: AccountPosition, minor: number | null): Promise<number | null> => {
    if (minor === null || from.currency_code === reporting || minor === 0) return minor
    const e = (await api.transfers.estimate(from.account_id, target, Math.abs(minor))).data
    return Math.sign(minor) * e.destination_amount_in_minor_units
  }
  const unread = [...rows.values()].filter((r) => r.balance_in_minor_units === null).length
  const note = 'indicative: converted with the conversion-estimate operation, which is an estimate, not a quote'
  const totals: NonNullable<Position['totals']> = {currency_code: reporting, balance_in_minor_units: 0, projected_balance_in_minor_units: 0, indicative: true, note: unread ? `${note}; no total: the balance of ${unread === 1 ? 'one account is' : `${unread} accounts are`} unreadable` : note}
  const add = (t: number | null, v: number | null) => (t === null || v === null ? null : t + v)
  for (const r of rows.values()) {
    r.reporting = {currency_code: reporting, balance_in_minor_units: await convert(r, r.balance_in_minor_units), projected_balance_in_minor_units: await convert(r, r.projected_balance_in_minor_units), indicative: true}
    totals.balance_in_minor_units = add(totals.balance_in_minor_units, r.reporting.balance_in_minor_units)
    totals.projected_balance_in_minor_units = add(totals.projected_balance_in_minor_units, r.reporting.projected_balance_in_minor_units)
  }
  return totals
}

/** A subaccount's balance (incoming less outgoing), or the line that names it unreadable. */
async function subaccountPosition(api: Api, id: string): Promise<SubaccountPosition> {
  const s = (await api.subaccounts.get(id)).data
  const exact = subtractMinor(s.total_incoming_in_minor_units, s.total_outgoing_in_minor_units)
  const balance = readableMinor(exact)
  const unreadable = balance === null ? unreadableFigure(`The balance of subaccount ${s.name} (${s.id})`, exact) : undefined
  return {subaccount_id: s.id, name: s.name, currency_code: s.currency_code ? s.currency_code.toUpperCase() : null, balance_in_minor_units: balance, ...(unreadable ? {unreadable} : {})}
}

/**
 * An account's current balance as a number; null, with the line that names it, when it is past
 * 2^53 or the answer cannot be read (the other accounts are shown all the same).
 */
async function accountBalance(api: {treasury: {balance(id: string): Promise<{data: {current_balance_in_minor_units: number | bigint}}>}}, id: string, label: string): Promise<{balance: number | null; unreadable?: string}> {
  const what = `The balance of account ${label} (${id})`
  let v: number | bigint
  try {
    v = (await api.treasury.balance(id)).data.current_balance_in_minor_units
  } catch (err) {
    if (!(err instanceof ResponseError)) throw err
    return {balance: null, unreadable: `${what} is unreadable (${err.message.replace(/\.$/, '')}); it is left out, with what is computed from it`}
  }
  const balance = readableMinor(v)
  return balance === null ? {balance, unreadable: unreadableFigure(what, v)} : {balance}
}

/** Every figure named as unreadable, one line each (the command warns with them). */
export function unreadableLines(p: Position): string[] {
  return [...p.accounts, ...p.subaccounts].flatMap((r) => (r.unreadable ? [`${r.unreadable}.`] : []))
}

/** The rows a table or csv shows: each account, each subaccount, and the totals. */
export function positionRows(p: Position): Array<Record<string, unknown>> {
  return [
    ...p.accounts.map((a) => ({row: 'account', id: a.account_id, name: a.label, ...a, reporting_currency: a.reporting?.currency_code, reporting_projected_in_minor_units: a.reporting?.projected_balance_in_minor_units})),
    ...p.subaccounts.map((s) => ({row: 'subaccount', id: s.subaccount_id, ...s, projected_balance_in_minor_units: s.balance_in_minor_units})),
    ...(p.totals
      ? [{row: 'total (indicative)', currency_code: p.totals.currency_code, balance_in_minor_units: p.totals.balance_in_minor_units, projected_balance_in_minor_units: p.totals.projected_balance_in_minor_units, reporting_currency: p.totals.currency_code, reporting_projected_in_minor_units: p.totals.projected_balance_in_minor_units}]
      : []),
  ]
}

/** Each scheduled day of each account, for a table. */
export function scheduleRows(p: Position): Array<Record<string, unknown>> {
  return p.accounts.flatMap((a) => a.scheduled.map((d) => ({account_id: a.account_id, name: a.label, currency_code: a.currency_code, ...d})))
}

const FIELDS = [
  'balance_in_minor_units',
  'committed_outflows_in_minor_units',
  'committed_inflows_in_minor_units',
  'scheduled_outflows_in_minor_units',
  'scheduled_inflows_in_minor_units',
  'projected_balance_in_minor_units',
] as const

export interface Change {
  account_id: string
  label: string
  currency_code: string | null
  field: string
  before: number | null
  after: number | null
  change: number | null
}

export interface PositionDiff {
  snapshot_id: number
  since: string
  as_of: string
  horizon_days: number
  changes: Change[]
}

/** What changed between a saved position and now, account by account (subaccounts too). */
export function diffPositions(before: Position, now: Position): Change[] {
  const changes: Change[] = []
  const key = (a: AccountPosition) => a.account_id
  const old = new Map(before.accounts.map((a) => [key(a), a]))
  const cur = new Map(now.accounts.map((a) => [key(a), a]))
  for (const id of new Set([...old.keys(), ...cur.keys()])) {
    const b = old.get(id)
    const a = cur.get(id)
    const ref = (a ?? b)!
    for (const f of FIELDS) {
      const x = b ? b[f] : null
      const y = a ? a[f] : null
      if (x === y) continue
      changes.push({account_id: id, label: ref.label, currency_code: ref.currency_code, field: f, before: x, after: y, change: x !== null && y !== null ? y - x : null})
    }
  }
  const oldSubs = new Map(before.subaccounts.map((s) => [s.subaccount_id, s]))
  for (const s of now.subaccounts) {
    const b = oldSubs.get(s.subaccount_id)
    if (b && b.balance_in_minor_units === s.balance_in_minor_units) continue
    const [x, y] = [b?.balance_in_minor_units ?? null, s.balance_in_minor_units]
    changes.push({account_id: s.subaccount_id, label: s.name, currency_code: s.currency_code, field: 'balance_in_minor_units', before: x, after: y, change: x !== null && y !== null ? y - x : null})
  }
  return changes
}

export function saveSnapshot(p: Position, ctx: CommandContext, reporting: string | undefined): number {
  const store = BooksStore.open(ctx.configDir)
  try {
    return store.saveSnapshot(p.as_of, ctx.profile.profileName ?? null, reporting ?? null, p)
  } finally {
    store.close()
  }
}

/** The latest snapshot saved with this profile, or a usage error saying how to take one. */
export function lastSnapshot(ctx: CommandContext): {id: number; position: Position} {
  const store = BooksStore.open(ctx.configDir)
  try {
    const s = store.lastSnapshot(ctx.profile.profileName ?? null)
    if (!s) throw new UsageError('No saved position to compare with: run `payops position --save` first.')
    return {id: s.id, position: JSON.parse(s.body) as Position}
  } finally {
    store.close()
  }
}

export async function positionDiff(ctx: CommandContext): Promise<PositionDiff> {
  const last = lastSnapshot(ctx)
  const subaccounts = last.position.subaccounts.map((s) => s.subaccount_id)
  const now = await position({horizon: last.position.horizon_days, subaccounts}, ctx)
  return {snapshot_id: last.id, since: last.position.as_of, as_of: now.as_of, horizon_days: now.horizon_days, changes: diffPositions(last.position, now)}
}
