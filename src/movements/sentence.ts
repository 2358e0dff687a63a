/** The one true sentence an outcome earns on a terminal, and the description of a movement. Pure. */
import {formatMoney} from '../money.js'
import type {Described} from './classify.js'
import type {OutcomeKind, Plan} from './types.js'

/** What an answer says; its amount is undefined when the answer carried none (approve's example shape). */
export interface Seen extends Omit<Described, 'amount_in_minor_units'> {
  id: string
  status: string | null
  amount_in_minor_units?: number
}

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined)
const num = (v: unknown): number | undefined => (typeof v === 'number' ? v : undefined)

/** What an answer says about the movement, whatever its kind. */
export function seenOf(noun: Plan['noun'], r: Record<string, unknown>): Seen {
  if (noun === 'simulated credit') {
    return {id: str(r.bank_transaction_id) ?? '', status: str(r.direction) ?? null, amount_in_minor_units: num(r.amount_in_minor_units), currency_code: str(r.currency_code)}
  }
  const transfer = noun === 'account transfer'
  return {
    id: str(r.id) ?? '',
    status: str(r.status)?.toLowerCase() ?? null,
    from: str(transfer ? r.from_account_id : r.from_subaccount_id),
    to: str(transfer ? r.to_account_id : r.to_subaccount_id),
    amount_in_minor_units: num(r.amount_in_minor_units),
    currency_code: str(r.currency_code),
    rail: str(r.rail),
  }
}

/**
 * `7.00 USD A → B` (`by wire` for transfers). With `nameOf`, an id payops knows a name for reads
 * `Payroll (ef63a1b2…)`; without it (errors a script may parse), ids stay whole. An amount neither
 * the answer nor this machine knows reads `amount unknown`.
 */
export function describe(d: Omit<Described, 'amount_in_minor_units'> & {amount_in_minor_units?: number}, currency: string | null | undefined, nameOf?: (id: string) => string | undefined): string {
  const money = d.amount_in_minor_units === undefined ? 'amount unknown' : formatMoney(d.amount_in_minor_units, d.currency_code ?? currency ?? undefined)
  const show = (id: string) => {
    const name = nameOf?.(id)
    return name ? `${name} (${id.slice(0, 8)}…)` : id
  }
  const route = d.from && d.to ? ` ${show(d.from)} → ${show(d.to)}` : d.to ? ` to ${show(d.to)}` : ''
  return `${money}${route}${d.rail ? ` by ${d.rail}` : ''}`
}

/**
 * What approves a movement awaiting approval, for the operator who made it: under a maker-checker
 * policy another operator (its maker is refused), else the approve command.
 */
export function awaitingPhrase(noun: Plan['noun'], id: string, checker?: string): string {
  if (checker) return `awaiting approval by another operator (maker-checker, profile "${checker}"): a checker approves it with \`payops approvals\`, or with \`payops approvals review FILE\` from \`payops approvals request ${id} --out FILE\``
  return noun === 'move' ? `awaiting approval (payops moves approve ${id})` : `awaiting approval (payops transfers approve ${id})`
}

function statusPhrase(noun: Plan['noun'], status: string | null, id: string, checker?: string): string {
  if (noun === 'simulated credit') return 'credited'
  switch (status) {
    case 'settled':
      return 'settled'
    case 'created':
      return awaitingPhrase(noun, id, checker)
    case 'approved':
      return noun === 'move' ? 'approved but not settled' : 'approved, queued for initiation'
    case null:
      return 'status unknown'
    default:
      return status
  }
}

export interface SentenceInput {
  /** Names of ids for a friendlier sentence (the book of names). */
  nameOf?: (id: string) => string | undefined
  plan: Plan
  kind: OutcomeKind
  seen: Seen
  partial: boolean
  confirmedByRetry: boolean
  /** The status this machine last recorded for the movement (an `advanced` one: what it was advanced from). */
  before?: string | null
  /** The answer was lost and the movement was found in the list by its key (account transfers). */
  foundByKey?: boolean
  /** The profile whose maker-checker policy covers this movement: its maker cannot approve it. */
  checker?: string
}

/**
 * What is true of a move left `approved` by a failed settlement: the spec gives no way to continue
 * it (approve and cancel need `created`, and a replay continues only a `created` move).
 */
export const STUCK_APPROVED =
  'it stays approved: the API can no longer approve or cancel it (both answer 400), and replaying its create returns it as it is; ask the provider to settle or fail it'

