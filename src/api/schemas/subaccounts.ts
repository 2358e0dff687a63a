import {z} from 'zod'
import {MinorUnits, Timestamp, drift, fillFrom, lowerStatus} from './common.js'

export const SubaccountCreateRequest = z.object({
  name: z
    .string({message: 'name is required'})
    .min(1, 'name must be 1 to 100 characters')
    .max(100, 'name must be 1 to 100 characters'),
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
    account_number: z.string().nullish(),
    routing_number: z.string().nullish(),
    routing_numbers: z.looseObject({ach: z.string().nullish(), wire: z.string().nullish()}).nullish(),
    total_incoming_in_minor_units: MinorUnits.default(0),
    total_outgoing_in_minor_units: MinorUnits.default(0),
    currency_code: z.string().nullish(),
    created_at: Timestamp.optional(),
    updated_at: Timestamp.optional(),
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
    amount_in_cents: MinorUnits.nullish(),
    amount_in_minor_units: MinorUnits,
    effective_at: Timestamp,
    currency_code: z.string().nullish(),
  }),
)
export type ActivityItem = z.infer<typeof ActivityItem>

export const ActivityQuery = z.object({
  cursor: z.string().optional(),
  limit: z.coerce.number().int('limit must be an integer').min(1, 'limit must be 1 to 500').max(500, 'limit must be 1 to 500').optional(),
  order: z.enum(['asc', 'desc'], {message: 'order must be asc or desc'}).optional(),
  direction: z.enum(['credit', 'debit'], {message: 'direction must be credit or debit'}).optional(),
  amount_gte: z.coerce.number().int('amount_gte must be an integer').optional(),
  amount_lte: z.coerce.number().int('amount_lte must be an integer').optional(),
  effective_at_gte: z.iso.datetime({offset: true, message: 'effective_at_gte must be an ISO 8601 date-time'}).optional(),
  effective_at_lte: z.iso.datetime({offset: true, message: 'effective_at_lte must be an ISO 8601 date-time'}).optional(),
})
export type ActivityQuery = z.infer<typeof ActivityQuery>

