import * as z from 'zod/mini'
import {ClientMetadata, MinorUnits, Timestamp, Uuid, drift, fillFrom, lowerStatus, renameKeys} from './common.js'

export const MOVE_STATUSES = ['created', 'approved', 'settled', 'canceled', 'failed'] as const
export type MoveStatus = (typeof MOVE_STATUSES)[number]

/**
 * POST /api/subaccounts/move body. `amount_in_cents` is the deprecated alias, still accepted;
 * the client only ever sends `amount_in_minor_units`.
 */
export const MoveCreateRequest = z
  .object({
    from_subaccount_id: Uuid,
    to_subaccount_id: Uuid,
    amount_in_minor_units: z.optional(z.int('amount_in_minor_units must be a whole number').check(z.positive('amount must be positive'))),
    amount_in_cents: z.optional(z.int('amount_in_cents must be a whole number').check(z.positive('amount must be positive'))),
    auto_approve: z.optional(z.boolean({message: 'auto_approve must be a boolean'})),
    client_metadata: z.optional(ClientMetadata),
  })
  .check(z.superRefine((b, ctx) => {
    if (b.amount_in_minor_units === undefined && b.amount_in_cents === undefined) {
      ctx.addIssue({code: 'custom', path: ['amount_in_minor_units'], message: 'amount_in_minor_units is required'})
    }
    if (b.amount_in_minor_units !== undefined && b.amount_in_cents !== undefined && b.amount_in_minor_units !== b.amount_in_cents) {
      ctx.addIssue({code: 'custom', path: ['amount_in_cents'], message: 'amount_in_cents differs from amount_in_minor_units'})
    }
    if (b.from_subaccount_id && b.from_subaccount_id === b.to_subaccount_id) {
      ctx.addIssue({code: 'custom', path: ['to_subaccount_id'], message: 'must differ from from_subaccount_id'})
    }
  }))
export type MoveCreateRequest = z.infer<typeof MoveCreateRequest>

const normaliseMove = (o: Record<string, unknown>) => {
  const out = renameKeys(o, {source_subaccount_id: 'from_subaccount_id', destination_subaccount_id: 'to_subaccount_id'})
  fillFrom(out, 'amount_in_minor_units', 'amount_in_cents')
  lowerStatus(out)
  return out
}

const moveFields = {
  id: z.string(),
  from_subaccount_id: z.string(),
  to_subaccount_id: z.string(),
  amount_in_minor_units: MinorUnits,
  amount_in_cents: z.optional(MinorUnits),
  status: z.string(),
  status_recorded_at: z.nullish(Timestamp),
  client_metadata: z.nullish(z.record(z.string(), z.unknown())),
  currency_code: z.nullish(z.string()),
  created_at: z.optional(Timestamp),
  updated_at: z.optional(Timestamp),
}

/**
 * Move. Absorbs the approve-response drift (`source_subaccount_id`, `destination_subaccount_id`,
 * upper-case `SETTLED`), the upper-case states of replays and a lone deprecated
 * `amount_in_cents`; unknown fields pass through. The amount is required: the Move table lists it.
 */
export const Move = drift(normaliseMove, z.looseObject(moveFields))
export type Move = z.infer<typeof Move>

/**
 * The approve-move answer. The spec's example shape (`source_subaccount_id`,
 * `destination_subaccount_id`, `currency_code`, `settled_at`, `description`, `SETTLED`) lists no
 * amount field, so the amount is optional here: the caller takes it from what it knows of the
 * move (the audit trail) or shows it as unknown. Everything else is read as a Move.
 */
export const ApprovedMove = drift(
  normaliseMove,
  z.looseObject({
    ...moveFields,
    amount_in_minor_units: z.optional(MinorUnits),
    settled_at: z.nullish(Timestamp),
    description: z.nullish(z.string()),
  }),
)
export type ApprovedMove = z.infer<typeof ApprovedMove>