/** Where a simulated credit went: `account Main (6d719867…)`, or `subaccount X of account Y`. */
function creditedTo(r: Plan['request'], nameOf?: (id: string) => string | undefined): string {
  if (r.kind !== 'credit.simulate') return ''
  const show = (id: string) => {
    const name = nameOf?.(id)
    return name ? `${name} (${id.slice(0, 8)}…)` : id
  }
  return r.subaccount ? ` to subaccount ${show(r.subaccount)} of account ${show(r.account)}` : ` to account ${show(r.account)}`
}

/** What a create sent with --send-anyway risks: the earlier attempt may have made one too. */
function anyway(plan: Plan): string {
  if (!plan.sendAnyway) return ''
  return ` Sent anyway (--send-anyway): if the earlier attempt with Idempotency-Key ${plan.idempotencyKey}, whose answer was lost, took effect, this is a second ${plan.noun}.`
}

export function sentence({plan, kind, seen, partial, confirmedByRetry, foundByKey, nameOf, before, checker}: SentenceInput): string {
  const noun = plan.noun
  const what = `${describe(seen, plan.currency, nameOf)}${seen.to ? '' : creditedTo(plan.request, nameOf)}`
  const key = plan.idempotencyKey
  const state = statusPhrase(noun, seen.status, seen.id, checker)
  const op = plan.request.kind
  if (op === 'move.approve' || op === 'transfer.approve') {
    const label = noun === 'move' ? 'move' : 'account transfer'
    if (partial && noun === 'move') return `Approved move ${seen.id} (${what}) but its settlement failed: ${STUCK_APPROVED}.`
    if (partial) return `Approved ${label} ${seen.id} (${what}) but it is not settled: ${state}.`
    return `Approved ${label} ${seen.id} (${what}): ${seen.status === 'settled' ? 'settled now' : `now ${state}`}.`
  }
  if (op === 'move.cancel') return `Canceled move ${seen.id}${seen.amount_in_minor_units !== undefined ? ` (${what})` : ''}: it will not move money.`
  const nothing = noun === 'simulated credit' ? 'nothing was credited now' : 'nothing was moved now'
  if (kind === 'created' && !seen.id && noun === 'account transfer') {
    // Accepted (a 202, or a 2XX that named no transfer): made, but not yet listed under an id.
    const from = plan.request.kind === 'transfer.create' ? plan.request.from : ''
    return `Account transfer accepted: ${what}; the answer named no transfer, so its id and state are unknown until the transfer list shows it (the spec: poll the list until its status stabilizes). Follow it with --wait, or find it with: payops transfers list --account ${from}.${anyway(plan)}`
  }
  if (kind === 'created') {
    const verb = noun === 'simulated credit' ? 'Simulated credit' : `Created ${noun}`
    const retry = foundByKey
      ? ` The answer was lost; it was not sent again, and the ${noun} list shows it with this request's key ${key}: it was made once, by this run.`
      : confirmedByRetry
        ? ` The first answer was lost; a retry with the same Idempotency-Key ${key} confirmed it: it was made once, by this run.`
        : ''
    const next = partial && noun === 'move' && seen.status === 'approved' ? ` Its settlement failed: ${STUCK_APPROVED}.` : ''
    return `${verb}${seen.id ? ` ${seen.id}` : ''}: ${what}, ${state}.${retry}${next}${anyway(plan)}`
  }
  if (kind === 'replayed') {
    const stuck = partial && noun === 'move' && seen.status === 'approved' ? ` It was not settled: ${STUCK_APPROVED}.` : ''
    return `Replayed: Idempotency-Key ${key} already names ${seen.id ? `${noun} ${seen.id}` : `a ${noun} (its id not known here)`} (${what}, ${state}), made earlier; ${nothing}.${stuck}`
  }
  // advanced: a replay moved an existing movement on (from the state this machine recorded, when it did).
  const was = before?.toLowerCase() === 'approved' ? 'which was approved but not settled' : 'which was awaiting approval'
  return partial
    ? `Idempotency-Key ${key} names ${noun} ${seen.id} (${what}), ${was}: this run approved it now, but it is not settled.`
    : `Idempotency-Key ${key} names ${noun} ${seen.id} (${what}), ${was}: this run ${seen.status === 'settled' ? 'settled it now' : `moved it on to ${state}`}.`
}
