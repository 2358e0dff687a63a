import {Args} from '@oclif/core'
import {ApiCommand} from '../../base-command.js'
import {RESULT_COLUMNS} from '../../output/columns.js'
import {runEach} from '../../api/bulk.js'
import {totalsByCurrency} from '../../import/csv.js'
import {formatMoney, toDecimalString} from '../../money.js'

export default class MovesApprove extends ApiCommand<typeof MovesApprove> {
  static override summary = 'Approve and settle moves created without auto-approval.'
  static override description =
    'Takes several ids, or - to read ids (one per line) from stdin, and reports each. Exit 0 when all settled, 6 when some failed or settled only partly (207).'
  static override examples = ['<%= config.bin %> moves approve MOVE_1 MOVE_2', 'cat ids.txt | <%= config.bin %> moves approve -']
  static override strict = false
  static override flags = {...ApiCommand.guardFlags}
  static override args = {ids: Args.string({description: 'move ids, or - to read them from stdin', required: true})}

  async run(): Promise<void> {
    const ids = await this.idsFromArgv(this.positionals)
    const api = await this.api()
    if (this.movementNeedsDetails) {
      const moves = await api.moves.describeForApproval(ids)
      const totals = totalsByCurrency(moves.map((m) => ({amount_in_minor_units: m.amount_in_minor_units, currency: m.currency})))
      const single = Object.keys(totals).length === 1
      const [cur] = Object.keys(totals)
      await this.confirmMovement(
        {
          action: `Approve and settle ${ids.length} move${ids.length === 1 ? '' : 's'}`,
          amount: Object.entries(totals).map(([c, v]) => formatMoney(v, c)).join(', ') || undefined,
          details: {ids: ids.length <= 5 ? ids.join(', ') : `${ids.slice(0, 5).join(', ')} and ${ids.length - 5} more`},
        },
        moves,
        single ? toDecimalString(totals[cur], cur) : String(ids.length),
      )
    }
    const report = await runEach(ids, (id) => api.moves.approve(id))
    for (const r of report.results) if (r.warning) this.out.warn(`${r.id}: ${r.warning}`)
    await this.out.list(report.results, RESULT_COLUMNS)
    report.throwIfFailed('approve')
  }
}
