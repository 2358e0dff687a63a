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
