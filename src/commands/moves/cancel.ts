import * as Args from '@oclif/core/args'
import {ApiCommand} from '../../base-command.js'
import {runMoveCancel} from '../../movements/commands.js'

export default class MovesCancel extends ApiCommand<typeof MovesCancel> {
  static override areas = ['moves', 'subaccounts'] as const
  static override summary = 'Cancel a move that was created without auto-approval.'
  static override examples = ['<%= config.bin %> moves cancel MOVE_ID', '<%= config.bin %> moves cancel MOVE_ID -p prod --yes -o json']
  static override args = {id: Args.string({description: 'move id', required: true})}

  async run(): Promise<void> {
    await runMoveCancel({id: this.args.id, guard: this.guardInput}, this.ctx)
  }
}
