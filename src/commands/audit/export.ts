import * as Flags from '@oclif/core/flags'
import {BaseCommand} from '../../base-command.js'
import {runExport} from '../../audit/run.js'

export default class AuditExport extends BaseCommand<typeof AuditExport> {
  static override summary = 'Write the audit trail as JSON lines with its head, for `audit verify FILE`.'
  static override description =
    'Writes every record of the trail in its store, in order, one JSON object a line (the record format of the old audit.jsonl: seq, time, prev, hash and the request\'s fields), then one last line {"head":{"seq":N,"hash":H}} so that lines cut off the end are detected. ' +
    'To stdout, or with --out to a new file (0600, never over another). `payops audit verify FILE` checks it anywhere: edited, removed, reordered or cut lines are named.'
  static override examples = ['<%= config.bin %> audit export --format jsonl --out trail-2026-06.jsonl', '<%= config.bin %> audit export --format jsonl | gzip > trail.jsonl.gz']
  static override flags = {
    format: Flags.option({summary: 'The export format.', options: ['jsonl'] as const, default: 'jsonl' as const})(),
    out: Flags.string({summary: 'The file to write (must not exist); stdout without.'}),
  }

  async run(): Promise<void> {
    await runExport({format: this.flags.format, out: this.flags.out}, this.ctx)
  }
}
