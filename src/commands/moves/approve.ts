import {Args} from '@oclif/core'
import {ApiCommand} from '../../base-command.js'
import {RESULT_COLUMNS} from '../../output/columns.js'
import {runEach} from '../../api/bulk.js'

export default class MovesApprove extends ApiCommand<typeof MovesApprove> {
  static override summary = 'Approve and settle moves created without auto-approval.'
  static override description =
    'Takes several ids, or - to read ids (one per line) from stdin, and reports each. Exit 0 when all settled, 6 when some failed or settled only partly (207).'
  static override examples = ['<%= config.bin %> moves approve MOVE_1 MOVE_2', 'cat ids.txt | <%= config.bin %> moves approve -']
  static override strict = false
  static override args = {ids: Args.string({description: 'move ids, or - to read them from stdin', required: true})}

  async run(): Promise<void> {
    const ids = await this.idsFromArgv(this.positionals)
    await this.confirmMutation({action: `Approve and settle ${ids.length} move${ids.length === 1 ? '' : 's'}`, details: {ids: ids.join(', ')}})
    const api = await this.api()
    const report = await runEach(ids, (id) => api.moves.approve(id))
    for (const r of report.results) if (r.warning) this.out.warn(`${r.id}: ${r.warning}`)
    await this.out.list(report.results, RESULT_COLUMNS)
    report.throwIfFailed('approve')
  }
}
