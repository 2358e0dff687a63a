import * as Args from '@oclif/core/args'
import * as Flags from '@oclif/core/flags'
import {BaseCommand} from '../../../base-command.js'

export default class WebhooksEventsGet extends BaseCommand<typeof WebhooksEventsGet> {
  static override summary = 'Print a kept event\'s raw body, byte for byte.'
  static override description =
    'Writes the body exactly as it arrived (the bytes its signature covers) when stdout is a pipe or a file; a terminal sees it with control characters made visible. --record shows the whole record instead: headers as they came (without credentials), the signature timestamp, and every forward and resend with its result. An id the store does not hold exits 4.'
  static override examples = [
    '<%= config.bin %> webhooks events get evt_123 > body.json',
    '<%= config.bin %> webhooks events get evt_123 --record -o json',
  ]
  static override args = {id: Args.string({description: 'event id', required: true})}
  static override flags = {
    record: Flags.boolean({summary: 'Show the stored record (headers, deliveries) instead of the raw body.'}),
  }

  async run(): Promise<void> {
    const {runEventsGet} = await import('../../../webhooks/events-command.js')
    await runEventsGet({id: this.args.id, record: this.flags.record}, this.ctx)
  }
}
