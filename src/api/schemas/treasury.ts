/**
 * Treasury accounts, bank-reported transactions and the sandbox inbound credit: request schemas
 * (applied by the emulator, and by the client before sending) and resource schemas (parsed by the
 * client, produced by the emulator).
 */
import * as z from 'zod/mini'
import {MinorTotal, MinorUnits, Timestamp, Uuid, drift, fillFrom, lowerStatus} from './common.js'

/** Longest accepted treasury account label (the spec shows none; see assumptions). */
export const MAX_LABEL_LENGTH = 100
/** `sender_info` of a simulated credit: at most 200 characters. */
export const MAX_SENDER_INFO_LENGTH = 200
export const SIMULATED_CREDIT_RAILS = ['standard_ach', 'wire'] as const

/** A `YYYY-MM-DD` that names a real calendar day. */
export const CalendarDate = z.string().check(
  z.regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date YYYY-MM-DD'),
  z.refine((s: string) => {
    const d = new Date(`${s}T00:00:00Z`)
    return !Number.isNaN(d.getTime()) && d.toISOString().startsWith(s)
  }, 'must be a real calendar date'),
)

const limit = z.coerce.number().check(z.int('limit must be an integer'), z.gte(1, 'limit must be 1 to 500'), z.lte(500, 'limit must be 1 to 500'))
const order = z.enum(['asc', 'desc'], {message: 'order must be asc or desc'})

export const TreasuryAccount = z.looseObject({
  id: z.string(),
  label: z.string(),
  currency_code: z.string(),
  last_four_digits: z.nullish(z.string()),
  created_at: z.optional(Timestamp),
  updated_at: z.optional(Timestamp),
})
export type TreasuryAccount = z.infer<typeof TreasuryAccount>

export const AccountsQuery = z.object({
  cursor: z.optional(z.string()),
  limit: z.optional(limit),
  order: z.optional(order),
})

export const UpdateLabelRequest = z.object({
  label: z
    .string({message: 'label is required and must be a string'})
    .check(z.trim(), z.minLength(1, 'label must not be empty'), z.maxLength(MAX_LABEL_LENGTH, `label must be at most ${MAX_LABEL_LENGTH} characters`)),
})
export type UpdateLabelRequest = z.infer<typeof UpdateLabelRequest>

/**
 * A bank-reported line. `sender_info`, `receiver_info`, `direction` and `transaction_date` are
 * omitted when the bank did not report them; they stay omitted after parsing.
 */
export const BankTransaction = drift(
  (o) => {
    const out = {...o}
    fillFrom(out, 'amount_in_minor_units', 'amount_in_cents')
    lowerStatus(out, 'direction')
    return out
  },
  z.looseObject({
    id: z.string(),
    amount_in_minor_units: MinorUnits,
    currency_code: z.string(),
    description: z.nullish(z.string()),
    sender_info: z.nullish(z.string()),
    receiver_info: z.nullish(z.string()),
    direction: z.nullish(z.string()),
    transaction_date: z.nullish(z.string()),
  }),
)
export type BankTransaction = z.infer<typeof BankTransaction>

export const BankTransactionsQuery = z.object({
  cursor: z.optional(z.string()),
  limit: z.optional(limit),
  order: z.optional(order),
  transaction_date_gte: z.optional(CalendarDate),
  transaction_date_lte: z.optional(CalendarDate),
})

/** POST /api/treasury/accounts/{account_id}/simulate-inbound-credit body. */
export const SimulateCreditRequest = z.object({
  rail: z.enum(SIMULATED_CREDIT_RAILS, {message: 'rail must be standard_ach or wire'}),
  amount_in_minor_units: z.int('amount_in_minor_units must be a whole number').check(z.positive('amount must be positive')),
  transaction_date: z.optional(CalendarDate),
  sender_info: z.optional(
    z.string({message: 'sender_info must be a string'}).check(z.maxLength(MAX_SENDER_INFO_LENGTH, `sender_info must be at most ${MAX_SENDER_INFO_LENGTH} characters`)),
  ),
  subaccount_id: z.optional(Uuid),
})
export type SimulateCreditRequest = z.infer<typeof SimulateCreditRequest>

export const SimulatedCredit = z.looseObject({
  bank_transaction_id: z.string(),
  amount_in_minor_units: MinorUnits,
  currency_code: z.string(),
  transaction_date: z.nullish(z.string()),
  direction: z.nullish(z.string()),
})
export type SimulatedCredit = z.infer<typeof SimulatedCredit>

/**
 * GET /api/treasury/accounts/{account_id}/balance (assumed shape, see assumptions.ts): the balance
 * the bank's lines give (`current`) and what remains once transfers out that are approved or
 * initiated but not yet booked are set aside (`available`), at `as_of`.
 */
export const TreasuryBalance = drift(
  (o) => {
    const out = {...o}
    fillFrom(out, 'current_balance_in_minor_units', 'current_balance_in_cents')
    fillFrom(out, 'available_balance_in_minor_units', 'available_balance_in_cents')
    return out
  },
  z.looseObject({
    // The spec shows no balance fields: only the current balance and its currency are needed; the
    // rest is shown when it comes and said to be unknown when it does not.
    account_id: z.optional(z.string()),
    currency_code: z.string(),
    // Running totals: past 2^53 the exact BigInt the client's JSON parser reads (within 64 bits).
    current_balance_in_minor_units: MinorTotal,
    available_balance_in_minor_units: z.nullish(MinorTotal),
    as_of: z.nullish(Timestamp),
  }),
)
export type TreasuryBalance = z.infer<typeof TreasuryBalance>
