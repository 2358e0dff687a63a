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
