import * as Args from '@oclif/core/args'
import {ApiCommand} from '../../../base-command.js'
import {runTransactionGet} from '../../../treasury/run.js'

export default class TreasuryTransactionsGet extends ApiCommand<typeof TreasuryTransactionsGet> {
  static override areas = ['treasury'] as const
  static override summary = 'Show one bank-reported transaction of a treasury account.'
  static override examples = ['<%= config.bin %> treasury transactions get ACCOUNT_ID TXN_ID']
  static override args = {
    account: Args.string({description: 'treasury account id', required: true}),
    id: Args.string({description: 'bank transaction id', required: true}),
  }

  async run(): Promise<void> {
    await runTransactionGet({account: this.args.account, id: this.args.id}, this.ctx)
  }
}
