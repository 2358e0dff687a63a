import * as Args from '@oclif/core/args'
import * as Flags from '@oclif/core/flags'
import {ApiCommand} from '../../base-command.js'
import {runImportCommand} from '../../import/command.js'

export default class MovesImport extends ApiCommand<typeof MovesImport> {
  static override areas = ['moves', 'subaccounts'] as const
  static override summary = 'Create moves from a CSV file, exactly once, resumable after any interruption.'
  static override description = `Columns: from, to, and amount (a decimal, with a currency column or --currency) or amount_in_minor_units; optional idempotency_key, auto_approve and metadata.<key> columns. Every row is validated and checked before anything is sent (the file itself, that each source and destination exists for this key, currencies, the profile's limits; all problems are listed with their line numbers; --dry-run does every check and stops there). The row count and the total per currency are shown for confirmation (always on LIVE keys; on test keys unless --yes).

Each row gets a stable Idempotency-Key (the idempotency_key column, or one derived from the import's batch id and the row's content), and a database beside the file (FILE.payops-import.sqlite, or the one --journal names; required for stdin) records the plan, every key, the content it was sent with, and its outcome. Re-running the same command after Ctrl-C, kill -9, a crash or a network outage skips what is done and finishes the rest exactly once; rows appended to the file later are sent on the next run, and a row already sent whose content changed stops the import (exit 2). Exit 6 when any row failed.

Under a maker-checker policy, the rows it covers are created without auto-approval and counted as awaiting_approval (exit 0 when that is all; a checker approves them); the dry run and the confirmation name those rows.`
  static override examples = [
    '<%= config.bin %> moves import payroll.csv --dry-run',
    '<%= config.bin %> moves import payroll.csv --concurrency 8 --yes',
    'generate-moves | <%= config.bin %> moves import - --journal payroll-2026-11.sqlite --yes',
  ]
  static override args = {file: Args.string({description: 'CSV file of moves', required: true})}
  static override flags = {
    'dry-run': Flags.boolean({summary: 'Validate and check every row and show the plan; send nothing.'}),
    concurrency: Flags.integer({summary: 'Moves in flight at once.', default: 4, min: 1, max: 64}),
    currency: Flags.string({summary: 'Currency of decimal amounts when the file has no currency column.', default: 'USD'}),
    'new-batch': Flags.boolean({summary: 'Import the file again as a new batch with new keys (archives the old journal; asks before re-sending rows already sent).'}),
    journal: Flags.string({summary: 'The database recording what was sent (default FILE.payops-import.sqlite; required when FILE is -).'}),
    ...ApiCommand.guardFlags,
  }

  protected override get transportKind(): 'pool' {
    return 'pool'
  }

  async run(): Promise<void> {
    const f = this.flags
    await runImportCommand({file: this.args.file, journal: f.journal, dryRun: f['dry-run'], concurrency: f.concurrency, currency: f.currency, newBatch: f['new-batch'], guard: this.guardInput}, this.ctx)
  }
}
