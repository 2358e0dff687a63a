import {ApiCommand} from '../../../base-command.js'
import {remembering} from '../../../config/names.js'
import {TREASURY_ACCOUNT_COLUMNS, TREASURY_ACCOUNT_KNOWN} from '../../../output/columns.js'

export default class TreasuryAccountsList extends ApiCommand<typeof TreasuryAccountsList> {
  static override areas = ['treasury'] as const
  static override summary = 'List the treasury (main operating) accounts of the entity.'
  static override description = 'Accounts are provisioned by onboarding; only their label can be changed (`treasury accounts update-label`).'
  static override examples = ['<%= config.bin %> treasury accounts list', '<%= config.bin %> treasury accounts list --all -o csv']
  static override flags = {...ApiCommand.listFlags}

  async run(): Promise<void> {
    const {limit, order, paginate} = this.listOptions()
    const api = await this.api()
    const accounts = remembering(api.treasury.accounts({limit, order}, paginate), this.ctx.names, (a) => [a.id, a.label], 'treasury-account')
    await this.renderList(accounts, TREASURY_ACCOUNT_COLUMNS, TREASURY_ACCOUNT_KNOWN)
  }
}
