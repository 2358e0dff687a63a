import * as Args from '@oclif/core/args'
import {ApiCommand} from '../../base-command.js'
import {WEBHOOK_KNOWN} from '../../output/columns.js'

export default class WebhooksGet extends ApiCommand<typeof WebhooksGet> {
  static override areas = ['webhooks'] as const
  static override summary = 'Show one webhook endpoint (without its secret).'
  static override examples = ['<%= config.bin %> webhooks get WEBHOOK_ID -o json']
  static override args = {id: Args.string({description: 'webhook endpoint id', required: true})}

  async run(): Promise<void> {
    const api = await this.api()
    const res = await api.webhooks.get(this.args.id)
    if (res.warning) this.out.warn(res.warning)
    await this.out.resource(res.data, WEBHOOK_KNOWN, WEBHOOK_KNOWN)
  }
}
