import * as Args from '@oclif/core/args'
import {ApiCommand} from '../../base-command.js'
import {runTransferApprove} from '../../movements/commands.js'

export default class TransfersApprove extends ApiCommand<typeof TransfersApprove> {
  static override areas = ['transfers', 'treasury'] as const
  static override summary = 'Approve an account transfer created without auto-approval.'
  static override examples = ['<%= config.bin %> transfers approve TRANSFER_ID']
  static override args = {id: Args.string({description: 'account transfer id', required: true})}
  static override flags = {...ApiCommand.guardFlags}

  async run(): Promise<void> {
    await runTransferApprove({id: this.args.id, guard: this.guardInput}, this.ctx)
  }
}
