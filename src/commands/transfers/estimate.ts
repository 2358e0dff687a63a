import * as Flags from '@oclif/core/flags'
import {ApiCommand} from '../../base-command.js'
import {moneyFlags} from '../../flags.js'
import {runEstimate} from '../../transfers/run.js'

export default class TransfersEstimate extends ApiCommand<typeof TransfersEstimate> {
  static override areas = ['transfers', 'treasury'] as const
  static override summary = 'Estimate the destination amount of a transfer (indicative, not a quote).'
  static override description =
    'The amount is in the SOURCE account\'s currency, learned from the account list (a --currency that differs is refused). The rate and destination amount are indicative and may differ at settlement.'
  static override examples = [
    '<%= config.bin %> transfers estimate --from ACC_USD --to ACC_INR --amount 1000.00',
    '<%= config.bin %> transfers estimate --from ACC_GBP --to ACC_USD --amount-minor 10000',
  ]
  static override flags = {
    from: Flags.string({summary: 'Source treasury account id.', required: true, aliases: ['from-account-id']}),
    to: Flags.string({summary: 'Destination treasury account id.', required: true, aliases: ['to-account-id']}),
    ...moneyFlags,
  }

  async run(): Promise<void> {
    const f = this.flags
    await runEstimate({from: f.from, to: f.to, money: {amount: f.amount, currency: f.currency, 'amount-minor': f['amount-minor']}}, this.ctx)
  }
}
