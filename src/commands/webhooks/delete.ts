import * as Args from '@oclif/core/args'
import {ApiCommand} from '../../base-command.js'
import {confirmMutation} from '../../movements/command.js'
import {WEBHOOK_COLUMNS, WEBHOOK_KNOWN} from '../../output/columns.js'

export default class WebhooksDelete extends ApiCommand<typeof WebhooksDelete> {
  static override areas = ['webhooks'] as const
  static override summary = 'Delete a webhook endpoint; it receives no more events (pending retries stop).'
  static override examples = ['<%= config.bin %> webhooks delete WEBHOOK_ID --yes']
  static override args = {id: Args.string({description: 'webhook endpoint id', required: true})}

  async run(): Promise<void> {
    await confirmMutation(this.ctx, this.flags, {action: `Delete webhook endpoint ${this.args.id}`})
    const api = await this.api()
    const res = await api.webhooks.delete(this.args.id)
    if (res.warning) this.out.warn(res.warning)
    if (res.data) await this.out.resource(res.data, WEBHOOK_COLUMNS, WEBHOOK_KNOWN)
    this.out.note(`Deleted webhook endpoint ${this.args.id}.`)
  }
}
