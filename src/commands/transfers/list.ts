import * as Flags from '@oclif/core/flags'
import {ApiCommand} from '../../base-command.js'
import {RAIL_FILTER_VALUES, TRANSFER_STATUSES} from '../../api/schemas/transfers.js'
import {amountRangeFlags, amountRangeOf, dateTimeRange} from '../../flags.js'
import {runTransfersList} from '../../transfers/run.js'

export default class TransfersList extends ApiCommand<typeof TransfersList> {
  static override areas = ['transfers', 'treasury'] as const
  static override summary = 'List account transfers, with filters.'
  static override description = [
    'Repeatable filters are ORed: --account matches transfers from or to any of the accounts; --rail and --status match any of their values (also comma-separated).',
    'Rail groups are expanded here into the rails they stand for, so only documented rails are sent: ach (same_day_ach, standard_ach), instant (instant_card, instant_bank), all (the five).',
    '--amount-gte/--amount-lte are decimals (100.00) read in --currency, else in the currency the --account accounts share (one lookup); without either, give --currency or use --amount-minor-gte/--amount-minor-lte (minor units; also --amount-in-minor-units-gte/-lte, the API names). --currency only says how to read the amounts: it filters nothing.',
    'Ranges are inclusive; a bare date as --created-at-lte includes that whole UTC day; a range whose lower bound is above its upper bound is refused (exit 2).',
  ].join('\n')
  static override examples = [
    '<%= config.bin %> transfers list --account ACCOUNT_ID --status initiated --status settled',
    '<%= config.bin %> transfers list --account ACCOUNT_ID --amount-gte 1000.00 --amount-lte 5000',
    '<%= config.bin %> transfers list --rail ach --amount-minor-gte 100000 --created-at-gte 2026-01-01 --all -o ndjson',
  ]
  static override flags = {
    ...ApiCommand.listFlags,
    account: Flags.string({summary: 'Treasury account id, as source or destination (repeatable).', multiple: true, delimiter: ',', aliases: ['account-id', 'account_id']}),
    rail: Flags.option({summary: 'Rail or rail group (repeatable).', options: RAIL_FILTER_VALUES, multiple: true, delimiter: ','})(),
    status: Flags.option({summary: 'Status (repeatable).', options: TRANSFER_STATUSES, multiple: true, delimiter: ','})(),
    ...amountRangeFlags({
      currency: '--currency, else the --account accounts\' currency',
      mirror: {gte: ['amount-in-minor-units-gte', 'amount_in_minor_units_gte'], lte: ['amount-in-minor-units-lte', 'amount_in_minor_units_lte']},
    }),
    currency: Flags.string({summary: 'ISO 4217 currency of --amount-gte/--amount-lte (not a filter).'}),
    'created-at-gte': Flags.string({summary: 'Created at or after (ISO 8601 date-time; a date is its start, UTC).', aliases: ['created_at_gte']}),
    'created-at-lte': Flags.string({summary: 'Created at or before (ISO 8601 date-time; a date is its whole day, UTC).', aliases: ['created_at_lte']}),
  }

  async run(): Promise<void> {
    const f = this.flags
    const list = this.listInput
    const created = dateTimeRange(f['created-at-gte'], f['created-at-lte'], 'created-at')
    await runTransfersList({list, account: f.account, rail: f.rail, status: f.status, amount: amountRangeOf(f), currency: f.currency, created}, this.ctx)
  }
}
