import * as Args from '@oclif/core/args'
import * as Flags from '@oclif/core/flags'
import {ApiCommand} from '../../../base-command.js'
import {dateRange} from '../../../flags.js'
import {runTransactionsList} from '../../../treasury/run.js'

export default class TreasuryTransactionsList extends ApiCommand<typeof TreasuryTransactionsList> {
  static override areas = ['treasury'] as const
  static override summary = 'List the bank-reported transactions of a treasury account.'
  static override description =
    'Fields the bank did not report (sender, receiver, direction, date) are left out of JSON output and empty in tables. Date filters are inclusive whole days; a --transaction-date-gte after --transaction-date-lte is refused (exit 2); lines without a date never match them.'
  static override examples = [
    '<%= config.bin %> treasury transactions list ACCOUNT_ID --transaction-date-gte 2026-01-01 --transaction-date-lte 2026-01-31',
    '<%= config.bin %> treasury transactions list ACCOUNT_ID --all -o ndjson',
  ]
  static override args = {account: Args.string({description: 'treasury account id', required: true})}
  static override flags = {
    ...ApiCommand.listFlags,
    'transaction-date-gte': Flags.string({summary: 'Transaction date on or after (YYYY-MM-DD, inclusive).', aliases: ['transaction_date_gte']}),
    'transaction-date-lte': Flags.string({summary: 'Transaction date on or before (YYYY-MM-DD, inclusive).', aliases: ['transaction_date_lte']}),
  }

  async run(): Promise<void> {
    const f = this.flags
    const list = this.listInput
    const dates = dateRange(f['transaction-date-gte'], f['transaction-date-lte'], 'transaction-date')
    await runTransactionsList({account: this.args.account, list, dates}, this.ctx)
  }
}
