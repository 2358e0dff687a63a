import {Args} from '@oclif/core'
import {ApiCommand} from '../../base-command.js'
import {TRANSFER_COLUMNS, TRANSFER_KNOWN} from '../../output/columns.js'

export default class TransfersApprove extends ApiCommand<typeof TransfersApprove> {
  static override summary = 'Approve an account transfer created without auto-approval.'
  static override examples = ['<%= config.bin %> transfers approve TRANSFER_ID']
  static override args = {id: Args.string({description: 'account transfer id', required: true})}

  async run(): Promise<void> {
    await this.confirmMutation({action: `Approve account transfer ${this.args.id}`})
    const api = await this.api()
    const res = await api.transfers.approve(this.args.id)
    if (res.warning) this.out.warn(res.warning)
    await this.out.resource(res.data, TRANSFER_COLUMNS, TRANSFER_KNOWN)
  }
}
