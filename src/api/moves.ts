import type {ApiClient, SendOptions} from './client.js'
import {fillPath} from './url.js'
import {PATHS} from './paths.js'
import {ApprovedMove, Move, MoveCreateRequest} from './schemas/moves.js'
import {describeIssues} from './schemas/common.js'
import {UsageError} from '../errors.js'

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

  /**
   * Creates a move; always with an Idempotency-Key. The spec promises that a repeat with the key
   * answers with the move it names, so this is the one write the client re-sends after a failure
   * that may have reached the server.
   */
  create(input: MoveCreateInput, idempotencyKey: string, opts: SendOptions = {}) {
    const body = validateMoveCreate(input)
    return this.client.request({method: 'POST', path: PATHS.moveCreate, body, idempotencyKey, idempotent: true, schema: Move, ...opts})
  }

  /**
   * The answer may lack the amount (the spec's approve example shows none: see ApprovedMove), or be
   * no resource at all: the documented status code (201 settled, 207 approved) tells what happened.
   */
  approve(id: string, opts: SendOptions = {}) {
    return this.client.unshown({method: 'POST', path: fillPath(PATHS.moveApprove, {move_id: id}), body: {}, schema: ApprovedMove, ...opts})
  }

  /** The cancel's answer is not shown: its status code tells that it was canceled. */
  cancel(id: string, opts: SendOptions = {}) {
    return this.client.unshown({method: 'DELETE', path: fillPath(PATHS.moveCancel, {move_id: id}), schema: Move, ...opts})
  }
}
