/** The one true sentence an outcome earns on a terminal, and the description of a movement. Pure. */
import {formatMoney} from '../money.js'
import type {Described} from './classify.js'
import type {OutcomeKind, Plan} from './types.js'

export interface Seen extends Described {
  id: string
  status: string | null
}

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined)
const num = (v: unknown): number | undefined => (typeof v === 'number' ? v : undefined)

/** What an answer says about the movement, whatever its kind. */
export function seenOf(noun: Plan['noun'], r: Record<string, unknown>): Seen {
  if (noun === 'simulated credit') {
    return {id: str(r.bank_transaction_id) ?? '', status: str(r.direction) ?? null, amount_in_minor_units: num(r.amount_in_minor_units) ?? 0, currency_code: str(r.currency_code)}
  }
  const transfer = noun === 'account transfer'
  return {
    id: str(r.id) ?? '',
    status: str(r.status)?.toLowerCase() ?? null,
    from: str(transfer ? r.from_account_id : r.from_subaccount_id),
    to: str(transfer ? r.to_account_id : r.to_subaccount_id),
    amount_in_minor_units: num(r.amount_in_minor_units) ?? 0,
    currency_code: str(r.currency_code),
    rail: str(r.rail),
  }
}

/**
 * `7.00 USD A → B` (`by wire` for transfers). With `nameOf`, an id payops knows a name for reads
 * `Payroll (ef63a1b2…)`; without it (errors a script may parse), ids stay whole.
 */
export function describe(d: Described, currency: string | null | undefined, nameOf?: (id: string) => string | undefined): string {
  const money = formatMoney(d.amount_in_minor_units, d.currency_code ?? currency ?? undefined)
  const show = (id: string) => {
    const name = nameOf?.(id)
    return name ? `${name} (${id.slice(0, 8)}…)` : id
  }
  const route = d.from && d.to ? ` ${show(d.from)} → ${show(d.to)}` : d.to ? ` to ${show(d.to)}` : ''
  return `${money}${route}${d.rail ? ` by ${d.rail}` : ''}`
}

function statusPhrase(noun: Plan['noun'], status: string | null, id: string): string {
  if (noun === 'simulated credit') return 'credited'
  switch (status) {
    case 'settled':
      return 'settled'
    case 'created':
      return noun === 'move' ? `awaiting approval (payops moves approve ${id})` : `awaiting approval (payops transfers approve ${id})`
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
  /** The answer was lost and the movement was found in the list by its key (account transfers). */
  foundByKey?: boolean
}

export function sentence({plan, kind, seen, partial, confirmedByRetry, foundByKey, nameOf}: SentenceInput): string {
  const noun = plan.noun
  const what = describe(seen, plan.currency, nameOf)
  const key = plan.idempotencyKey
  const state = statusPhrase(noun, seen.status, seen.id)
  const op = plan.request.kind
  if (op === 'move.approve' || op === 'transfer.approve') {
    const label = noun === 'move' ? 'move' : 'account transfer'
    if (partial && noun === 'move') return `Approved move ${seen.id} (${what}) but its settlement failed: it stays approved, and can no longer be approved or canceled (both answer 400). ${continueSettlement(plan, seen)}`
    if (partial) return `Approved ${label} ${seen.id} (${what}) but it is not settled: ${state}.`
    return `Approved ${label} ${seen.id} (${what}): ${seen.status === 'settled' ? 'settled now' : `now ${state}`}.`
  }
  if (op === 'move.cancel') return `Canceled move ${seen.id}${seen.amount_in_minor_units ? ` (${what})` : ''}: it will not move money.`
  const nothing = noun === 'simulated credit' ? 'nothing was credited now' : 'nothing was moved now'
  if (kind === 'created') {
    const verb = noun === 'simulated credit' ? 'Simulated credit' : `Created ${noun}`
    const retry = foundByKey
      ? ` The answer was lost; it was not sent again, and the ${noun} list shows it with this request's key ${key}: it was made once, by this run.`
      : confirmedByRetry
        ? ` The first answer was lost; a retry with the same Idempotency-Key ${key} confirmed it: it was made once, by this run.`
        : ''
    const next = partial && noun === 'move' ? ` Its settlement failed; ${key ? `re-run this command with --idempotency-key ${key} to ask the API to continue it.` : 'it stays approved.'}` : ''
    return `${verb} ${seen.id}: ${what}, ${state}.${retry}${next}`
  }
  if (kind === 'replayed') {
    return `Replayed: Idempotency-Key ${key} already names ${noun} ${seen.id} (${what}, ${state}), made earlier; ${nothing}.`
  }
  // advanced: a replay moved an existing movement on.
  return partial
    ? `Idempotency-Key ${key} names ${noun} ${seen.id} (${what}), which was awaiting approval: this run approved it now, but it is not settled.`
    : `Idempotency-Key ${key} names ${noun} ${seen.id} (${what}), which was awaiting approval: this run ${seen.status === 'settled' ? 'settled it now' : `moved it on to ${state}`}.`
}

/** The next step for a move left approved: replaying its create with its key continues settlement. */
function continueSettlement(plan: Plan, seen: Seen): string {
  const key = plan.recorded?.idempotency_key
  if (!key || !seen.from || !seen.to) return 'Its create was not sent from this machine, so its Idempotency-Key is unknown here: ask the provider to settle or fail it.'
  return `To ask the API to continue its settlement, replay its create with the same key: payops moves create --from ${seen.from} --to ${seen.to} --amount-minor ${seen.amount_in_minor_units} --idempotency-key ${key}`
}
