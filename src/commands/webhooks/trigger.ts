import * as Args from '@oclif/core/args'
import * as Flags from '@oclif/core/flags'
import {BaseCommand} from '../../base-command.js'
import {WEBHOOK_EVENT_TYPES} from '../../api/schemas/events.js'
import {secretFileFlag} from '../../webhooks/options.js'

export default class WebhooksTrigger extends BaseCommand<typeof WebhooksTrigger> {
  static override summary = 'Sign and send a sample event to a URL, as the service would.'
  static override description =
    'Builds an event of EVENT_TYPE with realistic data (override fields with --data k=v), signs it with the secret (PAYOPS_WEBHOOK_SECRET, --secret-file, or --secret, which is visible in `ps`) and POSTs it. Prints the receiver\'s status (in machine formats the send result: id, type, status, duration_ms, the response and the event; --columns and --query apply to it). Exit 0 on a 2XX; otherwise the exit code follows the status (400 -> 8, 401/403 -> 3, 404 -> 4, 409 -> 5, others 1), and 7 when the receiver is unreachable or does not answer within --timeout.'
  static override examples = [
    'PAYOPS_WEBHOOK_SECRET="$WEBHOOK_SECRET" <%= config.bin %> webhooks trigger payin.settled --url http://127.0.0.1:4242/',
    '<%= config.bin %> webhooks trigger payin.failed --url http://127.0.0.1:4242/ --secret-file webhook.secret',
    '<%= config.bin %> webhooks trigger subaccount.credit_received --url http://127.0.0.1:4242/ --secret "$WEBHOOK_SECRET" --data amount_in_minor_units=5000',
  ]
  static override args = {type: Args.string({description: `event type: ${WEBHOOK_EVENT_TYPES.join(', ')}`, required: true})}
  static override flags = {
    url: Flags.string({summary: 'Receiver URL.', required: true}),
    secret: Flags.string({summary: 'Signing secret (default: PAYOPS_WEBHOOK_SECRET). Visible in `ps`: prefer the variable or --secret-file.'}),
    'secret-file': secretFileFlag('File holding the signing secret (one line); - reads stdin. Unlike --secret, not visible in `ps`.'),
    data: Flags.string({summary: 'Set a data field (repeatable), e.g. payin_id=… or amount_in_minor_units=5000.', multiple: true}),
    id: Flags.string({summary: 'Event id to send (default: a new evt_… id); reuse one to test duplicate handling.'}),
    timestamp: Flags.string({summary: 'Signing timestamp in unix seconds (default: now); an old one tests staleness checks.'}),
    timeout: Flags.integer({summary: 'Seconds to wait for the receiver.', default: 10, min: 1, max: 300}),
  }

  async run(): Promise<void> {
    const f = this.flags
    const {runTrigger} = await import('../../webhooks/trigger-command.js')
    await runTrigger(
      {type: this.args.type, url: f.url, secret: f.secret, secretFile: f['secret-file'], data: f.data, id: f.id, timestamp: f.timestamp, timeoutSec: f.timeout},
      this.ctx,
    )
  }
}
