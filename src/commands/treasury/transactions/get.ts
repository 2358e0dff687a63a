import * as Args from '@oclif/core/args'
import {ApiCommand} from '../../../base-command.js'
import {BANK_TRANSACTION_COLUMNS} from '../../../output/columns.js'

export default class TreasuryTransactionsGet extends ApiCommand<typeof TreasuryTransactionsGet> {
  static override areas = ['treasury'] as const
  static override summary = 'Show one bank-reported transaction of a treasury account.'
  static override examples = ['<%= config.bin %> treasury transactions get ACCOUNT_ID TXN_ID']
  static override args = {
    account: Args.string({description: 'treasury account id', required: true}),
    id: Args.string({description: 'bank transaction id', required: true}),
  }

  async run(): Promise<void> {
    const api = await this.api()
    const res = await api.treasury.transaction(this.args.account, this.args.id)
    if (res.warning) this.out.warn(res.warning)
    await this.out.resource(res.data, BANK_TRANSACTION_COLUMNS)
  }
}
