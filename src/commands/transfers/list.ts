import {Flags} from '@oclif/core'
import {ApiCommand} from '../../base-command.js'
import {TRANSFER_COLUMNS, TRANSFER_KNOWN} from '../../output/columns.js'
import {parseDateTime, parseIntegerFlag, optional} from '../../flags.js'
import {RAIL_FILTER_VALUES, TRANSFER_STATUSES} from '../../api/schemas/transfers.js'

export default class TransfersList extends ApiCommand<typeof TransfersList> {
  static override areas = ['transfers', 'treasury'] as const
  static override summary = 'List account transfers, with filters.'
  static override description = [
    'Repeatable filters are ORed: --account matches transfers from or to any of the accounts; --rail and --status match any of their values (also comma-separated).',
    'Rail groups: ach (same_day_ach, standard_ach), instant (instant_card, instant_bank), all. Amounts are integers in minor units; ranges are inclusive.',
  ].join('\n')
  static override examples = [
    '<%= config.bin %> transfers list --account ACCOUNT_ID --status initiated --status settled',
    '<%= config.bin %> transfers list --rail ach --amount-gte 100000 --created-at-gte 2026-01-01 --all -o ndjson',
  ]
  static override flags = {
    ...ApiCommand.listFlags,
    account: Flags.string({summary: 'Treasury account id, as source or destination (repeatable).', multiple: true, delimiter: ',', aliases: ['account-id']}),
    rail: Flags.option({summary: 'Rail or rail group (repeatable).', options: RAIL_FILTER_VALUES, multiple: true, delimiter: ','})(),
    status: Flags.option({summary: 'Status (repeatable).', options: TRANSFER_STATUSES, multiple: true, delimiter: ','})(),
    'amount-gte': Flags.string({summary: 'Amount at least this many minor units.', aliases: ['amount-in-minor-units-gte']}),
    'amount-lte': Flags.string({summary: 'Amount at most this many minor units.', aliases: ['amount-in-minor-units-lte']}),
    'created-at-gte': Flags.string({summary: 'Created at or after (ISO 8601 date-time).'}),
    'created-at-lte': Flags.string({summary: 'Created at or before (ISO 8601 date-time).'}),
  }

  async run(): Promise<void> {
    const f = this.flags
    const {limit, order, paginate} = this.listOptions()
    const filters = {
      limit,
      order,
      account_id: f.account,
      rail: f.rail,
      status: f.status,
      amount_in_minor_units_gte: parseIntegerFlag(f['amount-gte'], '--amount-gte'),
      amount_in_minor_units_lte: parseIntegerFlag(f['amount-lte'], '--amount-lte'),
      created_at_gte: optional(f['created-at-gte'], '--created-at-gte', parseDateTime),
      created_at_lte: optional(f['created-at-lte'], '--created-at-lte', parseDateTime),
    }
    const api = await this.api()
    await this.renderList(api.transfers.list(filters, paginate), TRANSFER_COLUMNS, TRANSFER_KNOWN)
  }
}
