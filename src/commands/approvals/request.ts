import * as Args from '@oclif/core/args'
import * as Flags from '@oclif/core/flags'
import {ApiCommand} from '../../base-command.js'
import {writeApprovalRequest} from '../../movements/review.js'
import {APPROVAL_REQUEST_COLUMNS} from '../../output/columns.js'

export default class ApprovalsRequest extends ApiCommand<typeof ApprovalsRequest> {
  static override areas = ['transfers'] as const
  static override summary = 'Write a request file for a checker elsewhere to approve a move or transfer.'
  static override description =
    'For maker-checker across machines: the file holds the details this machine\'s audit trail recorded (amount, currency, from, to), who created it (operator name, OS user, host) and the hash of the creating audit record. The checker runs `payops approvals review FILE`. The file is written 0600 and never over another.'
  static override examples = ['<%= config.bin %> approvals request MOVE_ID --out move-approval.json']
  static override flags = {
    out: Flags.string({summary: 'The file to write (must not exist).', required: true}),
  }
  static override args = {id: Args.string({description: 'move or account transfer id', required: true})}

  async run(): Promise<void> {
    const request = await writeApprovalRequest(this.ctx, this.args.id, this.flags.out)
    this.out.note(`Wrote the approval request for ${request.kind === 'move' ? 'move' : 'account transfer'} ${request.id} to ${this.flags.out}; the checker runs \`payops approvals review ${this.flags.out}\`.`)
    await this.out.resource(request, APPROVAL_REQUEST_COLUMNS)
  }
}
