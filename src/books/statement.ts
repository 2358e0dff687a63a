/**
 * Month-end statements: opening balance, every line of the month, closing balance, each line with
 * its reconciliation status.
 *
 * A treasury account: the lines are its bank lines dated in the month (lines without a direction
 * count in no balance and are left out, with a warning); the closing balance is the current
 * balance (GET …/balance) less every line dated after the month; the opening balance is the
 * closing balance less the month's lines. Lines without a date cannot be placed in a month: they
 * fall in the opening balance. Each line's status is its kind in `reconcile` over the month (the
 * default window; without subaccounts).
 *
 * A subaccount: the lines are its activity effective in the month; the closing balance is its
 * current totals (incoming minus outgoing) less the activity effective after the month, and the
 * opening balance the closing less the month's lines. That is exact when the totals are the sum of
 * the activity and nothing is booked with an effective time in an earlier, already reported
 * month. Activity of `transfer` source (moves between subaccounts) is `internal`; `bai2` credits
 * take their status from reconciling the treasury account given with --bank-account, else
 * `not_checked`. An activity item whose direction is neither `credit` nor `debit` (a value added
 * later) is listed as it came and counted in no balance or total, with a warning. The statement is
 * in the subaccount's own currency; when the API names none, `--currency` must say which (payops
 * does not assume USD).
 */
import type {CommandContext} from '../context/index.js'
import {UsageError} from '../errors.js'
import {normalizeCurrency, readableMinor, subtractMinor, unreadableFigure} from '../money.js'
import {addDays, monthRange, serviceNow, todayOf} from './dates.js'
import {DEFAULT_WINDOW_DAYS, reconcile, type ReconcileItem} from './reconcile.js'

export interface StatementOptions {
  account?: string
  subaccount?: string
  /** With --subaccount: the treasury account its bai2 credits arrive on. */
  bankAccount?: string
  /** The currency of a subaccount whose currency the API does not name. */
  currency?: string
  month: string
}

export interface StatementLine {
  id: string
  date: string
  /** `credit` or `debit`; any other value as the API gave it (counted in no balance). */
  direction: string
  amount_in_minor_units: number
  /** Credits positive, debits negative. */
  signed_amount_in_minor_units: number
  /** The balance after this line (null when the balances are unreadable, see `unreadable`). */
  balance_in_minor_units: number | null
  description: string | null
  counterparty: string | null
  source: string | null
  reconciliation: string
  resolution: string | null
}

export interface Statement {
  kind: 'account' | 'subaccount'
  id: string
  name: string | null
  /** For the OFX file: the account number and routing number when the API shows them. */
  account_number: string | null
  routing_number: string | null
  month: string
  from: string
  to: string
  /** False while the month has not ended: the closing balance is then the balance so far. */
  complete: boolean
  currency_code: string
  /** Null when the balance they derive from is unreadable (past 2^53): the lines are shown all the same. */
  opening_balance_in_minor_units: number | null
  closing_balance_in_minor_units: number | null
  /** The figure named as unreadable, when one is. */
  unreadable?: string
  total_credits_in_minor_units: number
  total_debits_in_minor_units: number
  as_of: string
  lines: StatementLine[]
}

/** Credits positive, debits negative; a direction the spec does not list moves nothing. */
const signed = (direction: string | null | undefined, amount: number) => (direction === 'credit' ? amount : direction === 'debit' ? -amount : 0)

function withBalances(lines: Array<Omit<StatementLine, 'balance_in_minor_units' | 'signed_amount_in_minor_units'>>, opening: number | null): StatementLine[] {
  let balance = opening
  return lines.map((l) => {
    const s = signed(l.direction, l.amount_in_minor_units)
    if (balance !== null) balance += s
    return {...l, signed_amount_in_minor_units: s, balance_in_minor_units: balance}
  })
}

function statusOf(items: ReconcileItem[]): Map<string, {kind: string; resolution: string | null}> {
  const out = new Map<string, {kind: string; resolution: string | null}>()
  for (const i of items) if (i.bank_transaction_id) out.set(i.bank_transaction_id, {kind: i.kind, resolution: i.resolution?.label ?? null})
  return out
}

/** Whether the month is over, on the service's clock (read once it has answered). */
type Complete = (api: {client: {serviceSkew(): number}}) => boolean

