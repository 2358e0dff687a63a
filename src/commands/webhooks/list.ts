import {ApiCommand} from '../../base-command.js'
import {runWebhooksList} from '../../webhooks/endpoints.js'

export default class WebhooksList extends ApiCommand<typeof WebhooksList> {
  static override areas = ['webhooks'] as const
  static override summary = 'List webhook endpoints (never their secrets).'
  static override examples = ['<%= config.bin %> webhooks list', '<%= config.bin %> webhooks list --all -o ndjson']
  static override flags = {...ApiCommand.listFlags}

  async run(): Promise<void> {
    await runWebhooksList({list: this.listInput}, this.ctx)
  }
}
