/**
 * Treasury data of the seeded world, beyond each entity's main USD account: the main test entity
 * also holds simulated GBP and INR accounts, one USD account that is NOT simulated (so that the
 * sandbox credit's 400 paths can be exercised), and a few bank-reported lines on its main account,
 * some of them without the fields the bank did not report.
 */
import type {Entity, NewBankTransaction, Store} from './index.js'

export const EXTRA_TEST_ACCOUNTS = [
  {label: 'GBP operating account', currency_code: 'GBP', simulated: true},
  {label: 'INR operating account', currency_code: 'INR', simulated: true},
  {label: 'USD reserve account (bank-held, not simulated)', currency_code: 'USD', simulated: false},
] as const

export const SEED_BANK_LINES: readonly NewBankTransaction[] = [
  {amount_in_minor_units: 2_500_000, currency_code: 'USD', description: 'WIRE IN', sender_info: 'Globex Corporation', direction: 'credit', transaction_date: '2026-01-05'},
  {amount_in_minor_units: 120_000, currency_code: 'USD', description: 'ACH DEBIT', receiver_info: 'Initech LLC payroll', direction: 'debit', transaction_date: '2026-01-07'},
  {amount_in_minor_units: 50_000, currency_code: 'USD', description: 'BOOK TRANSFER', direction: 'credit', transaction_date: '2026-01-10'},
  {amount_in_minor_units: 999, currency_code: 'USD', description: 'MISCELLANEOUS FEE'},
  {amount_in_minor_units: 75_050, currency_code: 'USD', description: 'ACH CREDIT', sender_info: 'Umbrella Corp', direction: 'credit'},
  {amount_in_minor_units: 4_500, currency_code: 'USD', description: 'ACH DEBIT', receiver_info: 'Stark Utilities', direction: 'debit', transaction_date: '2026-01-15'},
]

/** Adds the treasury seed of one entity (only the main test entity gets more than its main account). */
export function seedTreasury(store: Store, entity: Entity): void {
  if (entity.role !== 'test') return
  const main = entity.mainAccount()
  for (const a of EXTRA_TEST_ACCOUNTS) store.treasury.createAccount(entity, {...a})
  if (main) for (const line of SEED_BANK_LINES) store.treasury.addBankTransaction(entity, main.id, {...line})
}
