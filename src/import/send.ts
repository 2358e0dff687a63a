/**
 * The send of one import row: through the movement pipeline, so that its outcome is classified
 * and recorded as every other money request's is.
 */
import {sendConfirmed, type MovementPorts} from '../movements/index.js'
import type {Move} from '../api/schemas/moves.js'
import type {ImportRow} from './csv.js'

/** A row with the Idempotency-Key it is sent with. */
export type KeyedRow = ImportRow & {key: string}

/**
 * `created`: this run made the move (even when a retry is what confirmed it). `replayed`: an
 * earlier run made it; nothing moved now. `advanced`: the replay moved it on (created -> settled).
 */
export type RowOutcomeKind = 'created' | 'replayed' | 'advanced'

export interface RowOutcome {
  kind: RowOutcomeKind
  httpStatus: number
  move: Move
  /** The API's `warning` (207: the move exists but approval or settlement failed). */
  warning?: string
}

/** Sends one row with its key; resolves with the outcome or throws a PayopsError. */
export type RowSender = (row: KeyedRow) => Promise<RowOutcome>

/**
 * Each row goes through the movement pipeline (the batch was confirmed once, as a whole, by the
 * command): sent with its own Idempotency-Key, classified (created, replayed or advanced; a key
 * naming another move fails the row, exit 5), and recorded in the audit trail with amount,
 * currency, from and to.
 */
export function pipelineSender(ports: MovementPorts): RowSender {
  return async (row) => {
    const o = await sendConfirmed(
      {
        kind: 'move.create',
        from: row.from_subaccount_id,
        to: row.to_subaccount_id,
        amount: {minor: row.amount_in_minor_units},
        sourceCurrency: row.currency,
        autoApprove: row.auto_approve !== false,
        metadata: row.client_metadata,
        idempotencyKey: row.key,
      },
      ports,
    )
    return {kind: o.kind, httpStatus: o.http_status, move: o.resource as Move, ...(o.warning ? {warning: o.warning} : {})}
  }
}
