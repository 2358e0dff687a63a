/** Subaccounts and their activity (spec: Subaccount, POST /api/subaccounts, GET .../activity). */
import * as z from 'zod/mini'
import {Limit, Order} from './common.js'

/** `name`: required, 1 to 100 characters. */
export const SubaccountCreateRequest = z.object({
  name: z.string({message: 'name is required'}).check(z.minLength(1, 'name must be 1 to 100 characters'), z.maxLength(100, 'name must be 1 to 100 characters')),
})

const integer = (name: string) => z.optional(z.coerce.number().check(z.int(`${name} must be an integer`)))
const datetime = (name: string) => z.optional(z.iso.datetime({offset: true, message: `${name} must be an ISO 8601 date-time`}))

/** The activity query: page, `direction`, amount and `effective_at` bounds. */
export const ActivityQuery = z.object({
  cursor: z.optional(z.string()),
  limit: z.optional(Limit),
  order: z.optional(Order),
  direction: z.optional(z.enum(['credit', 'debit'], {message: 'direction must be credit or debit'})),
  amount_gte: integer('amount_gte'),
  amount_lte: integer('amount_lte'),
  effective_at_gte: datetime('effective_at_gte'),
  effective_at_lte: datetime('effective_at_lte'),
})