export async function statement(opts: StatementOptions, ctx: CommandContext): Promise<Statement> {
  if ((opts.account === undefined) === (opts.subaccount === undefined)) throw new UsageError('Give exactly one of --account and --subaccount.')
  if (opts.bankAccount !== undefined && opts.subaccount === undefined) throw new UsageError('--bank-account goes with --subaccount (an account statement reconciles its own lines).')
  if (opts.currency !== undefined && opts.subaccount === undefined) throw new UsageError('--currency goes with --subaccount (an account statement is in the currency its balance names).')
  const {first, last} = monthRange(opts.month)
  // Over once the service's today (its answers' HTTP Date) is past the month, taken when it has answered.
  const complete: Complete = (api) => last < todayOf(serviceNow(ctx, api))
  return opts.account !== undefined ? accountStatement(opts.account, opts.month, first, last, complete, ctx) : subaccountStatement(opts, first, last, complete, ctx)
}

async function accountStatement(id: string, month: string, first: string, last: string, complete: Complete, ctx: CommandContext): Promise<Statement> {
  const api = await ctx.api(['treasury', 'transfers', 'subaccounts'])
  const account = await api.treasury.findAccount(id)
  const balance = (await api.treasury.balance(id)).data
  const currency = balance.currency_code.toUpperCase()
  let after = 0
  for await (const t of api.treasury.transactions(id, {limit: 500, transaction_date_gte: addDays(last, 1)}, {all: true})) {
    if (t.direction === 'credit' || t.direction === 'debit') after += signed(t.direction, t.amount_in_minor_units)
  }
  const report = await reconcile({account: id, from: first, to: last, window: DEFAULT_WINDOW_DAYS, subaccounts: []}, ctx)
  const status = statusOf(report.items)
  const raw: Array<Omit<StatementLine, 'balance_in_minor_units' | 'signed_amount_in_minor_units'>> = []
  let undirected = 0
  for await (const t of api.treasury.transactions(id, {limit: 500, order: 'asc', transaction_date_gte: first, transaction_date_lte: last}, {all: true})) {
    if (t.direction !== 'credit' && t.direction !== 'debit') {
      undirected++
      continue
    }
    const s = status.get(t.id)
    raw.push({
      id: t.id,
      date: t.transaction_date!,
      direction: t.direction,
      amount_in_minor_units: t.amount_in_minor_units,
      description: t.description ?? null,
      counterparty: (t.direction === 'credit' ? t.sender_info : t.receiver_info) ?? null,
      source: 'bank',
      reconciliation: s?.kind ?? 'not_checked',
      resolution: s?.resolution ?? null,
    })
  }
  if (undirected > 0) ctx.out.warn(`${undirected} bank line${undirected === 1 ? '' : 's'} of ${month} without a direction left out (they count in no balance).`)
  raw.sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0))
  const current = readableMinor(balance.current_balance_in_minor_units)
  const closing = current === null ? null : current - after
  const net = raw.reduce((s, l) => s + signed(l.direction, l.amount_in_minor_units), 0)
  return finish({
    ...(current === null ? {unreadable: unreadableFigure(`The current balance of account ${account?.label ? `${account.label} (${id})` : id}`, balance.current_balance_in_minor_units)} : {}),
    kind: 'account',
    id,
    name: account?.label ?? null,
    account_number: account?.last_four_digits ?? null,
    routing_number: null,
    month,
    from: first,
    to: last,
    complete: complete(api),
    currency_code: currency,
    opening_balance_in_minor_units: closing === null ? null : closing - net,
    closing_balance_in_minor_units: closing,
    as_of: balance.as_of ?? 'unknown (the API did not say)',
    raw,
  })
}

