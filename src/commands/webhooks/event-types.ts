import {ApiCommand} from '../../base-command.js'
import {runEventTypes} from '../../webhooks/endpoints.js'

export default class WebhooksEventTypes extends ApiCommand<typeof WebhooksEventTypes> {
  static override areas = ['webhooks'] as const
  static override summary = 'List the event types an endpoint can subscribe to.'
  static override examples = ['<%= config.bin %> webhooks event-types -o json']

  async run(): Promise<void> {
    await runEventTypes({}, this.ctx)
  }
}
