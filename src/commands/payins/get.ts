import * as Args from '@oclif/core/args'
import {ApiCommand} from '../../base-command.js'
import {PAYIN_COLUMNS, PAYIN_KNOWN} from '../../output/columns.js'

export default class PayinsGet extends ApiCommand<typeof PayinsGet> {
  static override areas = ['payins'] as const
  static override summary = 'Show a payin: amount, status, payer and payment method.'
  static override examples = ['<%= config.bin %> payins get PAYIN_ID', '<%= config.bin %> payins get PAYIN_ID --query status']
  static override args = {id: Args.string({description: 'payin id', required: true})}

  async run(): Promise<void> {
    const api = await this.api()
    const res = await api.payins.get(this.args.id)
    if (res.warning) this.out.warn(res.warning)
    await this.out.resource(res.data, [...PAYIN_COLUMNS, PAYIN_KNOWN.find((c) => c.key === 'end_to_end_id')!], PAYIN_KNOWN)
  }
}
