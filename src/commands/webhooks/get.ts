import * as Args from '@oclif/core/args'
import {ApiCommand} from '../../base-command.js'
import {runWebhookGet} from '../../webhooks/endpoints.js'

export default class WebhooksGet extends ApiCommand<typeof WebhooksGet> {
  static override areas = ['webhooks'] as const
  static override summary = 'Show one webhook endpoint (without its secret).'
  static override examples = ['<%= config.bin %> webhooks get WEBHOOK_ID -o json']
  static override args = {id: Args.string({description: 'webhook endpoint id', required: true})}

  async run(): Promise<void> {
    await runWebhookGet({id: this.args.id}, this.ctx)
  }
}
