/** Column sets per resource, shared by every command that renders that resource. */
import type {Column} from './index.js'
import {getPath} from './index.js'
import {isJsonInteger} from '../json.js'
import {formatMoney, subtractMinor} from '../money.js'

/** Incoming minus outgoing, exactly (in BigInt: totals may pass 2^53). */
function balanceOf(row: Record<string, unknown>): number | bigint | undefined {
  const inc = row.total_incoming_in_minor_units
  const out = row.total_outgoing_in_minor_units
  return isJsonInteger(inc) && isJsonInteger(out) ? subtractMinor(inc, out) : undefined
}

export const SUBACCOUNT_COLUMNS: Column[] = [
  {key: 'id'},
  {key: 'name'},
  {key: 'account_number', header: 'account'},
  {key: 'routing_numbers.ach', header: 'ach routing'},
  {key: 'routing_numbers.wire', header: 'wire routing'},
  {key: 'incoming', header: 'incoming', money: {amount: 'total_incoming_in_minor_units', currency: 'currency_code'}},
  {key: 'outgoing', header: 'outgoing', money: {amount: 'total_outgoing_in_minor_units', currency: 'currency_code'}},
  // Incoming minus outgoing; may be negative, since moves check no minimum source balance.
  {key: 'balance', header: 'balance', money: {amount: balanceOf, currency: 'currency_code'}},
  {key: 'created_at', header: 'created'},
]

export const ACTIVITY_COLUMNS: Column[] = [
  {key: 'id'},
  {key: 'effective_at', header: 'effective'},
  {key: 'direction'},
  {key: 'amount', money: {amount: 'amount_in_minor_units', currency: 'currency_code'}},
  {key: 'source'},
]

export const MOVE_COLUMNS: Column[] = [
  {key: 'id'},
  {key: 'status', status: true},
  {key: 'amount', money: {amount: 'amount_in_minor_units', currency: 'currency_code'}},
  {key: 'from_subaccount_id', header: 'from', names: true},
  {key: 'to_subaccount_id', header: 'to', names: true},
  {key: 'created_at', header: 'created'},
]

export const MOVE_KNOWN: Column[] = [...MOVE_COLUMNS, {key: 'status_recorded_at'}, {key: 'updated_at'}, {key: 'client_metadata'}]

/** Per-item results of bulk commands (approve several ids, import). */
export const RESULT_COLUMNS: Column[] = [
  {key: 'id'},
  {key: 'result', status: true},
  {key: 'status', get: (r) => (r.move as Record<string, unknown> | undefined)?.status ?? ''},
  {key: 'amount', money: {amount: 'move.amount_in_minor_units', currency: 'move.currency_code'}},
  {key: 'message', get: (r) => r.message ?? ''},
]

/** Payers and payees (same field set). */
export const PARTY_COLUMNS: Column[] = [
  {key: 'id'},
  {key: 'name'},
  {key: 'email'},
  {key: 'country_code', header: 'country'},
  {key: 'city'},
  {key: 'created_at', header: 'created'},
]

export const PARTY_KNOWN: Column[] = [
  ...PARTY_COLUMNS,
  {key: 'country_sub_division', header: 'subdivision'},
  {key: 'address_line', header: 'address'},
  {key: 'postal_code', header: 'postal code'},
  {key: 'client_metadata'},
  {key: 'updated_at'},
]

export const PAYIN_COLUMNS: Column[] = [
  {key: 'id'},
  {key: 'status', status: true},
  {key: 'amount', money: {amount: 'amount_in_minor_units', currency: 'currency_code'}},
  {key: 'payer', get: (r) => getPath(r, 'payin_metadata.payer.name') ?? ''},
  {key: 'payer_email', header: 'payer email', get: (r) => getPath(r, 'payin_metadata.payer.email') ?? ''},
  {key: 'rail'},
  {key: 'scheduled_date', header: 'scheduled'},
  {key: 'created_at', header: 'created'},
]

export const PAYIN_KNOWN: Column[] = [
  ...PAYIN_COLUMNS,
  {key: 'payer_id'},
  {key: 'account_last_four', header: 'account', get: (r) => getPath(r, 'payin_metadata.payment_method.account_last_four') ?? ''},
  {key: 'routing_number', header: 'routing', get: (r) => getPath(r, 'payin_metadata.payment_method.routing_number') ?? ''},
  {key: 'end_to_end_id', header: 'end to end id', get: (r) => getPath(r, 'payin_metadata.payment_method.end_to_end_id') ?? ''},
  {key: 'status_recorded_at'},
  {key: 'client_metadata'},
  {key: 'updated_at'},
]

/** Session tokens: the token, its absolute expiry and its scopes. */
export const TOKEN_COLUMNS: Column[] = [
  {key: 'token'},
  {key: 'expires_at', header: 'expires'},
  {key: 'scopes', get: (r) => (Array.isArray(r.scopes) ? r.scopes.join(' ') : '')},
]

export const TOKEN_KNOWN: Column[] = [
  ...TOKEN_COLUMNS,
  {key: 'expires_in_seconds'},
  {key: 'party', get: (r) => getPath(r, 'claims.sub') ?? ''},
  {key: 'party_type', header: 'party type', get: (r) => getPath(r, 'claims.party_type') ?? ''},
]

export const TREASURY_ACCOUNT_COLUMNS: Column[] = [
  {key: 'id'},
  {key: 'label'},
  {key: 'currency_code', header: 'currency'},
  {key: 'last_four_digits', header: 'last four'},
  {key: 'created_at', header: 'created'},
]

export const TREASURY_ACCOUNT_KNOWN: Column[] = [...TREASURY_ACCOUNT_COLUMNS, {key: 'updated_at'}]

