import * as Args from '@oclif/core/args'
import * as Flags from '@oclif/core/flags'
import {ApiCommand} from '../../base-command.js'
import {confirmMutation} from '../../movements/command.js'
import {parseList} from '../../flags.js'
import {WEBHOOK_KNOWN} from '../../output/columns.js'
import {validateWebhookUpdate} from '../../api/webhooks.js'

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
    validateWebhookUpdate(input)
    await confirmMutation(this.ctx, this.flags, {
      action: `Update webhook endpoint ${this.args.id}`,
      details: {url: f.url, events: input.event_types?.join(', '), description: f.description},
    })
    const api = await this.api()
    const res = await api.webhooks.update(this.args.id, input)
    if (res.warning) this.out.warn(res.warning)
    await this.out.resource(res.data, WEBHOOK_KNOWN, WEBHOOK_KNOWN)
  }
}
