import * as Args from '@oclif/core/args'
import {ApiCommand} from '../../base-command.js'
import {runPayinGet} from '../../payins/run.js'

export default class PayinsGet extends ApiCommand<typeof PayinsGet> {
  static override areas = ['payins'] as const
  static override summary = 'Show a payin: amount, status, payer and payment method.'
  static override examples = ['<%= config.bin %> payins get PAYIN_ID', '<%= config.bin %> payins get PAYIN_ID --query status']
  static override args = {id: Args.string({description: 'payin id', required: true})}

  async run(): Promise<void> {
    await runPayinGet({id: this.args.id}, this.ctx)
  }
}
