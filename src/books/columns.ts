/** Column sets of the books' commands (balance, reconcile, statement, position). */
import type {Column} from '../output/index.js'

export const BALANCE_COLUMNS: Column[] = [
  {key: 'account_id', header: 'account', names: true},
  {key: 'current', header: 'current', money: {amount: 'current_balance_in_minor_units', currency: 'currency_code'}},
  {key: 'available', header: 'available', money: {amount: 'available_balance_in_minor_units', currency: 'currency_code'}},
  {key: 'as_of', header: 'as of'},
]
export const BALANCE_KNOWN: Column[] = [...BALANCE_COLUMNS, {key: 'currency_code'}, {key: 'current_balance_in_minor_units'}, {key: 'available_balance_in_minor_units'}]
