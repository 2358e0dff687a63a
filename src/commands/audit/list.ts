import * as Flags from '@oclif/core/flags'
import {BaseCommand} from '../../base-command.js'
import {AUDIT_HEAD, type AuditRecord} from '../../audit/index.js'
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
  // created, replayed, advanced, conflict: what the request did (a replay moved nothing).
  {key: 'outcome'},
  {key: 'amount', money: {amount: 'amount_in_minor_units', currency: 'currency_code'}},
  {key: 'from', names: true},
  {key: 'to', names: true},
  {key: 'resource_id', header: 'resource'},
  {key: 'error_code', header: 'error'},
]
/** Every field a record may hold (an intent lacks the outcome's): each one a --columns name. */
const AUDIT_KNOWN: Column[] = [
  ...AUDIT_COLUMNS,
  ...['resource_status', 'idempotency_key', 'request_id', 'amount_in_minor_units', 'currency_code', 'attempts', 'key_id', 'operator', 'os_user', 'host', 'maker', 'details', 'op', 'pid', 'hash', 'prev'].map((key) => ({key})),
]

export default class AuditList extends BaseCommand<typeof AuditList> {
  static override summary = 'Show the audit trail of mutating requests (intent before, outcome after).'
  static override description =
    'Reads audit.jsonl in the config dir (PAYOPS_CONFIG_DIR). Records hold no key, secret or token. ' +
    'The head (last record number and hash, from audit.head) follows on stderr: a note in table format, a {"head":{...}} line in the others, so stdout stays the list. ' +
    'Keep it elsewhere to check later with `audit verify --expect-head`.'
  static override examples = [
    '<%= config.bin %> audit list --since 2026-01-01 --profile prod',
    '<%= config.bin %> audit list --columns seq,outcome,resource_status,from,to',
    '<%= config.bin %> audit list -o json --query \'[?status >= `400`].[seq, path, status, error_code]\'',
  ]
  static override flags = {
    since: Flags.string({summary: 'Only records at or after this date or date-time (UTC).'}),
    profile: Flags.string({char: 'p', summary: 'Only records made with this profile.'}),
    'max-items': Flags.integer({summary: 'Only the last N records.', min: 1}),
  }

  async run(): Promise<void> {
    const since = this.flags.since === undefined ? undefined : Date.parse(parseDateTime(this.flags.since, '--since'))
    const trail = this.ctx.auditTrail()
    let records: AuditRecord[] = trail.records()
    const total = records.length
    if (since !== undefined) records = records.filter((r) => Date.parse(r.time) >= since)
    if (this.flags.profile) records = records.filter((r) => r.profile === this.flags.profile)
    if (this.flags['max-items']) records = records.slice(-this.flags['max-items'])
    await this.out.list(records as unknown as Record<string, unknown>[], AUDIT_COLUMNS, AUDIT_KNOWN)
    const head = trail.head()
    if (head.state === 'ok') {
      if (this.out.machine) this.out.note(JSON.stringify({head: head.head}))
      else if (head.head.seq > 0) this.out.note(`Head: record ${head.head.seq}, hash ${head.head.hash} (keep it elsewhere; check later with \`payops audit verify --expect-head HASH\`).`)
    } else if (head.state === 'garbled' || total > 0) {
      this.out.warn(`${AUDIT_HEAD} ${head.state === 'garbled' ? head.detail : 'is missing'}: run \`payops audit verify\`.`)
    }
  }
}
