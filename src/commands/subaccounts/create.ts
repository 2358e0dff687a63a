import * as Flags from '@oclif/core/flags'
import {ApiCommand} from '../../base-command.js'
import {parseName} from '../../flags.js'
import {runSubaccountsCreate} from '../../subaccounts/run.js'

export default class SubaccountsCreate extends ApiCommand<typeof SubaccountsCreate> {
  static override areas = ['subaccounts'] as const
  static override summary = 'Create a subaccount (virtual account and routing numbers are assigned).'
  static override examples = ['<%= config.bin %> subaccounts create --name Payroll']
  static override flags = {
    name: Flags.string({summary: 'Name, 1 to 100 characters (trimmed; blank is refused).', required: true}),
  }

  async run(): Promise<void> {
    await runSubaccountsCreate({name: parseName(this.flags.name, '--name'), guard: this.guardInput}, this.ctx)
  }
}
