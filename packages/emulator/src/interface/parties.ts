/** Payers, payees, payins and session tokens (spec: Payer and payee, Payin, Session tokens). */
import * as z from 'zod/mini'
import {Limit, Order, Uuid, calendarDate} from './common.js'

export const COUNTRY_CODES = ['US', 'GB', 'IN'] as const

/** A date of the party lists and of payins. */
export const CalendarDate = calendarDate('must be a calendar date YYYY-MM-DD')

const queryBoolean = (name: string) =>
  z.pipe(
    z.enum(['true', 'false'], {message: `${name} must be true or false`}),
    z.transform((v: 'true' | 'false') => v === 'true'),
  )

/** GET /api/payers and GET /api/payees: identical parameters (`limit` up to 500, the parameter definition). */
export const PartyListQuery = z.object({
  cursor: z.optional(z.string()),
  limit: z.optional(Limit),
  order: z.optional(Order),
  email: z.optional(z.string()),
  name: z.optional(z.string()),
  has_default: z.optional(queryBoolean('has_default')),
  created_at_gte: z.optional(CalendarDate),
  created_at_lte: z.optional(CalendarDate),
})
export type PartyListQuery = z.infer<typeof PartyListQuery>

export const PAYIN_STATUSES = ['created', 'approved', 'initiated', 'debited', 'settled', 'failed', 'canceled'] as const
export type PayinStatus = (typeof PAYIN_STATUSES)[number]
/** The spec's example rails of a payin. */
export const PAYIN_RAILS = ['standard_ach', 'same_day_ach'] as const

export const PARTY_TYPES = ['payer', 'payee', 'external'] as const
export type PartyType = (typeof PARTY_TYPES)[number]

/** POST /api/session-tokens: `payee_id` (UUID). */
export const PayeeSessionTokenRequest = z.object({payee_id: Uuid})

/** POST /api/session-tokens/party: `party_id` (UUID) and `party_type`. */
export const PartySessionTokenRequest = z.object({
  party_id: Uuid,
  party_type: z.enum(PARTY_TYPES, {message: `party_type must be one of ${PARTY_TYPES.join(', ')}`}),
})
