import * as Args from '@oclif/core/args'
import * as Flags from '@oclif/core/flags'
import {ApiCommand} from '../../../base-command.js'
import {parseName} from '../../../flags.js'
import {runUpdateLabel} from '../../../treasury/run.js'

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
    await runUpdateLabel({id: this.args.id, label: parseName(this.flags.label, '--label'), guard: this.guardInput}, this.ctx)
  }
}
