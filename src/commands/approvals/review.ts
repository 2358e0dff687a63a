import * as Args from '@oclif/core/args'
import {ApiCommand} from '../../base-command.js'
import {reviewApprovalRequest} from '../../movements/review.js'
import {MAKER_CHECKER_SCOPE} from '../../movements/maker-checker.js'

export default class ApprovalsReview extends ApiCommand<typeof ApprovalsReview> {
  static override areas = ['moves', 'subaccounts', 'transfers', 'treasury'] as const
  static override summary = 'Review and approve, as the checker, a request from `approvals request`.'
  static override description =
    'Shows the request (amount, from, to, who created it and when, the creating audit record), refuses it when you are the one who created it, re-reads what the API can show (a transfer must still await approval with the same amount and route; a move\'s subaccounts must exist), then asks you to type the amount and approves it through the same checks as moves approve and transfers approve. Both identities are recorded in the audit trail.\n\n' +
    'With a team store bound to the key, give the move or transfer id: the request is read from the store, its maker (a database role) may not approve it, and the decision is recorded in the store once the API approved it. A request file that contradicts the store\'s record (amount, route, maker) is refused (exit 5).\n\n' +
    MAKER_CHECKER_SCOPE
  static override examples = ['<%= config.bin %> approvals review move-approval.json', '<%= config.bin %> approvals review MOVE_ID']
  static override flags = {...ApiCommand.guardFlags}
  static override args = {file: Args.string({description: 'the request file, or (team store) the move or transfer id', required: true})}

  async run(): Promise<void> {
    await reviewApprovalRequest(this.ctx, this.args.file, this.flags)
  }
}
