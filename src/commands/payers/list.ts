import * as Flags from '@oclif/core/flags'
import {ApiCommand} from '../../base-command.js'
import {PAYERS_MAX_LIMIT} from '../../api/schemas/parties.js'
import {parsePartyFilters, partyListFlags} from '../../flags.js'
import {runPayersList} from '../../parties/run.js'

export default class PayersList extends ApiCommand<typeof PayersList> {
  static override areas = ['payers'] as const
  static override summary = 'List payers, newest first, with filters.'
  static override description =
    '--name and --email match part of the value, ignoring case. --created-at-gte/--created-at-lte are whole UTC dates (YYYY-MM-DD), both inclusive. --has-default keeps payers with a default payment method, --no-has-default those without. --limit is at most 100 here: the spec\'s payers description says 100 (its parameter definition says 500, which payees keep); --all pages through everything either way.'
  static override examples = [
    '<%= config.bin %> payers list --name smith --has-default',
    '<%= config.bin %> payers list --created-at-gte 2025-01-01 --created-at-lte 2025-03-31 --all -o csv',
  ]
  static override flags = {
    ...ApiCommand.listFlags,
    limit: Flags.integer({summary: `Items per page (1 to ${PAYERS_MAX_LIMIT}, as the payers description says).`, min: 1, max: PAYERS_MAX_LIMIT}),
    ...partyListFlags,
  }

  async run(): Promise<void> {
    await runPayersList({list: this.listInput, filters: parsePartyFilters(this.flags)}, this.ctx)
  }
}
