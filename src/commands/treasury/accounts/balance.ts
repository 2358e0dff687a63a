import * as Args from '@oclif/core/args'
import {ApiCommand} from '../../../base-command.js'
import {BALANCE_COLUMNS, BALANCE_KNOWN} from '../../../books/columns.js'

export default class TreasuryAccountsBalance extends ApiCommand<typeof TreasuryAccountsBalance> {
  static override areas = ['treasury'] as const
  static override summary = 'Show the balance of a treasury account.'
  static override description =
    'The current balance (what the bank\'s lines add up to) and the available balance (less transfers out that are approved or initiated but not yet booked), with the time they stand at. The operation\'s shape is assumed (see the README\'s assumptions table). An unknown account, or another entity\'s, is exit 4.'
  static override examples = ['<%= config.bin %> treasury accounts balance ACCOUNT_ID', '<%= config.bin %> treasury accounts balance ACCOUNT_ID -o json']
  static override args = {id: Args.string({description: 'treasury account id', required: true})}

  async run(): Promise<void> {
    const api = await this.api()
    const res = await api.treasury.balance(this.args.id)
    if (res.warning) this.out.warn(res.warning)
    // The spec shows no balance fields: the account asked for is known; what the answer leaves out stays empty.
    await this.out.resource({account_id: this.args.id, ...res.data}, BALANCE_COLUMNS, BALANCE_KNOWN)
  }
}
