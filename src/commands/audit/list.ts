import {Flags} from '@oclif/core'
import {BaseCommand} from '../../base-command.js'
import {configDir} from '../../config/index.js'
import {readAudit, type AuditRecord} from '../../audit/index.js'
import {parseDateTime} from '../../flags.js'
import type {Column} from '../../output/index.js'

const AUDIT_COLUMNS: Column[] = [
  {key: 'seq'},
  {key: 'time'},
  {key: 'profile'},
  {key: 'mode', get: (r) => String(r.mode).toUpperCase()},
  {key: 'kind'},
  {key: 'method'},
  {key: 'path'},
  {key: 'status'},
  {key: 'amount', money: {amount: 'amount_in_minor_units', currency: 'currency_code'}},
  {key: 'resource_id', header: 'resource'},
  {key: 'error_code', header: 'error'},
]
const AUDIT_KNOWN: Column[] = [...AUDIT_COLUMNS, {key: 'idempotency_key'}, {key: 'request_id'}, {key: 'from'}, {key: 'to'}, {key: 'op'}, {key: 'hash'}, {key: 'prev'}]

export default class AuditList extends BaseCommand<typeof AuditList> {
  static override summary = 'Show the audit trail of mutating requests (intent before sending, outcome after).'
  static override description = 'Reads audit.jsonl in the config dir (PAYOPS_CONFIG_DIR). Records hold no key, secret or token.'
  static override examples = ['<%= config.bin %> audit list --since 2026-01-01 --profile prod', '<%= config.bin %> audit list -o json --query "[?kind==\'outcome\' && status>=`400`]"']
  static override flags = {
    since: Flags.string({summary: 'Only records at or after this date or date-time (UTC).'}),
    profile: Flags.string({char: 'p', summary: 'Only records made with this profile.'}),
    'max-items': Flags.integer({summary: 'Only the last N records.', min: 1}),
  }

  async run(): Promise<void> {
    const since = this.flags.since === undefined ? undefined : Date.parse(parseDateTime(this.flags.since, '--since'))
    let records: AuditRecord[] = readAudit(configDir())
    if (since !== undefined) records = records.filter((r) => Date.parse(r.time) >= since)
    if (this.flags.profile) records = records.filter((r) => r.profile === this.flags.profile)
    if (this.flags['max-items']) records = records.slice(-this.flags['max-items'])
    await this.out.list(records as unknown as Record<string, unknown>[], AUDIT_COLUMNS, AUDIT_KNOWN)
  }
}
