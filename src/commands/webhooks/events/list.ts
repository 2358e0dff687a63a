import * as Flags from '@oclif/core/flags'
import {BaseCommand} from '../../../base-command.js'

export default class WebhooksEventsList extends BaseCommand<typeof WebhooksEventsList> {
  static override summary = 'List the events `webhooks listen` received and kept, newest first.'
  static override description =
    'Reads the event store in the config dir (webhook-events.sqlite): each verified event once, with when it came and the result of its last forward or resend. --type takes an event type or a pattern (payin.*); --since a date, an ISO 8601 date-time, or an age (30m, 2h, 7d). No API key is needed.'
  static override examples = [
    '<%= config.bin %> webhooks events list',
    "<%= config.bin %> webhooks events list --type 'payin.*' --since 2h -o json",
  ]
  static override flags = {
    type: Flags.string({summary: 'Only events of this type or pattern (payin.*).'}),
    since: Flags.string({summary: 'Only events received at or after this date, date-time, or age (30m, 2h, 7d).'}),
    limit: Flags.integer({summary: 'Show at most this many events.', default: 100, min: 1}),
  }

  async run(): Promise<void> {
    const {runEventsList} = await import('../../../webhooks/events-command.js')
    await runEventsList({type: this.flags.type, since: this.flags.since, limit: this.flags.limit}, this.ctx)
  }
}
