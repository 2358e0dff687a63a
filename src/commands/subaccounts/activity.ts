import {Args, Flags} from '@oclif/core'
import {ApiCommand} from '../../base-command.js'
import {ACTIVITY_COLUMNS} from '../../output/columns.js'
import {parseDateTime, parseIntegerFlag, optional} from '../../flags.js'

export default class SubaccountsActivity extends ApiCommand<typeof SubaccountsActivity> {
  static override areas = ['subaccounts'] as const
  static override summary = 'List a subaccount\'s activity (moves and bank-reported credits).'
  static override examples = [
    '<%= config.bin %> subaccounts activity SUB_ID --direction credit --amount-gte 10000',
    '<%= config.bin %> subaccounts activity SUB_ID --all -o ndjson',
  ]
  static override args = {id: Args.string({description: 'subaccount id', required: true})}
  static override flags = {
    ...ApiCommand.listFlags,
    direction: Flags.option({summary: 'Only credits or only debits.', options: ['credit', 'debit'] as const})(),
    'amount-gte': Flags.string({summary: 'Amount at least this many minor units (cents).', aliases: ['amount_gte']}),
    'amount-lte': Flags.string({summary: 'Amount at most this many minor units (cents).', aliases: ['amount_lte']}),
    'effective-at-gte': Flags.string({summary: 'Effective at or after (ISO 8601, UTC).', aliases: ['effective_at_gte']}),
    'effective-at-lte': Flags.string({summary: 'Effective at or before (ISO 8601, UTC).', aliases: ['effective_at_lte']}),
  }

  async run(): Promise<void> {
    const f = this.flags
    const {limit, order, paginate} = this.listOptions()
    const filters = {
      limit,
      order,
      direction: f.direction,
      amount_gte: parseIntegerFlag(f['amount-gte'], '--amount-gte'),
      amount_lte: parseIntegerFlag(f['amount-lte'], '--amount-lte'),
      effective_at_gte: optional(f['effective-at-gte'], '--effective-at-gte', parseDateTime),
      effective_at_lte: optional(f['effective-at-lte'], '--effective-at-lte', parseDateTime),
    }
    const api = await this.api()
    await this.renderList(api.subaccounts.activity(this.args.id, filters, paginate), ACTIVITY_COLUMNS)
  }
}
