import * as Flags from '@oclif/core/flags'
import {ApiCommand} from '../../base-command.js'
import {RAIL_OPTIONS_COLUMNS} from '../../output/columns.js'

export default class TransfersRails extends ApiCommand<typeof TransfersRails> {
  static override areas = ['transfers', 'treasury'] as const
  static override summary = 'Show the rails supported between two treasury accounts.'
  static override examples = ['<%= config.bin %> transfers rails --from ACC_USD --to ACC_GBP']
  static override flags = {
    from: Flags.string({summary: 'Source treasury account id.', required: true, aliases: ['from-account-id']}),
    to: Flags.string({summary: 'Destination treasury account id.', required: true, aliases: ['to-account-id']}),
  }

  async run(): Promise<void> {
    const api = await this.api()
    const res = await api.transfers.rails(this.flags.from, this.flags.to)
    if (res.warning) this.out.warn(res.warning)
    await this.out.resource(res.data, RAIL_OPTIONS_COLUMNS)
  }
}
