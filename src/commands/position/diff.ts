import {ApiCommand} from '../../base-command.js'
import {POSITION_DIFF_COLUMNS} from '../../books/columns.js'
import {positionDiff} from '../../books/position.js'

export default class PositionDiff extends ApiCommand<typeof PositionDiff> {
  static override areas = ['treasury', 'transfers', 'subaccounts'] as const
  static override summary = 'What changed in the cash position since the last `position --save`.'
  static override description =
    'Takes the position now (same horizon and subaccounts as the snapshot) and lists, per account and subaccount, each figure that changed: before, after and the change. The snapshot is the latest one saved with the profile in use. Exit 2 when none was saved.'
  static override examples = ['<%= config.bin %> position diff', '<%= config.bin %> position diff -o json']

  async run(): Promise<void> {
    const d = await positionDiff(this.ctx)
    if (this.out.format === 'json') return this.out.value(d)
    await this.out.list(d.changes as unknown as Array<Record<string, unknown>>, POSITION_DIFF_COLUMNS, [...POSITION_DIFF_COLUMNS, {key: 'account_id', header: 'id'}])
    if (this.out.format === 'table') this.out.note(`${d.changes.length} change${d.changes.length === 1 ? '' : 's'} since snapshot ${d.snapshot_id} (${d.since}).`)
  }
}
