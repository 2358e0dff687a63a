/**
 * Nothing is sent twice without proof. The spec makes no create idempotent but a move's, so an
 * account transfer or a simulated credit whose answer was lost is never sent again unless the
 * service itself shows that the first attempt did not happen: the list (transfers of the source
 * account, or the account's bank lines for a credit), read to its end around the first attempt's
 * time, shows nothing with the same route, amount and currency that could be it. A listed movement
 * that carries this request's key is it; one that carries another request's key is not; any other
 * (a list that does not echo `client_metadata`, which the spec never promises, or a bank line,
 * which carries nothing of the request) could be it, and is shown as a candidate while nothing is
 * sent (exit 7). `--send-anyway` sends all the same, its sentence naming the risk.
 */
import {OutcomeUnknownError} from '../errors.js'
import {formatMoney} from '../money.js'
import {KEY_METADATA, keyOfTransfer} from '../api/transfers.js'
import type {AccountTransfer} from '../api/schemas/transfers.js'
import type {BankTransaction} from '../api/schemas/treasury.js'
import {replaceUnsafeChars} from '../text.js'
import {shellArg, utcDate} from './settle.js'
import type {MovementApi, MovementRequest, Plan, SearchResult} from './types.js'

export type {SearchResult} from './types.js'

/** How far around the first attempt's time the list is searched (the server's clock may differ from ours). */
export const AROUND_MS = 15 * 60_000
/** A list longer than this many pages for one window is not read to its end: nothing is proven. */
const MAX_PAGES = 50


/** Reads every page of a list, or says why it could not be read to its end. */
async function readAll<T>(page: (cursor?: string) => Promise<{items: T[]; hasMore: boolean; nextCursor?: string | null}>): Promise<{items: T[]; incomplete?: string}> {
  const items: T[] = []
  let cursor: string | undefined
  for (let n = 0; n < MAX_PAGES; n++) {
    const p = await page(cursor)
    items.push(...p.items)
    if (!p.hasMore) return {items}
    if (!p.nextCursor) return {items, incomplete: 'the list says it has more but gives no cursor to read on'}
    cursor = p.nextCursor
  }
  return {items, incomplete: `the list did not end within ${MAX_PAGES} pages`}
}

type TransferCreate = Extract<MovementRequest, {kind: 'transfer.create'}>
type CreditSimulate = Extract<MovementRequest, {kind: 'credit.simulate'}>

/** The source account's transfers of this amount in the window, sorted into this request's, candidates and others'. */
export async function searchTransfers(api: Pick<MovementApi, 'transfers'>, r: TransferCreate, key: string, minor: number, currency: string, around: {since: number; until?: number}): Promise<SearchResult> {
  const filters = {
    account_id: [r.from],
    limit: 500,
    amount_in_minor_units_gte: minor,
    amount_in_minor_units_lte: minor,
    created_at_gte: new Date(around.since - AROUND_MS).toISOString(),
    ...(around.until === undefined ? {} : {created_at_lte: new Date(around.until + AROUND_MS).toISOString()}),
  }
  const {items, incomplete} = await readAll((cursor) => api.transfers.listPage(filters, cursor))
  const same = (t: AccountTransfer) =>
    t.from_account_id === r.from && t.to_account_id === r.to && t.amount_in_minor_units === minor && (!t.currency_code || t.currency_code.toUpperCase() === currency)
  const found = items.find((t) => t.from_account_id === r.from && keyOfTransfer(t) === key)
  // A transfer carrying another key was made by another request; one carrying none could be this one.
  const candidates = items.filter((t) => same(t) && keyOfTransfer(t) === undefined)
  return {found: found as Record<string, unknown> | undefined, candidates: candidates as Array<Record<string, unknown>>, incomplete}
}

