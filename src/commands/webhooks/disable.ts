import * as Args from '@oclif/core/args'
import {ApiCommand} from '../../base-command.js'
import {runWebhookActive} from '../../webhooks/endpoints.js'

export default class WebhooksDisable extends ApiCommand<typeof WebhooksDisable> {
  static override areas = ['webhooks'] as const
  static override summary = 'Deactivate a webhook endpoint: no events, no pending retries, until enabled.'
  static override examples = ['<%= config.bin %> webhooks disable WEBHOOK_ID']
  static override args = {id: Args.string({description: 'webhook endpoint id', required: true})}

  async run(): Promise<void> {
    await runWebhookActive({id: this.args.id, active: false, guard: this.guardInput}, this.ctx)
  }
}
