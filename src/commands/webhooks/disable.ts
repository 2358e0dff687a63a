import * as Args from '@oclif/core/args'
import {ApiCommand} from '../../base-command.js'
import {confirmMutation} from '../../movements/command.js'
import {WEBHOOK_COLUMNS, WEBHOOK_KNOWN} from '../../output/columns.js'

export default class WebhooksDisable extends ApiCommand<typeof WebhooksDisable> {
  static override areas = ['webhooks'] as const
  static override summary = 'Deactivate a webhook endpoint: no events, no pending retries, until enabled.'
  static override examples = ['<%= config.bin %> webhooks disable WEBHOOK_ID']
  static override args = {id: Args.string({description: 'webhook endpoint id', required: true})}

  async run(): Promise<void> {
    await confirmMutation(this.ctx, this.flags, {action: `Disable webhook endpoint ${this.args.id}`})
    const api = await this.api()
    const res = await api.webhooks.setActive(this.args.id, false)
    if (res.warning) this.out.warn(res.warning)
    await this.out.resource(res.data, WEBHOOK_COLUMNS, WEBHOOK_KNOWN)
  }
}
