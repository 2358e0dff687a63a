import {BaseCommand} from '../../base-command.js'
import {configDir} from '../../config/index.js'
import {verifyAudit} from '../../audit/index.js'
import {join} from 'node:path'
import {PayopsError} from '../../errors.js'

export default class AuditVerify extends BaseCommand<typeof AuditVerify> {
  static override summary = 'Prove the audit trail\'s hash chain is intact (exit 1 naming the first broken line).'

  async run(): Promise<void> {
    const dir = configDir()
    const file = join(dir, 'audit.jsonl')
    const result = verifyAudit(dir)
    if (this.out.machine) await this.out.value({file, ...result})
    if (!result.ok) throw new PayopsError(`${file}: line ${result.line} ${result.reason}.`, 1)
    this.out.note(`${file}: intact, ${result.records} record${result.records === 1 ? '' : 's'}.`)
  }
}
