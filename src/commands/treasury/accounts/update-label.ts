import * as Args from '@oclif/core/args'
import * as Flags from '@oclif/core/flags'
import {ApiCommand} from '../../../base-command.js'
import {confirmMutation} from '../../../movements/command.js'
import {TREASURY_ACCOUNT_COLUMNS, TREASURY_ACCOUNT_KNOWN} from '../../../output/columns.js'
import {parseName} from '../../../flags.js'

export default class TreasuryAccountsUpdateLabel extends ApiCommand<typeof TreasuryAccountsUpdateLabel> {
  static override areas = ['treasury'] as const
  static override summary = 'Change the display label of a treasury account.'
  static override description = 'The label is trimmed and must be 1 to 100 characters.'
  static override examples = ['<%= config.bin %> treasury accounts update-label ACCOUNT_ID --label "Operating (USD)"']
  static override args = {id: Args.string({description: 'treasury account id', required: true})}
  static override flags = {
    label: Flags.string({summary: 'New display label (1 to 100 characters).', required: true}),
  }

  async run(): Promise<void> {
    const label = parseName(this.flags.label, '--label')
    await confirmMutation(this.ctx, this.flags, {action: `Relabel treasury account ${this.args.id}`, details: {label}})
    const api = await this.api()
    const res = await api.treasury.updateLabel(this.args.id, label)
    this.ctx.names.remember(res.data.id, res.data.label, 'treasury-account')
    if (res.warning) this.out.warn(res.warning)
    await this.out.resource(res.data, TREASURY_ACCOUNT_COLUMNS, TREASURY_ACCOUNT_KNOWN)
  }
}
