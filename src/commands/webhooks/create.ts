import * as Flags from '@oclif/core/flags'
import {ApiCommand} from '../../base-command.js'
import {parseList} from '../../flags.js'
import {runWebhookCreate} from '../../webhooks/endpoints.js'

export default class WebhooksCreate extends ApiCommand<typeof WebhooksCreate> {
  static override areas = ['webhooks'] as const
  static override summary = 'Create a webhook endpoint; its signing secret is shown once.'
  static override description =
    'The URL must be https:// (the local emulator also accepts http:// to 127.0.0.1, localhost or ::1). The signing secret is printed on stdout this one time: store it now, it is never shown again (rotate it with `webhooks rotate-secret`). An answer without a secret (the spec does not show the create\'s answer) still creates the endpoint: its id is printed and the way to a secret named.'
  static override examples = [
    '<%= config.bin %> webhooks create --url https://example.com/hooks --event-types payin.settled,payin.failed',
    '<%= config.bin %> webhooks create --url http://127.0.0.1:4242/ --event-types subaccount.credit_received --description "local listener"',
  ]
  static override flags = {
    url: Flags.string({summary: 'HTTPS URL that accepts POST with JSON.', required: true}),
    'event-types': Flags.string({summary: 'Comma-separated event types to subscribe to (see `webhooks event-types`).', required: true, aliases: ['event_types']}),
    description: Flags.string({summary: 'Free-text description.'}),
  }

  async run(): Promise<void> {
    const f = this.flags
    const input = {url: f.url, event_types: parseList(f['event-types'], '--event-types')!, description: f.description}
    await runWebhookCreate({input, guard: this.guardInput}, this.ctx)
  }
}
