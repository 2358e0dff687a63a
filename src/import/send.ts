/**
 * The send of one import row, kept apart so that the outcome classification can come from one
 * place (a shared movement pipeline can replace `moveSender` without touching the runner).
 */
import type {MovesApi} from '../api/moves.js'
import type {Move} from '../api/schemas/moves.js'
import type {KeyedRow} from './run.js'

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
 * The default sender: POST /api/subaccounts/move with the row's Idempotency-Key. 201 is
 * `created`; 200 is `replayed`; 207 is `created` with its warning, unless the move's status came
 * back in upper case, which is how the API marks a replay.
 */
export function moveSender(moves: MovesApi): RowSender {
  return async (row) => {
    const res = await moves.create(
      {
        from_subaccount_id: row.from_subaccount_id,
        to_subaccount_id: row.to_subaccount_id,
        amount_in_minor_units: row.amount_in_minor_units,
        auto_approve: row.auto_approve,
        client_metadata: row.client_metadata,
      },
      row.key,
    )
    const rawStatus = (res.body as {data?: {status?: unknown}} | undefined)?.data?.status
    const upper = typeof rawStatus === 'string' && rawStatus !== rawStatus.toLowerCase()
    const kind: RowOutcomeKind = res.status === 200 || (res.status === 207 && upper) ? 'replayed' : 'created'
    return {kind, httpStatus: res.status, move: res.data, ...(res.warning ? {warning: res.warning} : {})}
  }
}
