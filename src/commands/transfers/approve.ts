import {Args} from '@oclif/core'
import {ApiCommand} from '../../base-command.js'
import {TRANSFER_COLUMNS, TRANSFER_KNOWN} from '../../output/columns.js'
import {formatMoney, toDecimalString} from '../../money.js'

export default class TransfersApprove extends ApiCommand<typeof TransfersApprove> {
  static override summary = 'Approve an account transfer created without auto-approval.'
  static override examples = ['<%= config.bin %> transfers approve TRANSFER_ID']
  static override args = {id: Args.string({description: 'account transfer id', required: true})}
  static override flags = {...ApiCommand.guardFlags}

  async run(): Promise<void> {
    const api = await this.api()
    if (this.movementNeedsDetails) {
      const t = await api.transfers.pendingForApproval(this.args.id)
      const amount = formatMoney(t.amount_in_minor_units, t.currency_code)
      await this.confirmMovement(
        {action: `Approve account transfer ${t.id}: ${amount} by ${t.rail}`, amount, from: t.from_account_id, to: t.to_account_id},
        [{amount_in_minor_units: t.amount_in_minor_units, currency: t.currency_code, to: t.to_account_id}],
        toDecimalString(t.amount_in_minor_units, t.currency_code),
      )
    }
    const res = await api.transfers.approve(this.args.id)
    if (res.warning) this.out.warn(res.warning)
    await this.out.resource(res.data, TRANSFER_COLUMNS, TRANSFER_KNOWN)
  }
}
