import * as Args from '@oclif/core/args'
import {ApiCommand} from '../../base-command.js'
import {SUBACCOUNT_COLUMNS} from '../../output/columns.js'

export default class SubaccountsGet extends ApiCommand<typeof SubaccountsGet> {
  static override areas = ['subaccounts'] as const
  static override summary = 'Show a subaccount: banking details and totals.'
  static override examples = ['<%= config.bin %> subaccounts get SUB_ID', '<%= config.bin %> subaccounts get SUB_ID -o json --query routing_numbers']
  static override args = {id: Args.string({description: 'subaccount id', required: true})}

  async run(): Promise<void> {
    const api = await this.api()
    const res = await api.subaccounts.get(this.args.id)
    this.ctx.names.remember(res.data.id, res.data.name, 'subaccount')
    if (res.warning) this.out.warn(res.warning)
    await this.out.resource(res.data, SUBACCOUNT_COLUMNS)
  }
}
