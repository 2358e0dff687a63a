import * as Args from '@oclif/core/args'
import {ApiCommand} from '../../base-command.js'
import {runWebhookDelete} from '../../webhooks/endpoints.js'

export default class WebhooksDelete extends ApiCommand<typeof WebhooksDelete> {
  static override areas = ['webhooks'] as const
  static override summary = 'Delete a webhook endpoint; it receives no more events (pending retries stop).'
  static override examples = ['<%= config.bin %> webhooks delete WEBHOOK_ID --yes']
  static override args = {id: Args.string({description: 'webhook endpoint id', required: true})}

  async run(): Promise<void> {
    await runWebhookDelete({id: this.args.id, guard: this.guardInput}, this.ctx)
  }
}