async function subaccountStatement(opts: StatementOptions, first: string, last: string, complete: Complete, ctx: CommandContext): Promise<Statement> {
  const id = opts.subaccount!
  const api = await ctx.api(['treasury', 'transfers', 'subaccounts'])
  const asOf = new Date(ctx.clock.now()).toISOString()
  const sub = (await api.subaccounts.get(id)).data
  const currency = subaccountCurrency(sub.currency_code, opts.currency, id)
  let after = 0
  let undirected = 0
  for await (const a of api.subaccounts.activity(id, {limit: 500, effective_at_gte: `${addDays(last, 1)}T00:00:00.000Z`}, {all: true})) after += signed(a.direction, a.amount_in_minor_units)
  const byActivity = new Map<string, {kind: string; resolution: string | null}>()
  if (opts.bankAccount !== undefined) {
    const report = await reconcile({account: opts.bankAccount, from: first, to: last, window: DEFAULT_WINDOW_DAYS, subaccounts: [id]}, ctx)
    for (const i of report.items) if (i.source === 'bai2' && i.expected_id) byActivity.set(i.expected_id, {kind: i.kind, resolution: i.resolution?.label ?? null})
  }
  const raw: Array<Omit<StatementLine, 'balance_in_minor_units' | 'signed_amount_in_minor_units'>> = []
  const filters = {limit: 500, order: 'asc' as const, effective_at_gte: `${first}T00:00:00.000Z`, effective_at_lte: `${last}T23:59:59.999Z`}
  for await (const a of api.subaccounts.activity(id, filters, {all: true})) {
    const s = a.source === 'bai2' ? byActivity.get(a.id) : undefined
    if (a.direction !== 'credit' && a.direction !== 'debit') undirected++
    raw.push({
      id: a.id,
      date: a.effective_at,
      direction: a.direction,
      amount_in_minor_units: a.amount_in_minor_units,
      description: describeActivity(a.source, a.direction),
      counterparty: null,
      source: a.source,
      reconciliation: a.source === 'bai2' ? (s?.kind ?? 'not_checked') : a.source === 'transfer' ? 'internal' : 'not_checked',
      resolution: s?.resolution ?? null,
    })
  }
  if (undirected > 0) ctx.out.warn(`${undirected} activity item${undirected === 1 ? '' : 's'} of ${opts.month} with a direction other than credit or debit listed as they came, counted in no balance or total.`)
  raw.sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : a.id < b.id ? -1 : 1))
  const exact = subtractMinor(sub.total_incoming_in_minor_units, sub.total_outgoing_in_minor_units)
  const current = readableMinor(exact)
  const closing = current === null ? null : current - after
  const net = raw.reduce((s, l) => s + signed(l.direction, l.amount_in_minor_units), 0)
  return finish({
    ...(current === null ? {unreadable: unreadableFigure(`The balance of subaccount ${sub.name} (${id})`, exact)} : {}),
    kind: 'subaccount',
    id,
    name: sub.name,
    account_number: sub.account_number ?? null,
    routing_number: sub.routing_numbers?.ach ?? null,
    month: opts.month,
    from: first,
    to: last,
    complete: complete(api),
    currency_code: currency,
    opening_balance_in_minor_units: closing === null ? null : closing - net,
    closing_balance_in_minor_units: closing,
    as_of: asOf,
    raw,
  })
}

/** A line's description from its source and direction; a source or direction the spec does not list is named as it came. */
function describeActivity(source: string, direction: string): string {
  if (source === 'bai2') return 'BANK CREDIT (BAI2)'
  if (source === 'transfer' && (direction === 'credit' || direction === 'debit')) return direction === 'credit' ? 'TRANSFER IN' : 'TRANSFER OUT'
  return `${source} ${direction}`.toUpperCase()
}

/** The subaccount's own currency; when the API names none, the one `--currency` gives, else a usage error asking for it. */
function subaccountCurrency(named: string | null | undefined, asserted: string | undefined, id: string): string {
  const given = asserted?.trim() ? normalizeCurrency(asserted) : undefined
  if (named) {
    const own = named.toUpperCase()
    if (given !== undefined && given !== own) throw new UsageError(`--currency ${given} does not match the currency of subaccount ${id}, ${own}.`)
    return own
  }
  if (given === undefined) throw new UsageError(`The currency of subaccount ${id} is not known (the API did not return one): pass --currency to say which currency its amounts are in.`)
  return given
}

function finish(s: Omit<Statement, 'lines' | 'total_credits_in_minor_units' | 'total_debits_in_minor_units'> & {raw: Array<Omit<StatementLine, 'balance_in_minor_units' | 'signed_amount_in_minor_units'>>}): Statement {
  const {raw, ...rest} = s
  const lines = withBalances(raw, s.opening_balance_in_minor_units)
  const credits = lines.filter((l) => l.direction === 'credit').reduce((t, l) => t + l.amount_in_minor_units, 0)
  const debits = lines.filter((l) => l.direction === 'debit').reduce((t, l) => t + l.amount_in_minor_units, 0)
  return {...rest, total_credits_in_minor_units: credits, total_debits_in_minor_units: debits, lines}
}

/** The rows a table or csv shows: the opening balance, each line, the closing balance. */
export function statementRows(s: Statement): Array<Record<string, unknown>> {
  const edge = (row: string, date: string, balance: number | null) => ({row, date, balance_in_minor_units: balance, currency_code: s.currency_code})
  return [
    edge('opening', s.from, s.opening_balance_in_minor_units),
    ...s.lines.map((l) => ({row: 'line', ...l, currency_code: s.currency_code})),
    edge('closing', s.to, s.closing_balance_in_minor_units),
  ]
}
