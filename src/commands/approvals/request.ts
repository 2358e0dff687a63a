import * as Args from '@oclif/core/args'
import * as Flags from '@oclif/core/flags'
import {ApiCommand} from '../../base-command.js'
import {runApprovalsRequest} from '../../movements/approval-request.js'

export default class ApprovalsRequest extends ApiCommand<typeof ApprovalsRequest> {
  static override areas = ['transfers'] as const
  static override summary = 'Ask for the approval of a move or transfer: in the team store, or in a file.'
  static override description =
    'With a team store bound to the key, the request goes in the store, recorded with your database role as its maker: every member sees it in `payops approvals` and another approves it with `payops approvals review ID`; --out also writes it to a file, as an export. Without a team store, --out is required: the file holds the details this machine\'s audit trail recorded (amount, currency, from, to), who created it (operator name, OS user, host) and the hash of the creating audit record, and the checker runs `payops approvals review FILE`. The file is written 0600 and never over another.'
  static override examples = ['<%= config.bin %> approvals request MOVE_ID', '<%= config.bin %> approvals request MOVE_ID --out move-approval.json']
  static override flags = {
    out: Flags.string({summary: 'The file to write (must not exist); required without a team store.'}),
  }
  static override args = {id: Args.string({description: 'move or account transfer id', required: true})}

  async run(): Promise<void> {
    await runApprovalsRequest({id: this.args.id, out: this.flags.out}, this.ctx)
  }
}
