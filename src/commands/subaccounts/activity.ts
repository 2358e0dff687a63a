import * as Args from '@oclif/core/args'
import * as Flags from '@oclif/core/flags'
import {ApiCommand} from '../../base-command.js'
import {amountRangeFlags, amountRangeOf, dateTimeRange} from '../../flags.js'
import {runSubaccountsActivity} from '../../subaccounts/run.js'

export default class SubaccountsActivity extends ApiCommand<typeof SubaccountsActivity> {
  static override areas = ['subaccounts'] as const
  static override summary = 'List a subaccount\'s activity (moves and bank-reported credits).'
  static override description = [
    '--amount-gte/--amount-lte are decimals (100.00) in the subaccount\'s own currency, read with one GET of the subaccount first; --amount-minor-gte/--amount-minor-lte (also --amount_gte/--amount_lte, the API names) are minor units and need no lookup.',
    'Ranges are inclusive; a bare date as --effective-at-lte includes that whole UTC day; a range whose lower bound is above its upper bound is refused (exit 2).',
  ].join('\n')
  static override examples = [
    '<%= config.bin %> subaccounts activity SUB_ID --direction credit --amount-gte 100.00',
    '<%= config.bin %> subaccounts activity SUB_ID --effective-at-gte 2026-01-01 --effective-at-lte 2026-01-31 --amount-minor-lte 50000',
    '<%= config.bin %> subaccounts activity SUB_ID --all -o ndjson',
  ]
  static override args = {id: Args.string({description: 'subaccount id', required: true})}
  static override flags = {
    ...ApiCommand.listFlags,
    direction: Flags.option({summary: 'Only credits or only debits.', options: ['credit', 'debit'] as const})(),
    ...amountRangeFlags({currency: 'the subaccount\'s currency', mirror: {gte: ['amount_gte'], lte: ['amount_lte']}}),
    'effective-at-gte': Flags.string({summary: 'Effective at or after (ISO 8601, UTC; a date is its start).', aliases: ['effective_at_gte']}),
    'effective-at-lte': Flags.string({summary: 'Effective at or before (ISO 8601, UTC; a date is its whole day).', aliases: ['effective_at_lte']}),
  }

  async run(): Promise<void> {
    const f = this.flags
    const list = this.listInput
    const effective = dateTimeRange(f['effective-at-gte'], f['effective-at-lte'], 'effective-at')
    await runSubaccountsActivity({id: this.args.id, list, direction: f.direction, amount: amountRangeOf(f), effective}, this.ctx)
  }
}
