import * as Args from '@oclif/core/args'
import {ApiCommand} from '../../base-command.js'
import {renderOutcome, runOne} from '../../movements/command.js'
import {MOVE_COLUMNS, MOVE_KNOWN} from '../../output/columns.js'

export default class MovesCancel extends ApiCommand<typeof MovesCancel> {
  static override areas = ['moves', 'subaccounts'] as const
  static override summary = 'Cancel a move that was created without auto-approval.'
  static override examples = ['<%= config.bin %> moves cancel MOVE_ID', '<%= config.bin %> moves cancel MOVE_ID -p prod --yes -o json']
  static override args = {id: Args.string({description: 'move id', required: true})}

  async run(): Promise<void> {
    const outcome = await runOne(this.ctx, this.flags, {kind: 'move.cancel', id: this.args.id})
    await renderOutcome(this.ctx, outcome, MOVE_COLUMNS, MOVE_KNOWN)
  }
}
