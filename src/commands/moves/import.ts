import {Args, Flags} from '@oclif/core'
import {ApiCommand} from '../../base-command.js'
import {NotConfirmedError, PartialError, UsageError} from '../../errors.js'
import {formatMoney, toDecimalString} from '../../money.js'
import {importFile, type ImportPlan} from '../../import/index.js'
import type {Column} from '../../output/index.js'

const FAILURE_COLUMNS: Column[] = [{key: 'line'}, {key: 'key'}, {key: 'message'}]
const SUMMARY_COLUMNS: Column[] = [
  {key: 'file'},
  {key: 'journal'},
  {key: 'rows'},
  {key: 'created'},
  {key: 'replayed'},
  {key: 'skipped', header: 'done before'},
  {key: 'partial'},
  {key: 'failed'},
  {key: 'interrupted'},
  {key: 'totals', get: (r) => describeTotals(r.totals as Record<string, number>)},
]

function describeTotals(totals: Record<string, number>): string {
  return Object.entries(totals)
    .map(([cur, v]) => formatMoney(v, cur))
    .join(', ')
}

export default class MovesImport extends ApiCommand<typeof MovesImport> {
  static override summary = 'Create moves from a CSV file, exactly once, resumable after any interruption.'
  static override description = `Columns: from, to, and amount (a decimal, with a currency column or --currency) or amount_in_minor_units; optional idempotency_key, auto_approve and metadata.<key> columns. Every row is validated before anything is sent (all errors are listed with their line numbers; --dry-run stops there). The row count and the total per currency are shown for confirmation (always on LIVE keys; on test keys unless --yes).

Each row gets a stable Idempotency-Key (the idempotency_key column, or one derived from the import's batch id and the row's content), and a journal beside the file (FILE.payops-journal.jsonl) records every key and outcome. Re-running the same command after Ctrl-C, kill -9, a crash or a network outage skips what is done and finishes the rest exactly once. Exit 6 when any row failed.`
  static override examples = ['<%= config.bin %> moves import payroll.csv --dry-run', '<%= config.bin %> moves import payroll.csv --concurrency 8 --yes']
  static override args = {file: Args.string({description: 'CSV file of moves', required: true})}
  static override flags = {
    'dry-run': Flags.boolean({summary: 'Validate every row and show the plan; send nothing.'}),
    concurrency: Flags.integer({summary: 'Moves in flight at once.', default: 4, min: 1, max: 64}),
    currency: Flags.string({summary: 'Currency of decimal amounts when the file has no currency column.', default: 'USD'}),
    'new-batch': Flags.boolean({summary: 'Start a new import of this file even though a finished journal exists (archives the old journal).'}),
    ...ApiCommand.guardFlags,
  }

  protected override get transportKind(): 'pool' {
    return 'pool'
  }

