import type {ApiClient} from './client.js'
import {fillPath, p} from './client.js'
import {PATHS} from './assumptions.js'
import {Move, MoveCreateRequest} from './schemas/moves.js'
import {describeIssues} from './schemas/common.js'
import {UsageError} from '../errors.js'
import {SubaccountsApi} from './subaccounts.js'

export interface MoveCreateInput {
  from_subaccount_id: string
  to_subaccount_id: string
  amount_in_minor_units: number
  auto_approve?: boolean
  client_metadata?: Record<string, string>
}

/** Validates a create body with the very schema the API (emulator) applies; a usage error if bad. */
export function validateMoveCreate(input: MoveCreateInput): MoveCreateRequest {
  const r = MoveCreateRequest.safeParse(input)
  if (!r.success) throw new UsageError(`Invalid move: ${describeIssues(r.error)}`)
  return r.data
}

export class MovesApi {
  constructor(private readonly client: ApiClient) {}

  /** Creates a move; always with an Idempotency-Key so that a retry can never move money twice. */
  create(input: MoveCreateInput, idempotencyKey: string) {
    const body = validateMoveCreate(input)
    return this.client.request({method: 'POST', path: '/api/subaccounts/move', body, idempotencyKey, schema: Move})
  }

  /**
   * Parses the money flags of a move. A decimal amount is parsed in the source subaccount's own
   * currency (fetched), and a --currency that differs from it is refused: the move body carries no
   * currency, so guessing would move the wrong amount.
   */
  async resolveAmount(
    from: string,
    flags: {amount?: string; currency?: string},
    parse: (fallbackCurrency?: string | null) => {minor: number; currency: string},
  ): Promise<{minor: number; currency: string}> {
    if (flags.amount === undefined) return parse(null)
    const parsedFirst = parse(null) // fail fast on a malformed amount before any request
    const sub = await new SubaccountsApi(this.client).get(from)
    const accountCurrency = sub.data.currency_code?.toUpperCase()
    if (!accountCurrency) return parsedFirst
    if (flags.currency && flags.currency.toUpperCase() !== accountCurrency) {
      throw new UsageError(`--currency ${flags.currency.toUpperCase()} does not match the source subaccount's currency ${accountCurrency}.`)
    }
    return parse(accountCurrency)
  }

  approve(id: string) {
    return this.client.request({method: 'POST', path: p`/api/subaccounts/move/${id}/approve`, body: {}, schema: Move})
  }

  cancel(id: string) {
    return this.client.request({method: 'DELETE', path: fillPath(PATHS.moveCancel, {move_id: id}), schema: Move})
  }
}
