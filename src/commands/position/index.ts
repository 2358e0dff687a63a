import * as Flags from '@oclif/core/flags'
import {ApiCommand} from '../../base-command.js'
import {POSITION_COLUMNS, POSITION_KNOWN, POSITION_REPORTING_COLUMN, SCHEDULE_COLUMNS} from '../../books/columns.js'
import {DEFAULT_HORIZON_DAYS, MAX_HORIZON_DAYS, position, positionRows, saveSnapshot, scheduleRows, unreadableLines} from '../../books/position.js'

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
    const p = await position({horizon: f.horizon, reportingCurrency: f['reporting-currency'], subaccounts: [...new Set(f.subaccount ?? [])]}, this.ctx)
    // A figure payops cannot read exactly is named; every other account is shown.
    for (const line of unreadableLines(p)) this.out.warn(line)
    if (this.out.format === 'json') await this.out.value(p)
    else {
      const cols = p.totals ? [...POSITION_COLUMNS.slice(0, -1), POSITION_REPORTING_COLUMN, POSITION_COLUMNS.at(-1)!] : POSITION_COLUMNS
      await this.out.list(positionRows(p), cols, POSITION_KNOWN)
      if (this.out.format === 'table') {
        const schedule = scheduleRows(p)
        this.out.note(schedule.length ? `Scheduled over the next ${p.horizon_days} days (to ${p.horizon_end}):` : `Nothing scheduled over the next ${p.horizon_days} days.`)
        if (schedule.length) await this.out.list(schedule, SCHEDULE_COLUMNS)
        if (p.totals) this.out.note(`Totals in ${p.totals.currency_code} are ${p.totals.note}.`)
      }
    }
    if (f.save) {
      const id = saveSnapshot(p, this.ctx, p.totals?.currency_code)
      this.out.note(`Saved position snapshot ${id} (${p.as_of}); \`payops position diff\` compares with it.`)
    }
  }
}
