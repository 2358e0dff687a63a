import * as Args from '@oclif/core/args'
import * as Flags from '@oclif/core/flags'
import {ApiCommand} from '../../base-command.js'
import {parseList} from '../../flags.js'
import {runWebhookUpdate} from '../../webhooks/endpoints.js'

export default class WebhooksUpdate extends ApiCommand<typeof WebhooksUpdate> {
  static override areas = ['webhooks'] as const
  static override summary = 'Change a webhook endpoint\'s URL, description or event types.'
  static override description = 'Only the fields given change. `--event-types` replaces the whole allowlist (stored sorted). `--description ""` clears the description.'
  static override examples = [
    '<%= config.bin %> webhooks update WEBHOOK_ID --event-types payin.settled,payout.failed',
    '<%= config.bin %> webhooks update WEBHOOK_ID --url https://example.com/new-hooks',
  ]
  static override args = {id: Args.string({description: 'webhook endpoint id', required: true})}
  static override flags = {
    url: Flags.string({summary: 'New HTTPS URL.'}),
    description: Flags.string({summary: 'New description ("" clears it).'}),
    'event-types': Flags.string({summary: 'Comma-separated event types: replaces the allowlist.', aliases: ['event_types']}),
  }

  async run(): Promise<void> {
    const f = this.flags
    const input = {url: f.url, description: f.description, event_types: parseList(f['event-types'], '--event-types')}
    await runWebhookUpdate({id: this.args.id, input, guard: this.guardInput}, this.ctx)
  }
}
