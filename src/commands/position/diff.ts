import {ApiCommand} from '../../base-command.js'
import {runPositionDiff} from '../../books/commands.js'

export default class PositionDiff extends ApiCommand<typeof PositionDiff> {
  static override areas = ['treasury', 'transfers', 'subaccounts'] as const
  static override summary = 'What changed in the cash position since the last `position --save`.'
  static override description =
    'Takes the position now (same horizon and subaccounts as the snapshot) and lists, per account and subaccount, each figure that changed: before, after and the change. The snapshot is the latest one saved with the profile in use. Exit 2 when none was saved.'
  static override examples = ['<%= config.bin %> position diff', '<%= config.bin %> position diff -o json']

  async run(): Promise<void> {
    await runPositionDiff({}, this.ctx)
  }
}
