import type {ApiClient} from './client.js'
import {fillPath, p} from './client.js'
import {PATHS} from './assumptions.js'
import {Move, MoveCreateRequest} from './schemas/moves.js'
import {describeIssues} from './schemas/common.js'
import {ApiError, NotConfirmedError, UsageError} from '../errors.js'
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
    needCurrency = false,
  ): Promise<{minor: number; currency: string}> {
    if (flags.amount === undefined && !needCurrency) return parse(null)
    const parsedFirst = parse(null) // fail fast on a malformed amount before any request
    const sub = await new SubaccountsApi(this.client).get(from)
    const accountCurrency = sub.data.currency_code?.toUpperCase()
    if (!accountCurrency) return parsedFirst
    if (flags.currency && flags.currency.toUpperCase() !== accountCurrency) {
      throw new UsageError(`--currency ${flags.currency.toUpperCase()} does not match the source subaccount's currency ${accountCurrency}.`)
    }
    return parse(accountCurrency)
  }

  get(id: string) {
    return this.client.request({method: 'GET', path: fillPath(PATHS.moveGet, {move_id: id}), schema: Move})
  }

  /**
   * The amount, currency and destination of moves about to be approved (for limits and the LIVE
   * confirmation). A move that cannot be fetched cannot be checked, so it is refused.
   */
  async describeForApproval(ids: string[]): Promise<Array<{label: string; amount_in_minor_units: number; currency: string; to: string}>> {
    const out = []
    for (const id of ids) {
      try {
        const m = (await this.get(id)).data
        out.push({label: `move ${id}`, amount_in_minor_units: m.amount_in_minor_units, currency: (m.currency_code ?? 'USD').toUpperCase(), to: m.to_subaccount_id})
      } catch (err) {
        if (err instanceof ApiError && err.status === 404) {
          throw new NotConfirmedError(`Cannot check move ${id} against the profile's limits and the LIVE confirmation: ${err.describe()}. Nothing was approved.`)
        }
        throw err
      }
    }
    return out
  }

  approve(id: string) {
    return this.client.request({method: 'POST', path: p`/api/subaccounts/move/${id}/approve`, body: {}, schema: Move})
  }

  cancel(id: string) {
    return this.client.request({method: 'DELETE', path: fillPath(PATHS.moveCancel, {move_id: id}), schema: Move})
  }
}
