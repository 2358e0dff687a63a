import * as Flags from '@oclif/core/flags'
import {BaseCommand} from '../../base-command.js'
import {AUDIT_FILE} from '../../audit/index.js'
import {join} from 'node:path'
import {PayopsError, UsageError} from '../../errors.js'

export default class AuditVerify extends BaseCommand<typeof AuditVerify> {
  static override summary = 'Prove the audit trail\'s hash chain is intact and ends at its head.'
  static override description =
    'Checks every record\'s hash and link, and that the log ends with the record audit.head names (cut tails, a deleted log or head); exit 1 names the first broken line. Records dated earlier than a record before them (a clock set back) are reported on stderr (`backwards` with -o json); the chain is still intact. ' +
    'On success prints the head (record number and hash): keep it elsewhere and pass it back with --expect-head, the only check that catches a chain recomputed wholesale by someone who can write the config dir.'
  static override examples = ['<%= config.bin %> audit verify', '<%= config.bin %> audit verify --expect-head 3f2a9c0d41b7e8f6']
  static override flags = {
    'expect-head': Flags.string({summary: 'Also fail unless the head\'s hash is this one (or starts with it: at least 12 hex digits), kept from an earlier list or verify.'}),
  }

  async run(): Promise<void> {
    const expect = this.flags['expect-head']
    if (expect !== undefined && !/^[0-9a-f]{12,64}$/i.test(expect)) throw new UsageError('--expect-head takes the head\'s hash, or a prefix of it of at least 12 hex digits.')
    const trail = this.ctx.auditTrail()
    const file = join(trail.dir, AUDIT_FILE)
    const result = trail.verify({expectHead: expect})
    if (this.out.machine) await this.out.value({file, ...result})
    if (!result.ok) throw new PayopsError(result.message ?? `${file}: line ${result.line} ${result.reason}.`, 1)
    const n = result.records
    const head = result.head && result.head.seq > 0 ? ` Head: record ${result.head.seq}, hash ${result.head.hash}${expect ? ' (matches --expect-head)' : ''}.` : ''
    this.out.note(`${file}: intact, ${n} record${n === 1 ? '' : 's'}.${head}`)
    const back = result.backwards
    if (back) {
      const b = back.first[0]
      const more = back.count > 1 ? ` (and ${back.count - 1} more)` : ''
      this.out.warn(`times go backwards: record ${b.seq} (line ${b.line}) is dated ${b.time}, earlier than ${b.after} of a record before it${more}: a clock was set back while they were written. Daily caps count such records by their place in the trail.`)
    }
  }
}
