import * as Args from '@oclif/core/args'
import {ApiCommand} from '../../base-command.js'
import {runPayeesGet} from '../../parties/run.js'

export default class PayeesGet extends ApiCommand<typeof PayeesGet> {
  static override areas = ['payees'] as const
  static override summary = 'Show a payee.'
  static override examples = ['<%= config.bin %> payees get PAYEE_ID']
  static override args = {id: Args.string({description: 'payee id', required: true})}

  async run(): Promise<void> {
    await runPayeesGet({id: this.args.id}, this.ctx)
  }
}
