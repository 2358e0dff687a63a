import * as Args from '@oclif/core/args'
import {ApiCommand} from '../../base-command.js'
import {runMovesApprove} from '../../movements/commands.js'

export default class MovesApprove extends ApiCommand<typeof MovesApprove> {
  static override areas = ['moves', 'subaccounts'] as const
  static override summary = 'Approve and settle moves created without auto-approval.'
  static override description = [
    'Takes several ids, or - to read ids (one per line) from stdin, and reports each. Exit 0 when all settled, 6 when some failed or settled only partly (207).',
    'On a LIVE key (or a profile with limits) the amount, currency and destination of each move are taken from this machine\'s audit trail (the API cannot show one move). When they are unknown the confirmation says so and asks for the move id\'s last 6 characters; a profile with limits refuses it unless --override-limits.',
  ].join('\n')
  static override examples = ['<%= config.bin %> moves approve MOVE_1 MOVE_2', 'cat ids.txt | <%= config.bin %> moves approve -']
  static override strict = false
  static override flags = {...ApiCommand.guardFlags}
  static override args = {ids: Args.string({description: 'move ids, or - to read them from stdin', required: true})}

  async run(): Promise<void> {
    await runMovesApprove({ids: await this.idsFromArgv(this.positionals), guard: this.guardInput}, this.ctx)
  }
}