  async run(): Promise<void> {
    const f = this.flags
    const plan: ImportPlan = await importFile.plan(this.args.file, {defaultCurrency: f.currency, newBatch: f['new-batch']})
    if (plan.errors.length) {
      for (const e of plan.errors) this.out.note(`line ${e.line}: ${e.message}`)
      throw new UsageError(`${plan.errors.length} problem${plan.errors.length === 1 ? '' : 's'} in ${this.args.file}; nothing was sent.`)
    }
    const pendingRows = plan.rows.filter((r) => !plan.state.done.has(r.key))
    const pending = pendingRows.length
    const movements = pendingRows.map((r) => ({amount_in_minor_units: r.amount_in_minor_units, currency: r.currency, to: r.to_subaccount_id, label: `line ${r.line}`}))
    const violations = this.limitReport(movements)
    if (violations.length) {
      for (const v of violations) this.out.note(v)
      if (!f['override-limits']) {
        throw new NotConfirmedError(`${violations.length} row${violations.length === 1 ? ' breaks' : 's break'} the profile's limits; nothing was sent (--override-limits overrides it after confirmation).`)
      }
    }
    const summaryLine = `Import ${plan.rows.length} move${plan.rows.length === 1 ? '' : 's'} from ${this.args.file}: ${describeTotals(plan.totals)}${plan.alreadyDone ? ` (${plan.alreadyDone} already done, ${pending} to send)` : ''}`
    if (f['dry-run']) {
      this.out.note(`${summaryLine}. Dry run: nothing was sent.`)
      await this.out.resource({file: this.args.file, journal: plan.journalPath, rows: plan.rows.length, to_send: pending, already_done: plan.alreadyDone, totals: plan.totals, batch_id: plan.batchId, dry_run: true}, [
        {key: 'file'},
        {key: 'rows'},
        {key: 'to_send'},
        {key: 'already_done'},
        {key: 'totals', get: (r) => describeTotals(r.totals as Record<string, number>)},
        {key: 'journal'},
      ])
      return
    }
    const api = await this.api()
    if (pending > 0) {
      const mismatches = await importFile.checkCurrencies(api, plan)
      if (mismatches.length) {
        for (const e of mismatches) this.out.note(`line ${e.line}: ${e.message}`)
        throw new UsageError(`${mismatches.length} row${mismatches.length === 1 ? '' : 's'} do not match their source subaccount's currency; nothing was sent.`)
      }
      const currencies = Object.keys(plan.totals)
      const typed = currencies.length === 1 ? toDecimalString(plan.totals[currencies[0]], currencies[0]) : String(pending)
      await this.confirmMovement({action: summaryLine, amount: describeTotals(plan.totals), details: {journal: plan.journalPath}}, movements, typed, {evenOnTest: true})
    }
    const progress = await this.progressBar(plan.rows.length)
    const abort = new AbortController()
    let interrupts = 0
    const onSignal = () => {
      interrupts++
      if (interrupts === 1) {
        abort.abort()
        progress?.stop()
        this.out.note('Stopping after the moves in flight (Ctrl-C again to quit at once; a re-run finishes the rest exactly once).')
      } else {
        plan.close()
        process.exit(130)
      }
    }
    process.on('SIGINT', onSignal)
    process.on('SIGTERM', onSignal)
    let result
    try {
      result = await importFile.run(api, plan, {concurrency: f.concurrency, signal: abort.signal, onProgress: (n) => progress?.update(n)})
    } finally {
      progress?.stop()
      process.off('SIGINT', onSignal)
      process.off('SIGTERM', onSignal)
      plan.close()
    }
    const summary = {file: this.args.file, journal: plan.journalPath, batch_id: plan.batchId, rows: plan.rows.length, totals: plan.totals, ...result}
    await this.out.resource(summary, SUMMARY_COLUMNS)
    // Machine formats carry the failures inside the summary; a table lists them below it.
    if (!this.out.machine && result.failures.length) {
      this.out.note('')
      await this.out.list(result.failures, FAILURE_COLUMNS)
    }
    if (result.interrupted) {
      throw new PartialError(`Interrupted: ${result.created + result.replayed + result.skipped + result.partial} of ${plan.rows.length} done; re-run the same command to finish.`)
    }
    if (result.failed > 0) throw new PartialError(`${result.failed} of ${plan.rows.length} rows failed (see the journal ${plan.journalPath}); re-run to retry them with the same keys.`)
  }

  private async progressBar(total: number): Promise<{update(n: number): void; stop(): void} | undefined> {
    if (!process.stderr.isTTY) return undefined
    const {default: cliProgress} = await import('cli-progress')
    const bar = new cliProgress.SingleBar(
      {format: 'moves {bar} {value}/{total} ({percentage}%) eta {eta_formatted}', stream: process.stderr, hideCursor: true, clearOnComplete: false},
      cliProgress.Presets.shades_classic,
    )
    bar.start(total, 0)
    let stopped = false
    return {
      update: (n) => bar.update(n),
      stop: () => {
        if (!stopped) bar.stop()
        stopped = true
      },
    }
  }
}
