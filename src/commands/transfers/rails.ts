import * as Flags from '@oclif/core/flags'
import {ApiCommand} from '../../base-command.js'
import {runRails} from '../../transfers/run.js'

export default class TransfersRails extends ApiCommand<typeof TransfersRails> {
  static override areas = ['transfers', 'treasury'] as const
  static override summary = 'Show the rails supported between two treasury accounts.'
  static override examples = ['<%= config.bin %> transfers rails --from ACC_USD --to ACC_GBP']
  static override flags = {
    from: Flags.string({summary: 'Source treasury account id.', required: true, aliases: ['from-account-id']}),
    to: Flags.string({summary: 'Destination treasury account id.', required: true, aliases: ['to-account-id']}),
  }

  async run(): Promise<void> {
    await runRails({from: this.flags.from, to: this.flags.to}, this.ctx)
  }
}
