/**
 * Treasury accounts, bank-reported transactions and the sandbox inbound credit (spec: Treasury
 * accounts), and the balance the emulator serves for the operation the spec names without a shape.
 */
import * as z from 'zod/mini'
import {CalendarDate, PageQuery, Uuid} from './common.js'

/** Longest label taken (the spec shows none). */
export const MAX_LABEL_LENGTH = 100
/** `sender_info` of a simulated credit: at most 200 characters. */
export const MAX_SENDER_INFO_LENGTH = 200
export const SIMULATED_CREDIT_RAILS = ['standard_ach', 'wire'] as const

export const AccountsQuery = z.object(PageQuery)

/** `label`: required string (trimmed, not empty). */
export const UpdateLabelRequest = z.object({
  label: z
    .string({message: 'label is required and must be a string'})
    .check(z.trim(), z.minLength(1, 'label must not be empty'), z.maxLength(MAX_LABEL_LENGTH, `label must be at most ${MAX_LABEL_LENGTH} characters`)),
})

/** The bank-transactions query: page and inclusive `transaction_date` bounds. */
export const BankTransactionsQuery = z.object({
  ...PageQuery,
  transaction_date_gte: z.optional(CalendarDate),
  transaction_date_lte: z.optional(CalendarDate),
})

/** The simulate-inbound-credit body: `rail`, a positive whole amount, and the optional date, sender and subaccount. */
export const SimulateCreditRequest = z.object({
  rail: z.enum(SIMULATED_CREDIT_RAILS, {message: 'rail must be standard_ach or wire'}),
  amount_in_minor_units: z.int('amount_in_minor_units must be a whole number').check(z.positive('amount must be positive')),
  transaction_date: z.optional(CalendarDate),
  sender_info: z.optional(z.string({message: 'sender_info must be a string'}).check(z.maxLength(MAX_SENDER_INFO_LENGTH, `sender_info must be at most ${MAX_SENDER_INFO_LENGTH} characters`))),
  subaccount_id: z.optional(Uuid),
})

/** The treasury balance the emulator answers with: what the account's bank lines give, and what remains after approved transfers out. */
export interface TreasuryBalance {
  account_id: string
  currency_code: string
  current_balance_in_minor_units: number | bigint
  available_balance_in_minor_units: number | bigint | null
  as_of: string
}
