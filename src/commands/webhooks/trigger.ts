import {Args, Flags} from '@oclif/core'
import {BaseCommand} from '../../base-command.js'
import {WEBHOOK_EVENT_TYPES, type WebhookEventType} from '../../api/schemas/events.js'
import {UsageError} from '../../errors.js'
import {parseIntegerFlag, parseKeyValues} from '../../flags.js'
import {parseEventTypes, parseTargetUrl, secretFileFlag, secretsFromFlags} from '../../webhooks/options.js'
import {applyOverrides, newEventId, sampleData} from '../../webhooks/samples.js'
import {nowSeconds} from '../../webhooks/signature.js'
import {ReceiverError, sendSignedEvent} from '../../webhooks/tools.js'

export default class WebhooksTrigger extends BaseCommand<typeof WebhooksTrigger> {
  static override summary = 'Sign and send a sample event to a URL, as the service would.'
  static override description =
    'Builds an event of EVENT_TYPE with realistic data (override fields with --data k=v), signs it with the secret (PAYOPS_WEBHOOK_SECRET, --secret-file, or --secret, which is visible in `ps`) and POSTs it. Prints the receiver\'s status. Exit 0 on a 2XX; otherwise the exit code follows the status (400 -> 8, 401/403 -> 3, 404 -> 4, 409 -> 5, others 1), and 7 when the receiver is unreachable or does not answer within --timeout.'
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
    const type = parseEventTypes(this.args.type, 'EVENT_TYPE')![0] as WebhookEventType
    if (this.args.type.includes(',')) throw new UsageError('Give one EVENT_TYPE.')
    const url = parseTargetUrl(f.url, '--url')
    const secrets = await secretsFromFlags(f, (line) => this.out.note(line))
    if (f['secret-file'] && secrets.length > 1) throw new UsageError('trigger signs with one secret: give one --secret-file holding one line (or --secret alone).')
    const secret = secrets[0]
    if (f.id !== undefined && f.id.trim() === '') throw new UsageError('--id is empty.')
    const timestamp = f.timestamp === undefined ? nowSeconds() : parseIntegerFlag(f.timestamp, '--timestamp')!
    if (timestamp < 0) throw new UsageError('--timestamp must not be negative.')
    const data = applyOverrides(sampleData(type), parseKeyValues(f.data, '--data'))
    const event = {id: f.id ?? newEventId(), type, data}
    const res = await sendSignedEvent({url, secret, event, timestamp, timeoutMs: f.timeout * 1000})
    if (this.out.machine) {
      await this.out.resource({...res, event}, [{key: 'id'}, {key: 'type'}, {key: 'status'}, {key: 'duration_ms'}])
    } else {
      const p = this.out.paint
      process.stdout.write(`Sent ${p.bold(type)} ${event.id} to ${url}: ${res.ok ? p.green(String(res.status)) : p.red(String(res.status))} in ${res.duration_ms} ms\n`)
    }
    if (!res.ok) throw new ReceiverError(res.status, `The receiver answered ${res.status}${res.response ? `: ${res.response}` : ''}.`)
  }
}
