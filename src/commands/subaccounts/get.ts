import * as Args from '@oclif/core/args'
import {ApiCommand} from '../../base-command.js'
import {runSubaccountsGet} from '../../subaccounts/run.js'

export default class SubaccountsGet extends ApiCommand<typeof SubaccountsGet> {
  static override areas = ['subaccounts'] as const
  static override summary = 'Show a subaccount: banking details and totals.'
  static override examples = ['<%= config.bin %> subaccounts get SUB_ID', '<%= config.bin %> subaccounts get SUB_ID -o json --query routing_numbers']
  static override args = {id: Args.string({description: 'subaccount id', required: true})}

  async run(): Promise<void> {
    await runSubaccountsGet({id: this.args.id}, this.ctx)
  }
}
