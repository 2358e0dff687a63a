import {ApiCommand} from '../../base-command.js'
import {parsePartyFilters, partyListFlags} from '../../flags.js'
import {runPayeesList} from '../../parties/run.js'

export default class PayeesList extends ApiCommand<typeof PayeesList> {
  static override areas = ['payees'] as const
  static override summary = 'List payees, newest first, with filters.'
  static override description =
    '--name and --email match part of the value, ignoring case. --created-at-gte/--created-at-lte are whole UTC dates (YYYY-MM-DD), both inclusive. --has-default keeps payees with a default payment method, --no-has-default those without.'
  static override examples = [
    '<%= config.bin %> payees list --name smith --has-default',
    '<%= config.bin %> payees list --created-at-gte 2025-01-01 --created-at-lte 2025-03-31 --all -o csv',
  ]
  static override flags = {...ApiCommand.listFlags, ...partyListFlags}

  async run(): Promise<void> {
    await runPayeesList({list: this.listInput, filters: parsePartyFilters(this.flags)}, this.ctx)
  }
}
