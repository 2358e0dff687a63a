import {ApiCommand} from '../../../base-command.js'
import {runAccountsList} from '../../../treasury/run.js'

export default class TreasuryAccountsList extends ApiCommand<typeof TreasuryAccountsList> {
  static override areas = ['treasury'] as const
  static override summary = 'List the treasury (main operating) accounts of the entity.'
  static override description = 'Accounts are provisioned by onboarding; only their label can be changed (`treasury accounts update-label`).'
  static override examples = ['<%= config.bin %> treasury accounts list', '<%= config.bin %> treasury accounts list --all -o csv']
  static override flags = {...ApiCommand.listFlags}

  async run(): Promise<void> {
    await runAccountsList({list: this.listInput}, this.ctx)
  }
}