/** Bank lines: fields the bank did not report show as empty cells. */
export const BANK_TRANSACTION_COLUMNS: Column[] = [
  {key: 'id'},
  {key: 'transaction_date', header: 'date'},
  {key: 'direction'},
  {key: 'amount', money: {amount: 'amount_in_minor_units', currency: 'currency_code'}},
  {key: 'description'},
  {key: 'sender_info', header: 'sender'},
  {key: 'receiver_info', header: 'receiver'},
]

export const SIMULATED_CREDIT_COLUMNS: Column[] = [
  {key: 'bank_transaction_id', header: 'bank transaction'},
  {key: 'amount', money: {amount: 'amount_in_minor_units', currency: 'currency_code'}},
  {key: 'transaction_date', header: 'date'},
  {key: 'direction'},
]

export const TRANSFER_COLUMNS: Column[] = [
  {key: 'id'},
  {key: 'status', status: true},
  {key: 'amount', money: {amount: 'amount_in_minor_units', currency: 'currency_code'}},
  {key: 'rail'},
  {key: 'from_account_id', header: 'from', names: true},
  {key: 'to_account_id', header: 'to', names: true},
  {key: 'scheduled_date', header: 'scheduled'},
  {key: 'created_at', header: 'created'},
]

export const TRANSFER_KNOWN: Column[] = [...TRANSFER_COLUMNS, {key: 'updated_at'}, {key: 'client_metadata'}]

export const ESTIMATE_COLUMNS: Column[] = [
  {key: 'source', money: {amount: 'source_amount_in_minor_units', currency: 'source_currency_code'}},
  {key: 'destination', money: {amount: 'destination_amount_in_minor_units', currency: 'destination_currency_code'}},
  {key: 'indicative_fx_rate', header: 'indicative rate'},
]

export const RAIL_OPTIONS_COLUMNS: Column[] = [
  {key: 'supported_rails', header: 'supported rails', get: (r) => (Array.isArray(r.supported_rails) ? r.supported_rails.join(', ') : '')},
]

export const WEBHOOK_COLUMNS: Column[] = [
  {key: 'id'},
  {key: 'url'},
  {key: 'is_active', header: 'active', status: true},
  {key: 'event_types', header: 'event types', get: (r) => (Array.isArray(r.event_types) ? r.event_types.join(' ') : '')},
  {key: 'description'},
  {key: 'created_at', header: 'created'},
]

export const WEBHOOK_KNOWN: Column[] = [...WEBHOOK_COLUMNS, {key: 'updated_at', header: 'updated'}]

/** The create response: the configuration and its signing secret, shown this once. */
export const WEBHOOK_CREATED_COLUMNS: Column[] = [...WEBHOOK_COLUMNS, {key: 'secret'}]

export const EVENT_TYPE_COLUMNS: Column[] = [{key: 'type'}, {key: 'description'}]

/** `webhooks rotate-secret`: the twin, its secret when just created, and what became of the old one. */
export const ROTATION_COLUMNS: Column[] = [
  {key: 'old_id', header: 'old endpoint'},
  {key: 'new_id', header: 'new endpoint'},
  {key: 'url'},
  {key: 'secret'},
  {key: 'old_deleted', header: 'old deleted'},
]

/** A profile's limits as stored (max-amount in minor units per currency, allowed destinations). */
export interface ProfileLimits {
  max_amount?: Record<string, number>
  daily_max?: Record<string, number>
  allowed_destinations?: string[]
  approval?: {policy: string; threshold?: Record<string, number>}
}

/**
 * Limits as an operator reads them: money as money (`max 5,000.00 USD`), destinations counted or,
 * with `ids`, listed. JSON keeps the stored shape (max_amount in minor units per currency, as
 * every amount in JSON output is).
 */
export function formatLimits(l: ProfileLimits | null | undefined, opts: {ids?: boolean} = {}): string {
  if (!l) return ''
  const parts = Object.entries(l.max_amount ?? {}).map(([cur, v]) => `max ${formatMoney(v, cur)}`)
  parts.push(...Object.entries(l.daily_max ?? {}).map(([cur, v]) => `daily ${formatMoney(v, cur)}`))
  if (l.approval) {
    const over = Object.entries(l.approval.threshold ?? {}).map(([cur, v]) => formatMoney(v, cur))
    parts.push(`${l.approval.policy}${over.length ? ` over ${over.join(', ')}` : ''}`)
  }
  const dests = l.allowed_destinations ?? []
  if (dests.length) parts.push(opts.ids ? `allowed destinations: ${dests.join(', ')}` : `${dests.length} allowed destination${dests.length === 1 ? '' : 's'}`)
  return parts.join('; ')
}

const describeLimits = (row: Record<string, unknown>) => formatLimits(row.limits as ProfileLimits | null)

export const PROFILE_COLUMNS: Column[] = [
  {key: 'name'},
  {key: 'active', get: (r) => (r.active ? '*' : '')},
  {key: 'mode', get: (r) => String(r.mode).toUpperCase()},
  {key: 'api_key', header: 'key'},
  {key: 'base_url', header: 'base url'},
  {key: 'limits', get: describeLimits},
]

/** An approval request (`approvals request`). */
export const APPROVAL_REQUEST_COLUMNS: Column[] = [
  {key: 'kind'},
  {key: 'id'},
  {key: 'amount', money: {amount: 'amount_in_minor_units', currency: 'currency_code'}},
  {key: 'from'},
  {key: 'to'},
  {key: 'created_by', header: 'created by', get: (r) => {
    const o = r.created_by as {operator: string | null; os_user: string; host: string}
    return `${o.operator ? `${o.operator} ` : ''}(${o.os_user}@${o.host})`
  }},
  {key: 'audit_record', header: 'record', get: (r) => String(r.audit_record).slice(0, 12)},
]
