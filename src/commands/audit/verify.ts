import * as Args from '@oclif/core/args'
import * as Flags from '@oclif/core/flags'
import {BaseCommand} from '../../base-command.js'
import {runVerify} from '../../audit/run.js'

export default class AuditVerify extends BaseCommand<typeof AuditVerify> {
  static override summary = 'Prove the trail\'s hash chain (or an export\'s) is intact and ends at its head.'
  static override description =
    'Without FILE, checks the trail in the control store of the config dir (controls.sqlite); with FILE, a file written by `audit export --format jsonl`. Checks every record\'s hash and link, and that the chain ends with the record its head names (records cut off the end, deleted records or head); exit 1 names the first broken record (the store) or line (a file). Records dated earlier than a record before them (a clock set back) are reported on stderr (`backwards` with -o json); the chain is still intact. ' +
    'On success prints the head (record number and hash): keep it elsewhere and pass it back with --expect-head, the only check that catches a chain recomputed wholesale by someone who can write the config dir.'
  static override examples = ['<%= config.bin %> audit verify', '<%= config.bin %> audit verify --expect-head 3f2a9c0d41b7e8f6', '<%= config.bin %> audit verify trail-2026-06.jsonl']
  static override args = {file: Args.string({description: 'an exported trail (audit export --format jsonl) to check instead of the store', required: false})}
  static override flags = {
    'expect-head': Flags.string({summary: 'Also fail unless the head\'s hash is this one (or starts with it: at least 12 hex digits), kept from an earlier list, verify or export.'}),
  }

  async run(): Promise<void> {
    await runVerify({file: this.args.file, expectHead: this.flags['expect-head']}, this.ctx)
  }
}
