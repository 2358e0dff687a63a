/** Column sets of the books' commands (balance, reconcile, statement, position). */
import type {Column} from '../output/index.js'

export const BALANCE_COLUMNS: Column[] = [
  {key: 'account_id', header: 'account', names: true},
  {key: 'current', header: 'current', money: {amount: 'current_balance_in_minor_units', currency: 'currency_code'}},
  {key: 'available', header: 'available', money: {amount: 'available_balance_in_minor_units', currency: 'currency_code'}},
  {key: 'as_of', header: 'as of'},
]
export const BALANCE_KNOWN: Column[] = [...BALANCE_COLUMNS, {key: 'currency_code'}, {key: 'current_balance_in_minor_units'}, {key: 'available_balance_in_minor_units'}]

const RECONCILE_DATE: Column = {key: 'date'}
const RECONCILE_KIND: Column = {key: 'kind', status: true}
/** Each side in its own currency: a transfer's amount is never the bank line's. */
const RECONCILE_AMOUNT: Column = {key: 'amount', money: {amount: 'amount_in_minor_units', currency: 'currency_code'}}
const RECONCILE_BANK_AMOUNT: Column = {key: 'bank_amount', header: 'bank amount', money: {amount: 'bank_amount_in_minor_units', currency: 'bank_currency_code'}}
const RECONCILE_REST: Column[] = [{key: 'counterparty', words: true}, {key: 'status'}, {key: 'resolution', get: (r) => (r.resolution as {label?: string} | null)?.label ?? ''}]

export const RECONCILE_COLUMNS: Column[] = [
  RECONCILE_DATE,
  RECONCILE_KIND,
  RECONCILE_AMOUNT,
  // The key is what `reconcile resolve` takes: kept whole, before what narrower tables leave out.
  {key: 'key'},
  {key: 'direction'},
  RECONCILE_BANK_AMOUNT,
  ...RECONCILE_REST,
]
/**
 * A table fitted to a terminal: the short key (what `reconcile resolve` also takes), and the bank's
 * amount beside the expected one, so that 80 columns show kind, date, both amounts and the key.
 */
export const RECONCILE_FITTED_COLUMNS: Column[] = [
  RECONCILE_DATE,
  RECONCILE_KIND,
  RECONCILE_AMOUNT,
  {key: 'key', get: (r) => r.short_key ?? r.key},
  RECONCILE_BANK_AMOUNT,
  {key: 'direction'},
  ...RECONCILE_REST,
]
export const RECONCILE_KNOWN: Column[] = [
  ...RECONCILE_COLUMNS,
  {key: 'short_key', header: 'short key'},
  {key: 'bank_currency_code'},
  {key: 'expected_currency_code'},
  {key: 'exception'},
  {key: 'bank_transaction_id'},
  {key: 'bank_date'},
  {key: 'bank_description'},
  {key: 'source'},
  {key: 'expected_id'},
  {key: 'expected_date'},
  {key: 'rail'},
  {key: 'gap_days'},
  {key: 'amount_in_minor_units'},
  {key: 'currency_code'},
]

export const DECISION_COLUMNS: Column[] = [{key: 'key'}, {key: 'label'}, {key: 'note'}, {key: 'decided_at', header: 'decided'}, {key: 'profile'}, {key: 'replaced'}]

/** A statement's rows: the opening balance, each line, the closing balance. */
export const STATEMENT_COLUMNS: Column[] = [
  {key: 'row'},
  {key: 'date'},
  {key: 'direction'},
  {key: 'amount', money: {amount: 'signed_amount_in_minor_units', currency: 'currency_code'}},
  {key: 'balance', money: {amount: 'balance_in_minor_units', currency: 'currency_code'}},
  {key: 'description', words: true},
  {key: 'counterparty', words: true},
  {key: 'reconciliation', status: true},
  {key: 'resolution'},
  // The line ids are data (csv and json keep them); a table at 80 columns gives them up first.
  {key: 'id', yields: true},
]
export const STATEMENT_KNOWN: Column[] = [...STATEMENT_COLUMNS, {key: 'source'}, {key: 'amount_in_minor_units'}, {key: 'balance_in_minor_units'}, {key: 'signed_amount_in_minor_units'}, {key: 'currency_code'}]

export const POSITION_COLUMNS: Column[] = [
  {key: 'row', words: true},
  {key: 'name', words: true},
  {key: 'balance', money: {amount: 'balance_in_minor_units', currency: 'currency_code'}},
  {key: 'projected', money: {amount: 'projected_balance_in_minor_units', currency: 'currency_code'}},
  {key: 'committed_out', header: 'committed out', money: {amount: 'committed_outflows_in_minor_units', currency: 'currency_code'}},
  {key: 'committed_in', header: 'committed in', money: {amount: 'committed_inflows_in_minor_units', currency: 'currency_code'}},
  {key: 'scheduled_out', header: 'scheduled out', money: {amount: 'scheduled_outflows_in_minor_units', currency: 'currency_code'}},
  {key: 'scheduled_in', header: 'scheduled in', money: {amount: 'scheduled_inflows_in_minor_units', currency: 'currency_code'}},
]
/** With --reporting-currency: the projected balance converted (indicative). */
export const POSITION_REPORTING_COLUMN: Column = {key: 'reporting_projected', header: 'projected (indicative)', money: {amount: 'reporting_projected_in_minor_units', currency: 'reporting_currency'}}
export const POSITION_KNOWN: Column[] = [...POSITION_COLUMNS, {key: 'id'}, POSITION_REPORTING_COLUMN, {key: 'currency_code'}, {key: 'label'}]

export const SCHEDULE_COLUMNS: Column[] = [
  {key: 'date'},
  {key: 'name', words: true},
  {key: 'outflows', money: {amount: 'outflows_in_minor_units', currency: 'currency_code'}},
  {key: 'inflows', money: {amount: 'inflows_in_minor_units', currency: 'currency_code'}},
  {key: 'account_id', header: 'account'},
]

export const POSITION_DIFF_COLUMNS: Column[] = [
  {key: 'label', header: 'name', words: true},
  {key: 'field'},
  {key: 'before', money: {amount: 'before', currency: 'currency_code'}},
  {key: 'after', money: {amount: 'after', currency: 'currency_code'}},
  {key: 'change', money: {amount: 'change', currency: 'currency_code'}},
]
