import * as Args from '@oclif/core/args'
import * as Flags from '@oclif/core/flags'
import {BaseCommand} from '../../../base-command.js'

export default class WebhooksEventsResend extends BaseCommand<typeof WebhooksEventsResend> {
  static override summary = 'Send kept events again, to the URL they were forwarded to or to --forward-to.'
  static override description = [
    'Each event\'s raw body is sent byte for byte, either re-signed now with the secret you name (--secret-file FILE, - for stdin, or PAYOPS_WEBHOOK_SECRET; there is no --secret flag, whose value `ps` would show) or, with --original-headers, with the signature it arrived with (its own X-Webhook-Signature and X-Webhook-Timestamp and nothing else it arrived with: a receiver that checks the timestamp\'s age may refuse an old one).',
    'Without --forward-to an event goes to every URL the listener forwarded it to. Every id is looked up first: an unknown one exits 4 and nothing is sent. Each result is printed and kept with the event (see `webhooks events get ID --record`); exit 6 when some resends failed (not 2XX, or no answer) and some went through; when every one failed, 7 if none was reached and 1 otherwise. Requests go through the proxy every other request takes (the profile\'s, else HTTPS_PROXY/HTTP_PROXY; NO_PROXY applies).',
  ].join('\n\n')
  static override examples = [
    '<%= config.bin %> webhooks events resend evt_123 --secret-file handler.secret',
    'PAYOPS_WEBHOOK_SECRET="$SECRET" <%= config.bin %> webhooks events resend evt_123 evt_456 --forward-to http://localhost:3000/webhooks',
    "<%= config.bin %> webhooks events list --type 'payin.*' -o json --query '[].id' | jq -r '.[]' | <%= config.bin %> webhooks events resend - --original-headers",
  ]
  static override strict = false
  static override args = {ids: Args.string({description: 'event ids, or - to read them from stdin', required: true})}
  static override flags = {
    'forward-to': Flags.string({summary: 'Send to this URL (default: the URLs each event was forwarded to).'}),
    'secret-file': Flags.string({summary: 'File holding the secret to re-sign with (one line); - reads stdin. Default: PAYOPS_WEBHOOK_SECRET.'}),
    'original-headers': Flags.boolean({summary: 'Send the event with the signature it arrived with (its signature and timestamp headers only) instead of re-signing.'}),
    timeout: Flags.integer({summary: 'Seconds to wait for each answer.', default: 10, min: 1, max: 300}),
  }

  async run(): Promise<void> {
    const ids = this.positionals
    const {runEventsResend} = await import('../../../webhooks/events-command.js')
    await runEventsResend(
      {ids, forwardTo: this.flags['forward-to'], secretFile: this.flags['secret-file'], originalHeaders: this.flags['original-headers'], timeoutSec: this.flags.timeout},
      this.ctx,
    )
  }
}
