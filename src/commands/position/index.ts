import * as Flags from '@oclif/core/flags'
import {ApiCommand} from '../../base-command.js'
import {DEFAULT_HORIZON_DAYS, MAX_HORIZON_DAYS} from '../../books/position.js'
import {runPosition} from '../../books/commands.js'

export default class Position extends ApiCommand<typeof Position> {
  static override areas = ['treasury', 'transfers', 'subaccounts'] as const
  static override summary = 'Cash position: balances, committed and scheduled transfers, projected balance.'
  static override description = [
    'Per treasury account: the balance now, committed transfers (created, approved or initiated, due today or unscheduled), the transfers scheduled for each day of the horizon, and the projected balance at its end. Per subaccount given with --subaccount: its balance (held within its account\'s, so never added to totals).',
    '--reporting-currency adds totals converted with the conversion-estimate operation (to an account of that currency): indicative, an estimate and not a quote. --save keeps this position in books.sqlite; `payops position diff` shows what changed since.',
  ].join('\n\n')
  static override examples = ['<%= config.bin %> position', '<%= config.bin %> position --horizon 30 --reporting-currency USD --save', '<%= config.bin %> position -o json']
  static override flags = {
    horizon: Flags.integer({summary: `Days ahead to count scheduled transfers (0 to ${MAX_HORIZON_DAYS}).`, default: DEFAULT_HORIZON_DAYS, min: 0, max: MAX_HORIZON_DAYS}),
    'reporting-currency': Flags.string({summary: 'Add indicative totals in this currency (through the conversion-estimate operation).'}),
    subaccount: Flags.string({summary: 'A subaccount to show (repeatable).', multiple: true}),
    save: Flags.boolean({summary: 'Keep this position as a snapshot for `payops position diff`.'}),
  }

  async run(): Promise<void> {
    const f = this.flags
    await runPosition({horizon: f.horizon, reportingCurrency: f['reporting-currency'], subaccounts: [...new Set(f.subaccount ?? [])], save: f.save}, this.ctx)
  }
}
