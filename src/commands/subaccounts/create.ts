import * as Flags from '@oclif/core/flags'
import {ApiCommand} from '../../base-command.js'
import {confirmMutation} from '../../movements/command.js'
import {SUBACCOUNT_COLUMNS} from '../../output/columns.js'
import {parseName} from '../../flags.js'

export default class SubaccountsCreate extends ApiCommand<typeof SubaccountsCreate> {
  static override areas = ['subaccounts'] as const
  static override summary = 'Create a subaccount (virtual account and routing numbers are assigned).'
  static override examples = ['<%= config.bin %> subaccounts create --name Payroll']
  static override flags = {
    name: Flags.string({summary: 'Name, 1 to 100 characters (trimmed; blank is refused).', required: true}),
  }

  async run(): Promise<void> {
    const name = parseName(this.flags.name, '--name')
    await confirmMutation(this.ctx, this.flags, {action: `Create subaccount "${name}"`})
    const api = await this.api()
    const res = await api.subaccounts.create(name)
    this.ctx.names.remember(res.data.id, res.data.name, 'subaccount')
    if (res.warning) this.out.warn(res.warning)
    await this.out.resource(res.data, SUBACCOUNT_COLUMNS)
  }
}
