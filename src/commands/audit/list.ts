import * as Flags from '@oclif/core/flags'
import {BaseCommand} from '../../base-command.js'
import {runList} from '../../audit/run.js'
import {parseDateTime} from '../../flags.js'

export default class AuditList extends BaseCommand<typeof AuditList> {
  static override summary = 'Show the audit trail of mutating requests (intent before, outcome after).'
  static override description =
    'Reads the trail from the control store of the config dir (controls.sqlite in PAYOPS_CONFIG_DIR). Records hold no key, secret or token. ' +
    'The head (last record number and hash) follows on stderr: a note in table format, a {"head":{...}} line in the others, so stdout stays the list. ' +
    'Keep it elsewhere to check later with `audit verify --expect-head`. ' +
    'With a team store bound, --team lists the team store\'s records instead: every member\'s money decisions (intents, with the database role that recorded them) and their outcomes.'
  static override examples = [
    '<%= config.bin %> audit list --since 2026-01-01 --profile prod',
    '<%= config.bin %> audit list --columns seq,outcome,resource_status,from,to',
    '<%= config.bin %> audit list -o json --query \'[?status >= `400`].[seq, path, status, error_code]\'',
  ]
  static override flags = {
    since: Flags.string({summary: 'Only records at or after this date or date-time (UTC).'}),
    profile: Flags.string({char: 'p', summary: 'Only records made with this profile.'}),
    'max-items': Flags.integer({summary: 'Only the last N records.', min: 1}),
    team: Flags.boolean({summary: 'The team store\'s records instead: every member\'s money decisions (intents) and their outcomes.'}),
  }

  async run(): Promise<void> {
    const since = this.flags.since === undefined ? undefined : Date.parse(parseDateTime(this.flags.since, '--since'))
    await runList({since, profile: this.flags.profile, maxItems: this.flags['max-items'], team: this.flags.team}, this.ctx)
  }
}
