import * as Args from '@oclif/core/args'
import {ApiCommand} from '../../base-command.js'
import {renderOutcome, runOne} from '../../movements/command.js'
import {TRANSFER_COLUMNS, TRANSFER_KNOWN} from '../../output/columns.js'

export default class TransfersApprove extends ApiCommand<typeof TransfersApprove> {
  static override areas = ['transfers', 'treasury'] as const
  static override summary = 'Approve an account transfer created without auto-approval.'
  static override examples = ['<%= config.bin %> transfers approve TRANSFER_ID']
  static override args = {id: Args.string({description: 'account transfer id', required: true})}
  static override flags = {...ApiCommand.guardFlags}

  async run(): Promise<void> {
    const outcome = await runOne(this.ctx, this.flags, {kind: 'transfer.approve', id: this.args.id})
    await renderOutcome(this.ctx, outcome, TRANSFER_COLUMNS, TRANSFER_KNOWN)
  }
}
