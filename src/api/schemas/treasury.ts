/**
 * Treasury accounts, bank-reported transactions and the sandbox inbound credit: request schemas
 * (applied by the emulator, and by the client before sending) and resource schemas (parsed by the
 * client, produced by the emulator).
 */
import {z} from 'zod'
import {MinorUnits, Timestamp, Uuid, drift, fillFrom, lowerStatus} from './common.js'

/** Longest accepted treasury account label (the spec shows none; see assumptions). */
export const MAX_LABEL_LENGTH = 100
/** `sender_info` of a simulated credit: at most 200 characters. */
export const MAX_SENDER_INFO_LENGTH = 200
export const SIMULATED_CREDIT_RAILS = ['standard_ach', 'wire'] as const

/** A `YYYY-MM-DD` that names a real calendar day. */
export const CalendarDate = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date YYYY-MM-DD')
  .refine((s) => {
    const d = new Date(`${s}T00:00:00Z`)
    return !Number.isNaN(d.getTime()) && d.toISOString().startsWith(s)
  }, 'must be a real calendar date')

const limit = z.coerce.number().int('limit must be an integer').min(1, 'limit must be 1 to 500').max(500, 'limit must be 1 to 500')
const order = z.enum(['asc', 'desc'], {message: 'order must be asc or desc'})

export const TreasuryAccount = z.looseObject({
  id: z.string(),
  label: z.string(),
  currency_code: z.string(),
  last_four_digits: z.string().nullish(),
  created_at: Timestamp.optional(),
  updated_at: Timestamp.optional(),
})
export type TreasuryAccount = z.infer<typeof TreasuryAccount>

export const AccountsQuery = z.object({
  cursor: z.string().optional(),
  limit: limit.optional(),
  order: order.optional(),
})

export const UpdateLabelRequest = z.object({
  label: z
    .string({message: 'label is required and must be a string'})
    .trim()
    .min(1, 'label must not be empty')
    .max(MAX_LABEL_LENGTH, `label must be at most ${MAX_LABEL_LENGTH} characters`),
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
    description: z.string().nullish(),
    sender_info: z.string().nullish(),
    receiver_info: z.string().nullish(),
    direction: z.string().nullish(),
    transaction_date: z.string().nullish(),
  }),
)
export type BankTransaction = z.infer<typeof BankTransaction>

export const BankTransactionsQuery = z.object({
  cursor: z.string().optional(),
  limit: limit.optional(),
  order: order.optional(),
  transaction_date_gte: CalendarDate.optional(),
  transaction_date_lte: CalendarDate.optional(),
})

/** POST /api/treasury/accounts/{account_id}/simulate-inbound-credit body. */
export const SimulateCreditRequest = z.object({
  rail: z.enum(SIMULATED_CREDIT_RAILS, {message: 'rail must be standard_ach or wire'}),
  amount_in_minor_units: z.int('amount_in_minor_units must be a whole number').positive('amount must be positive'),
  transaction_date: CalendarDate.optional(),
  sender_info: z.string({message: 'sender_info must be a string'}).max(MAX_SENDER_INFO_LENGTH, `sender_info must be at most ${MAX_SENDER_INFO_LENGTH} characters`).optional(),
  subaccount_id: Uuid.optional(),
})
export type SimulateCreditRequest = z.infer<typeof SimulateCreditRequest>

export const SimulatedCredit = z.looseObject({
  bank_transaction_id: z.string(),
  amount_in_minor_units: MinorUnits,
  currency_code: z.string(),
  transaction_date: z.string().nullish(),
  direction: z.string().nullish(),
})
export type SimulatedCredit = z.infer<typeof SimulatedCredit>
