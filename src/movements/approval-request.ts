/**
 * `approvals request ID [--out FILE]`: the approval request of a move or transfer this machine
 * created, recorded in the team store or written to a file (src/movements/review.ts), then shown.
 */
import type {CommandContext} from '../context/index.js'
import {APPROVAL_REQUEST_COLUMNS} from '../output/columns.js'
import {requestApproval} from './review.js'

export interface ApprovalsRequestOptions {
  /** The move or account transfer id. */
  id: string
  /** The file to write (must not exist); required without a team store. */
  out?: string
}

export async function runApprovalsRequest(opts: ApprovalsRequestOptions, ctx: CommandContext): Promise<void> {
  const request = await requestApproval(ctx, opts.id, opts.out)
  await ctx.out.resource(request, APPROVAL_REQUEST_COLUMNS)
}
