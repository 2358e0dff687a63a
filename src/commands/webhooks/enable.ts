import * as Args from '@oclif/core/args'
import {ApiCommand} from '../../base-command.js'
import {runWebhookActive} from '../../webhooks/endpoints.js'

export default class WebhooksEnable extends ApiCommand<typeof WebhooksEnable> {
  static override areas = ['webhooks'] as const
  static override summary = 'Activate a webhook endpoint: it receives matching events again.'
  static override examples = ['<%= config.bin %> webhooks enable WEBHOOK_ID']
  static override args = {id: Args.string({description: 'webhook endpoint id', required: true})}

  async run(): Promise<void> {
    await runWebhookActive({id: this.args.id, active: true, guard: this.guardInput}, this.ctx)
  }
}
