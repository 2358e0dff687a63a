import * as Args from '@oclif/core/args'
import {ApiCommand} from '../../../base-command.js'
import {runAccountBalance} from '../../../treasury/run.js'

export default class TreasuryAccountsBalance extends ApiCommand<typeof TreasuryAccountsBalance> {
  static override areas = ['treasury'] as const
  static override summary = 'Show the balance of a treasury account.'
  static override description =
    'The current balance (what the bank\'s lines add up to) and the available balance (less transfers out that are approved or initiated but not yet booked), with the time they stand at. The operation\'s shape is assumed (see the README\'s assumptions table). An unknown account, or another entity\'s, is exit 4.'
  static override examples = ['<%= config.bin %> treasury accounts balance ACCOUNT_ID', '<%= config.bin %> treasury accounts balance ACCOUNT_ID -o json']
  static override args = {id: Args.string({description: 'treasury account id', required: true})}

  async run(): Promise<void> {
    await runAccountBalance({id: this.args.id}, this.ctx)
  }
}
