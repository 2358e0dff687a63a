/**
 * Account transfers between treasury accounts (spec: Account transfers): the rails and states,
 * the list filters, the conversion estimate and rail options queries, and the create body (its
 * shape "not shown": source and destination account ids, amount, currency, rail, auto_approve).
 */
import * as z from 'zod/mini'
import {CalendarDate, Limit, Order, repeated} from './common.js'

export const TRANSFER_RAILS = ['instant_card', 'instant_bank', 'same_day_ach', 'standard_ach', 'wire'] as const
export type TransferRail = (typeof TRANSFER_RAILS)[number]

/** The three grouped literals the rail filter also takes ("the enum also carries three grouped literals"). */
export const RAIL_GROUPS = {
  ach: ['same_day_ach', 'standard_ach'],
  instant: ['instant_card', 'instant_bank'],
  all: [...TRANSFER_RAILS],
} as const satisfies Record<string, readonly TransferRail[]>
const RAIL_FILTER_VALUES = [...TRANSFER_RAILS, 'ach', 'instant', 'all'] as const

export const ACH_RAILS: readonly TransferRail[] = RAIL_GROUPS.ach
export const INSTANT_RAILS: readonly TransferRail[] = RAIL_GROUPS.instant

export const TRANSFER_STATUSES = ['created', 'approved', 'initiated', 'debited', 'settled', 'failed', 'canceled'] as const
export type TransferStatus = (typeof TRANSFER_STATUSES)[number]
/** States a transfer never leaves. */
export const FINAL_TRANSFER_STATUSES: readonly string[] = ['settled', 'failed', 'canceled']

/** The concrete rails a rail filter names (groups expanded). */
export function expandRails(values: readonly string[]): Set<TransferRail> {
  const out = new Set<TransferRail>()
  for (const v of values) {
    const group = (RAIL_GROUPS as Record<string, readonly TransferRail[]>)[v]
    for (const r of group ?? [v as TransferRail]) out.add(r)
  }
  return out
}

const accountId = (name: string) => z.string({message: `${name} is required`}).check(z.minLength(1, `${name} is required`))

/** The create body. `client_metadata` is a map string -> any (the metadata limits are stated for moves only). */
export const TransferCreateRequest = z
  .object({
    from_account_id: accountId('from_account_id'),
    to_account_id: accountId('to_account_id'),
    amount_in_minor_units: z.int('amount_in_minor_units must be a whole number').check(z.positive('amount must be positive')),
    currency_code: z.string({message: 'currency_code is required'}).check(z.regex(/^[A-Z]{3}$/, 'currency_code must be an upper-case ISO 4217 code')),
    rail: z.enum(TRANSFER_RAILS, {message: `unsupported rail: use one of ${TRANSFER_RAILS.join(', ')}`}),
    auto_approve: z.optional(z.boolean({message: 'auto_approve must be a boolean'})),
    scheduled_date: z.nullish(CalendarDate),
    client_metadata: z.optional(z.record(z.string(), z.unknown())),
  })
  .check(
    z.superRefine((b, ctx) => {
      if (b.from_account_id && b.from_account_id === b.to_account_id) ctx.addIssue({code: 'custom', path: ['to_account_id'], message: 'invalid account pair: to_account_id must differ from from_account_id'})
    }),
  )

const int = (name: string) => z.optional(z.coerce.number({message: `${name} must be an integer`}).check(z.int(`${name} must be an integer`)))
const datetime = (name: string) => z.optional(z.iso.datetime({offset: true, message: `${name} must be an ISO 8601 date-time`}))

/** The list query: page, repeatable `account_id`, `rail` and `status` (OR), amount and `created_at` bounds. */
export const TransfersQuery = z.object({
  cursor: z.optional(z.string()),
  limit: z.optional(Limit),
  order: z.optional(Order),
  account_id: repeated(z.string().check(z.minLength(1, 'account_id must not be empty'))),
  amount_in_minor_units_gte: int('amount_in_minor_units_gte'),
  amount_in_minor_units_lte: int('amount_in_minor_units_lte'),
  created_at_gte: datetime('created_at_gte'),
  created_at_lte: datetime('created_at_lte'),
  rail: repeated(z.enum(RAIL_FILTER_VALUES, {message: `rail must be one of ${RAIL_FILTER_VALUES.join(', ')}`})),
  status: repeated(z.enum(TRANSFER_STATUSES, {message: `status must be one of ${TRANSFER_STATUSES.join(', ')}`})),
})

/** The conversion-estimate query: both accounts and a positive whole amount in the source's minor units. */
export const ConversionEstimateQuery = z.object({
  from_account_id: accountId('from_account_id'),
  to_account_id: accountId('to_account_id'),
  amount_in_minor_units: z.pipe(
    z.pipe(
      z.string({message: 'amount_in_minor_units is required'}).check(z.regex(/^\d+$/, 'amount_in_minor_units must be a positive whole number')),
      z.transform((s: string) => Number(s)),
    ),
    z.number().check(z.int(), z.positive('amount_in_minor_units must be positive'), z.lte(Number.MAX_SAFE_INTEGER, 'amount_in_minor_units is too large')),
  ),
})

export const RailOptionsQuery = z.object({from_account_id: accountId('from_account_id'), to_account_id: accountId('to_account_id')})
