/**
 * Account transfers between treasury accounts: the create body (assumed shape, see
 * src/api/assumptions.ts), the list filters, the conversion estimate and the rail options.
 */
import * as z from 'zod/mini'
import {MinorUnits, Timestamp, drift, lowerStatus, preprocess} from './common.js'
import {CalendarDate} from './treasury.js'

export const TRANSFER_RAILS = ['instant_card', 'instant_bank', 'same_day_ach', 'standard_ach', 'wire'] as const
export type TransferRail = (typeof TRANSFER_RAILS)[number]

/** The three grouped literals the rail filter also accepts (names assumed). */
export const RAIL_GROUPS = {
  ach: ['same_day_ach', 'standard_ach'],
  instant: ['instant_card', 'instant_bank'],
  all: [...TRANSFER_RAILS],
} as const satisfies Record<string, readonly TransferRail[]>
export const RAIL_FILTER_VALUES = [...TRANSFER_RAILS, ...(Object.keys(RAIL_GROUPS) as Array<keyof typeof RAIL_GROUPS>)] as const

export const ACH_RAILS: readonly TransferRail[] = RAIL_GROUPS.ach
export const INSTANT_RAILS: readonly TransferRail[] = RAIL_GROUPS.instant

export const TRANSFER_STATUSES = ['created', 'approved', 'initiated', 'debited', 'settled', 'failed', 'canceled'] as const
export type TransferStatus = (typeof TRANSFER_STATUSES)[number]
/** States a transfer never leaves. */
export const FINAL_TRANSFER_STATUSES: readonly string[] = ['settled', 'failed', 'canceled']

/** Expands rail filter values (groups included) into the set of concrete rails. */
export function expandRails(values: readonly string[]): Set<TransferRail> {
  const out = new Set<TransferRail>()
  for (const v of values) {
    const group = (RAIL_GROUPS as Record<string, readonly TransferRail[]>)[v]
    if (group) for (const r of group) out.add(r)
    else out.add(v as TransferRail)
  }
  return out
}

/**
 * `client_metadata` of a transfer: a map string -> any. The spec's metadata limits (50 keys, 40
 * characters a key, 500 a value, 16 KB) are stated for moves only, so none of them is applied here.
 */
export const TransferMetadata = z.record(z.string(), z.unknown())

/** Create body (assumed): `POST /api/treasury/account-transfers`. */
export const TransferCreateRequest = z
  .object({
    from_account_id: z.string({message: 'from_account_id is required'}).check(z.minLength(1, 'from_account_id is required')),
    to_account_id: z.string({message: 'to_account_id is required'}).check(z.minLength(1, 'to_account_id is required')),
    amount_in_minor_units: z.int('amount_in_minor_units must be a whole number').check(z.positive('amount must be positive')),
    currency_code: z.string({message: 'currency_code is required'}).check(z.regex(/^[A-Z]{3}$/, 'currency_code must be an upper-case ISO 4217 code')),
    rail: z.enum(TRANSFER_RAILS, {message: `unsupported rail: use one of ${TRANSFER_RAILS.join(', ')}`}),
    auto_approve: z.optional(z.boolean({message: 'auto_approve must be a boolean'})),
    scheduled_date: z.nullish(CalendarDate),
    client_metadata: z.optional(TransferMetadata),
  })
  .check(
    z.superRefine((b, ctx) => {
      if (b.from_account_id && b.from_account_id === b.to_account_id) {
        ctx.addIssue({code: 'custom', path: ['to_account_id'], message: 'invalid account pair: to_account_id must differ from from_account_id'})
      }
    }),
  )
export type TransferCreateRequest = z.infer<typeof TransferCreateRequest>

export const AccountTransfer = drift(
  (o) => {
    const out = {...o}
    lowerStatus(out)
    lowerStatus(out, 'rail')
    return out
  },
  z.looseObject({
    id: z.string(),
    from_account_id: z.string(),
    to_account_id: z.string(),
    amount_in_minor_units: MinorUnits,
    currency_code: z.string(),
    rail: z.string(),
    status: z.string(),
    client_metadata: z.nullish(z.record(z.string(), z.unknown())),
    scheduled_date: z.nullish(z.string()),
    created_at: z.optional(Timestamp),
    updated_at: z.optional(Timestamp),
  }),
)
export type AccountTransfer = z.infer<typeof AccountTransfer>

/** A query parameter that may be repeated: always an array after parsing. */
function repeated<T extends z.ZodMiniType>(item: T) {
  return preprocess((v) => (v === undefined ? undefined : Array.isArray(v) ? v : [v]), z.optional(z.array(item)))
}

const int = (name: string) => z.coerce.number({message: `${name} must be an integer`}).check(z.int(`${name} must be an integer`))
const datetime = (name: string) => z.iso.datetime({offset: true, message: `${name} must be an ISO 8601 date-time`})

export const TransfersQuery = z.object({
  cursor: z.optional(z.string()),
  limit: z.optional(z.coerce.number().check(z.int('limit must be an integer'), z.gte(1, 'limit must be 1 to 500'), z.lte(500, 'limit must be 1 to 500'))),
  order: z.optional(z.enum(['asc', 'desc'], {message: 'order must be asc or desc'})),
  account_id: repeated(z.string().check(z.minLength(1, 'account_id must not be empty'))),
  amount_in_minor_units_gte: z.optional(int('amount_in_minor_units_gte')),
  amount_in_minor_units_lte: z.optional(int('amount_in_minor_units_lte')),
  created_at_gte: z.optional(datetime('created_at_gte')),
  created_at_lte: z.optional(datetime('created_at_lte')),
  rail: repeated(z.enum(RAIL_FILTER_VALUES, {message: `rail must be one of ${RAIL_FILTER_VALUES.join(', ')}`})),
  status: repeated(z.enum(TRANSFER_STATUSES, {message: `status must be one of ${TRANSFER_STATUSES.join(', ')}`})),
})
export type TransfersQuery = z.infer<typeof TransfersQuery>

export const ConversionEstimateQuery = z.object({
  from_account_id: z.string({message: 'from_account_id is required'}).check(z.minLength(1, 'from_account_id is required')),
  to_account_id: z.string({message: 'to_account_id is required'}).check(z.minLength(1, 'to_account_id is required')),
  amount_in_minor_units: z.pipe(
    z.pipe(
      z.string({message: 'amount_in_minor_units is required'}).check(z.regex(/^\d+$/, 'amount_in_minor_units must be a positive whole number')),
      z.transform((s: string) => Number(s)),
    ),
    z.number().check(z.int(), z.positive('amount_in_minor_units must be positive'), z.lte(Number.MAX_SAFE_INTEGER, 'amount_in_minor_units is too large')),
  ),
})

export const RailOptionsQuery = z.object({
  from_account_id: z.string({message: 'from_account_id is required'}).check(z.minLength(1, 'from_account_id is required')),
  to_account_id: z.string({message: 'to_account_id is required'}).check(z.minLength(1, 'to_account_id is required')),
})

export const ConversionEstimate = z.looseObject({
  source_currency_code: z.string(),
  source_amount_in_minor_units: MinorUnits,
  destination_currency_code: z.string(),
  destination_amount_in_minor_units: MinorUnits,
  indicative_fx_rate: z.string(),
})
export type ConversionEstimate = z.infer<typeof ConversionEstimate>

export const RailOptions = z.looseObject({
  supported_rails: z.array(z.string()),
})
export type RailOptions = z.infer<typeof RailOptions>
