/** Column sets per resource, shared by every command that renders that resource. */
import type {Column} from './index.js'

export const SUBACCOUNT_COLUMNS: Column[] = [
  {key: 'id'},
  {key: 'name'},
  {key: 'account_number', header: 'account'},
  {key: 'routing_numbers.ach', header: 'ach routing'},
  {key: 'routing_numbers.wire', header: 'wire routing'},
  {key: 'incoming', header: 'incoming', money: {amount: 'total_incoming_in_minor_units', currency: 'currency_code'}},
  {key: 'outgoing', header: 'outgoing', money: {amount: 'total_outgoing_in_minor_units', currency: 'currency_code'}},
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
  {key: 'from_subaccount_id', header: 'from'},
  {key: 'to_subaccount_id', header: 'to'},
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
  {key: 'from_account_id', header: 'from'},
  {key: 'to_account_id', header: 'to'},
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
