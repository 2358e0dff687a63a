import {Args} from '@oclif/core'
import {ApiCommand} from '../../base-command.js'
import {MOVE_COLUMNS, MOVE_KNOWN} from '../../output/columns.js'

export default class MovesCancel extends ApiCommand<typeof MovesCancel> {
  static override summary = 'Cancel a move that was created without auto-approval.'
  static override args = {id: Args.string({description: 'move id', required: true})}

  async run(): Promise<void> {
    const outcome = await this.movement({kind: 'move.cancel', id: this.args.id})
    await this.renderOutcome(outcome, MOVE_COLUMNS, MOVE_KNOWN)
  }
}
