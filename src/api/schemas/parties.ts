/**
 * Payers, payees, payins and session tokens: declared once, used by the client (to parse
 * responses and validate requests before sending) and by the emulator (to validate requests and
 * to check its own answers in tests).
 */
import * as z from 'zod/mini'
import {MinorUnits, Timestamp, Uuid, drift, fillFrom, lowerStatus, preprocess} from './common.js'

export const COUNTRY_CODES = ['US', 'GB', 'IN'] as const
export type CountryCode = (typeof COUNTRY_CODES)[number]

/** Payer and payee have the same field set. `country_code` is optional, the address lines nullable. */
export const Party = z.looseObject({
  id: z.string(),
  name: z.string(),
  email: z.string(),
  // The spec lists US, GB and IN; a value added later is read as it came (the emulator's create takes only the listed ones).
  country_code: z.nullish(z.string()),
  country_sub_division: z.nullish(z.string()),
  city: z.nullish(z.string()),
  address_line: z.nullish(z.string()),
  postal_code: z.nullish(z.string()),
  client_metadata: z.nullish(z.record(z.string(), z.string())),
  created_at: Timestamp,
  updated_at: Timestamp,
})
export type Party = z.infer<typeof Party>
export const Payer = Party
export type Payer = Party
export const Payee = Party
export type Payee = Party

/** A calendar date `YYYY-MM-DD` that exists. */
export const CalendarDate = z.string().check(
  z.regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date YYYY-MM-DD'),
  z.refine((s: string) => {
    const d = new Date(`${s}T00:00:00Z`)
    return !Number.isNaN(d.getTime()) && d.toISOString().startsWith(s)
  }, 'must be a calendar date YYYY-MM-DD'),
)

const queryBoolean = (name: string) =>
  z.pipe(
    z.enum(['true', 'false'], {message: `${name} must be true or false`}),
    z.transform((v: 'true' | 'false') => v === 'true'),
  )

/** GET /api/payers and GET /api/payees query (identical parameters). */
export const PartyListQuery = z.object({
  cursor: z.optional(z.string()),
  limit: z.optional(z.coerce.number().check(z.int('limit must be an integer'), z.gte(1, 'limit must be 1 to 500'), z.lte(500, 'limit must be 1 to 500'))),
  order: z.optional(z.enum(['asc', 'desc'], {message: 'order must be asc or desc'})),
  email: z.optional(z.string()),
  name: z.optional(z.string()),
  has_default: z.optional(queryBoolean('has_default')),
  created_at_gte: z.optional(CalendarDate),
  created_at_lte: z.optional(CalendarDate),
})
export type PartyListQuery = z.infer<typeof PartyListQuery>

/**
 * The largest `limit` the client sends for payers: the spec's parameter definition says 500 for
 * both lists, but the payers description says 100, so payers stay within the stricter of the two
 * (payees keep 500).
 */
export const PAYERS_MAX_LIMIT = 100

/** The list filters as the client sends them. */
export interface PartyFilters {
  limit?: number
  order?: 'asc' | 'desc'
  email?: string
  name?: string
  has_default?: boolean
  created_at_gte?: string
  created_at_lte?: string
}

export const PAYIN_STATUSES = ['created', 'approved', 'initiated', 'debited', 'settled', 'failed', 'canceled'] as const
export type PayinStatus = (typeof PAYIN_STATUSES)[number]
export const PAYIN_RAILS = ['standard_ach', 'same_day_ach'] as const
export type PayinRail = (typeof PAYIN_RAILS)[number]

/**
 * Payin. `amount_in_cents` is the deprecated duplicate (fills the canonical amount when alone);
 * the status is normalised to lower case; `payin_metadata` carries `payment_method` and `payer`.
 */
export const Payin = drift(
  (o) => {
    const out = {...o}
    fillFrom(out, 'amount_in_minor_units', 'amount_in_cents')
    lowerStatus(out)
    return out
  },
  z.looseObject({
    id: z.string(),
    payer_id: z.string(),
    amount_in_minor_units: MinorUnits,
    amount_in_cents: z.nullish(MinorUnits),
    currency_code: z.string(),
    rail: z.nullish(z.string()),
    status: z.string(),
    status_recorded_at: z.nullish(Timestamp),
    payin_metadata: z.nullish(
      z.looseObject({
        payment_method: z.nullish(
          z.looseObject({
            account_last_four: z.nullish(z.string()),
            routing_number: z.nullish(z.string()),
            end_to_end_id: z.nullish(z.string()),
          }),
        ),
        payer: z.nullish(z.looseObject({name: z.nullish(z.string()), email: z.nullish(z.string())})),
      }),
    ),
    client_metadata: z.nullish(z.record(z.string(), z.unknown())),
    scheduled_date: z.nullish(z.string()),
    created_at: Timestamp,
    updated_at: Timestamp,
  }),
)
export type Payin = z.infer<typeof Payin>

export const PARTY_TYPES = ['payer', 'payee', 'external'] as const
export type PartyType = (typeof PARTY_TYPES)[number]

/** POST /api/session-tokens */
export const PayeeSessionTokenRequest = z.object({
  payee_id: Uuid,
})
export type PayeeSessionTokenRequest = z.infer<typeof PayeeSessionTokenRequest>

/** POST /api/session-tokens/party */
export const PartySessionTokenRequest = z.object({
  party_id: Uuid,
  party_type: z.enum(PARTY_TYPES, {message: `party_type must be one of ${PARTY_TYPES.join(', ')}`}),
})
export type PartySessionTokenRequest = z.infer<typeof PartySessionTokenRequest>

export const SessionToken = z.looseObject({
  token: z.string().check(z.minLength(1)),
  expires_in_seconds: z.int().check(z.nonnegative()),
  scopes: z.array(z.string()),
})
export type SessionToken = z.infer<typeof SessionToken>

/**
 * The spec shows the session-token response both bare and wrapped in `data`: an object with a
 * `data` object member is unwrapped, anything else is taken as the token itself.
 */
export function unwrapData(body: unknown): unknown {
  if (body && typeof body === 'object' && !Array.isArray(body)) {
    const d = (body as Record<string, unknown>).data
    if (d && typeof d === 'object' && !Array.isArray(d)) return d
  }
  return body
}

/** A whole session-token response body, bare or wrapped. */
export const SessionTokenResponse = preprocess(unwrapData, SessionToken)
