import * as Args from '@oclif/core/args'
import {ApiCommand} from '../../base-command.js'
import {showApproval} from '../../movements/team-approvals.js'

export default class ApprovalsShow extends ApiCommand<typeof ApprovalsShow> {
  static override summary = 'Where the approval of a move or transfer stands in the team store.'
  static override description =
    'Reads the team store bound to the key: the request (amount, from, to, the database role that requested it) and its decision (approved or rejected, by whom, when, and what the API answered), or that it still awaits approval. Without a team store, `payops approvals` lists what awaits approval.'
  static override examples = ['<%= config.bin %> approvals show MOVE_ID']
  static override args = {id: Args.string({description: 'move or account transfer id', required: true})}

  async run(): Promise<void> {
    await showApproval(this.ctx, this.args.id)
  }
}
