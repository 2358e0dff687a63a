import {Args} from '@oclif/core'
import {ApiCommand} from '../../base-command.js'
import {MOVE_COLUMNS, MOVE_KNOWN} from '../../output/columns.js'

export default class MovesCancel extends ApiCommand<typeof MovesCancel> {
  static override summary = 'Cancel a move that was created without auto-approval.'
  static override args = {id: Args.string({description: 'move id', required: true})}

  async run(): Promise<void> {
    await this.confirmMutation({action: `Cancel move ${this.args.id}`})
    const api = await this.api()
    const res = await api.moves.cancel(this.args.id)
    if (res.warning) this.out.warn(res.warning)
    if (res.data) await this.out.resource(res.data, MOVE_COLUMNS, MOVE_KNOWN)
    else this.out.note(`Canceled move ${this.args.id}.`)
  }
}
