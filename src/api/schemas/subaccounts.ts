import * as z from 'zod/mini'
import {MinorTotal, MinorUnits, Timestamp, drift, fillFrom, lowerStatus} from './common.js'

export const SubaccountCreateRequest = z.object({
  name: z
    .string({message: 'name is required'})
    .check(z.minLength(1, 'name must be 1 to 100 characters'), z.maxLength(100, 'name must be 1 to 100 characters')),
})
export type SubaccountCreateRequest = z.infer<typeof SubaccountCreateRequest>

/**
 * Subaccount, with its drift absorbed: legacy `total_*_cents` fill the canonical totals, a lone
 * `routing_number` fills `routing_numbers.ach` (and wire, which equals ach unless configured).
 */
export const Subaccount = drift(
  (o) => {
    const out = {...o}
    fillFrom(out, 'total_incoming_in_minor_units', 'total_incoming_cents')
    fillFrom(out, 'total_outgoing_in_minor_units', 'total_outgoing_cents')
    if (!out.routing_numbers && typeof out.routing_number === 'string') {
      out.routing_numbers = {ach: out.routing_number, wire: out.routing_number}
    }
    return out
  },
  z.looseObject({
    id: z.string(),
    name: z.string(),
    account_number: z.nullish(z.string()),
    routing_number: z.nullish(z.string()),
    routing_numbers: z.nullish(z.looseObject({ach: z.nullish(z.string()), wire: z.nullish(z.string())})),
    total_incoming_in_minor_units: z._default(MinorTotal, 0),
    total_outgoing_in_minor_units: z._default(MinorTotal, 0),
    currency_code: z.nullish(z.string()),
    created_at: z.optional(Timestamp),
    updated_at: z.optional(Timestamp),
  }),
)
export type Subaccount = z.infer<typeof Subaccount>

/** Activity item: USD rows carry only `amount_in_cents`; the canonical amount is filled from it. */
export const ActivityItem = drift(
  (o) => {
    const out = {...o}
    fillFrom(out, 'amount_in_minor_units', 'amount_in_cents')
    lowerStatus(out, 'direction')
    lowerStatus(out, 'source')
    return out
  },
  z.looseObject({
    id: z.string(),
    source: z.string(),
    direction: z.string(),
    amount_in_cents: z.nullish(MinorUnits),
    amount_in_minor_units: MinorUnits,
    effective_at: Timestamp,
    currency_code: z.nullish(z.string()),
  }),
)
export type ActivityItem = z.infer<typeof ActivityItem>

export const ActivityQuery = z.object({
  cursor: z.optional(z.string()),
  limit: z.optional(z.coerce.number().check(z.int('limit must be an integer'), z.gte(1, 'limit must be 1 to 500'), z.lte(500, 'limit must be 1 to 500'))),
  order: z.optional(z.enum(['asc', 'desc'], {message: 'order must be asc or desc'})),
  direction: z.optional(z.enum(['credit', 'debit'], {message: 'direction must be credit or debit'})),
  amount_gte: z.optional(z.coerce.number().check(z.int('amount_gte must be an integer'))),
  amount_lte: z.optional(z.coerce.number().check(z.int('amount_lte must be an integer'))),
  effective_at_gte: z.optional(z.iso.datetime({offset: true, message: 'effective_at_gte must be an ISO 8601 date-time'})),
  effective_at_lte: z.optional(z.iso.datetime({offset: true, message: 'effective_at_lte must be an ISO 8601 date-time'})),
})
export type ActivityQuery = z.infer<typeof ActivityQuery>

