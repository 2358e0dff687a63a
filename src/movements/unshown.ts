/**
 * Answers the spec does not show (move approve and cancel, account-transfer create and approve), or
 * a 2XX without the fields payops hoped for: the documented status code decides what happened, and
 * what the answer leaves out is taken from what is known (the request, this machine's audit trail)
 * or left unknown; it is never made up. Pure.
 */
import type {Known, Plan} from './types.js'

type Obj = Record<string, unknown>

const missing = (v: unknown) => v === undefined || v === null || v === ''

/** Fills what `data` lacks with `known` (never over what the answer said). */
function fill(data: Obj, known: Obj): Obj {
  const out = {...data}
  for (const [k, v] of Object.entries(known)) if (missing(out[k]) && !missing(v)) out[k] = v
  return out
}

/**
 * The state a 2XX answer without one means, by the spec's tables: a move approve's 201 is settled
 * and its 207 approved; a cancel canceled; a transfer approve approved (created -> approved). A
 * transfer create's state is not shown for a 201, and a 202 is accepted while processing goes on.
 */
function stateOf(p: Plan, status: number): string | undefined {
  switch (p.request.kind) {
    case 'move.approve':
      return status === 201 ? 'settled' : status === 207 ? 'approved' : undefined
    case 'move.cancel':
      return 'canceled'
    case 'transfer.approve':
      return 'approved'
    default:
      return undefined
  }
}

/** The resource an answer describes, completed from what is known; `data` as the client read it (undefined: no body). */
export function answered(p: Plan, status: number, data: Obj | undefined): Obj {
  const r = p.request
  const base: Obj = data ?? {}
  const state = stateOf(p, status)
  switch (r.kind) {
    case 'move.approve':
    case 'move.cancel': {
      const k = p.recorded
      return fill(base, {id: r.id, status: state, from_subaccount_id: k?.from ?? p.audit.from, to_subaccount_id: k?.to ?? p.audit.to})
    }
    case 'transfer.approve':
      return fill(base, {
        id: r.id,
        status: state,
        from_account_id: p.audit.from,
        to_account_id: p.audit.to,
        amount_in_minor_units: p.audit.amount_in_minor_units,
        currency_code: p.audit.currency_code,
      })
    case 'transfer.create':
      // The service accepted exactly this request: its route, amount, currency and rail are known.
      return fill(base, {
        from_account_id: r.from,
        to_account_id: r.to,
        amount_in_minor_units: p.expected?.amount_in_minor_units,
        currency_code: p.expected?.currency_code,
        rail: r.rail,
      })
    default:
      return base
  }
}

/** A movement as this machine's audit trail recorded it (a create it made earlier), in its resource's shape. */
export function fromTrail(p: Plan, k: Known): Obj {
  const money = {amount_in_minor_units: k.amount_in_minor_units ?? undefined, currency_code: k.currency_code ?? undefined}
  if (p.noun === 'simulated credit') return {bank_transaction_id: k.id ?? undefined, direction: 'credit', ...money}
  return {id: k.id ?? undefined, status: k.status ?? undefined, from_account_id: k.from ?? undefined, to_account_id: k.to ?? undefined, ...money}
}