/** The account's credit lines of this amount on the credit's day (the day before and after when it was not pinned). */
export async function searchCredits(api: Pick<MovementApi, 'treasury'>, r: CreditSimulate, minor: number, currency: string, around: {since: number}): Promise<SearchResult> {
  const day = r.transactionDate ?? utcDate(around.since)
  const shift = (d: string, days: number) => new Date(Date.parse(`${d}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10)
  const filters = {limit: 500, transaction_date_gte: r.transactionDate ? day : shift(day, -1), transaction_date_lte: r.transactionDate ? day : shift(day, 1)}
  const {items, incomplete} = await readAll((cursor) => api.treasury.transactionsPage(r.account, filters, cursor))
  const could = (l: BankTransaction) =>
    l.amount_in_minor_units === minor &&
    (!l.direction || l.direction === 'credit') &&
    (!l.currency_code || l.currency_code.toUpperCase() === currency) &&
    (r.senderInfo === undefined || l.sender_info == null || l.sender_info === r.senderInfo)
  return {candidates: items.filter(could) as Array<Record<string, unknown>>, incomplete}
}

const str = (v: unknown) => (typeof v === 'string' && v !== '' ? replaceUnsafeChars(v) : undefined)

/** One line per candidate, escaped (text from the service). */
export function describeCandidate(noun: Plan['noun'], c: Record<string, unknown>): string {
  const money = typeof c.amount_in_minor_units === 'number' ? formatMoney(c.amount_in_minor_units, str(c.currency_code)) : 'amount unknown'
  if (noun === 'simulated credit') {
    const parts = [str(c.transaction_date), str(c.sender_info) && `from ${str(c.sender_info)}`, str(c.description)].filter(Boolean)
    return `bank line ${str(c.id) ?? '(no id)'}: ${money} credit${parts.length ? `, ${parts.join(', ')}` : ''}`
  }
  const parts = [str(c.status), str(c.created_at) && `created ${str(c.created_at)}`].filter(Boolean)
  return `transfer ${str(c.id) ?? '(no id)'}: ${money} ${str(c.from_account_id) ?? '?'} → ${str(c.to_account_id) ?? '?'}${str(c.rail) ? ` by ${str(c.rail)}` : ''}${parts.length ? `, ${parts.join(', ')}` : ''}`
}

/** The read-only command that shows what the refusal looked at. */
export function inspectCommand(r: MovementRequest, since: number): string {
  if (r.kind === 'credit.simulate') return `payops treasury transactions list ${shellArg(r.account)} --transaction-date-gte ${utcDate(since - 86_400_000)} -o json`
  const from = r.kind === 'transfer.create' ? r.from : ''
  return `payops transfers list --account ${shellArg(from)} --created-at-gte ${new Date(since - AROUND_MS).toISOString()} -o json`
}

/**
 * The refusal of a re-run that the service cannot prove safe: exit 7, nothing sent, the candidates
 * listed, the read-only command that shows them, and the flag that sends anyway (naming the risk).
 */
export function unprovenRerun(p: Plan, found: SearchResult, earlier: {time: string}): OutcomeUnknownError {
  const since = Date.parse(earlier.time)
  const noun = p.noun
  const why = found.incomplete
    ? `the list could not be read to its end (${found.incomplete}), so it cannot show that the first attempt did not happen`
    : p.request.kind === 'credit.simulate'
      ? 'a bank line carries nothing that ties it to a request, and the account shows a credit that could be it'
      : `the transfer list does not show this request's key (client_metadata.${KEY_METADATA}, which the spec does not promise to echo) on a transfer that could be it`
  const list = found.candidates.length ? ` Candidates: ${found.candidates.map((c) => describeCandidate(noun, c)).join('; ')}.` : ''
  const inspect = inspectCommand(p.request, since)
  const anyway = `${p.settle} --send-anyway`
  return new OutcomeUnknownError(
    `Not sent: this machine sent the same ${noun} with Idempotency-Key ${p.idempotencyKey} at ${earlier.time} and its answer was lost; ${why}.${list} ` +
      `See them with: ${inspect}. If none of them is that attempt, send it anyway (it may make a second ${noun}): ${anyway}`,
    inspect,
  )
}
