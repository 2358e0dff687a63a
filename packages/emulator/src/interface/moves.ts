/** Moves (spec: Move, POST /api/subaccounts/move). */
import * as z from 'zod/mini'
import {ClientMetadata, Uuid} from './common.js'

/** The Move table's states, and `failed` (a state the spec names without showing how a move reaches it). */
export const MOVE_STATUSES = ['created', 'approved', 'settled', 'canceled', 'failed'] as const
export type MoveStatus = (typeof MOVE_STATUSES)[number]

const positive = (field: string) => z.optional(z.int(`${field} must be a whole number`).check(z.positive('amount must be positive')))

/**
 * The create body: two different subaccount UUIDs, a positive whole amount (`amount_in_minor_units`,
 * or its deprecated alias `amount_in_cents`, still accepted; both given must agree), `auto_approve`
 * (default true) and `client_metadata`.
 */
export const MoveCreateRequest = z
  .object({
    from_subaccount_id: Uuid,
    to_subaccount_id: Uuid,
    amount_in_minor_units: positive('amount_in_minor_units'),
    amount_in_cents: positive('amount_in_cents'),
    auto_approve: z.optional(z.boolean({message: 'auto_approve must be a boolean'})),
    client_metadata: z.optional(ClientMetadata),
  })
  .check(
    z.superRefine((b, ctx) => {
      if (b.amount_in_minor_units === undefined && b.amount_in_cents === undefined) ctx.addIssue({code: 'custom', path: ['amount_in_minor_units'], message: 'amount_in_minor_units is required'})
      if (b.amount_in_minor_units !== undefined && b.amount_in_cents !== undefined && b.amount_in_minor_units !== b.amount_in_cents) {
        ctx.addIssue({code: 'custom', path: ['amount_in_cents'], message: 'amount_in_cents differs from amount_in_minor_units'})
      }
      if (b.from_subaccount_id && b.from_subaccount_id === b.to_subaccount_id) ctx.addIssue({code: 'custom', path: ['to_subaccount_id'], message: 'must differ from from_subaccount_id'})
    }),
  )
export type MoveCreateRequest = z.infer<typeof MoveCreateRequest>
