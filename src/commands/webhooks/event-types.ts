import {ApiCommand} from '../../base-command.js'
import {EVENT_TYPE_COLUMNS} from '../../output/columns.js'

export default class WebhooksEventTypes extends ApiCommand<typeof WebhooksEventTypes> {
  static override areas = ['webhooks'] as const
  static override summary = 'List the event types an endpoint can subscribe to.'

  async run(): Promise<void> {
    const api = await this.api()
    await this.out.list(await api.webhooks.eventTypes(), EVENT_TYPE_COLUMNS)
  }
}
