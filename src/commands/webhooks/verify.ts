import * as Flags from '@oclif/core/flags'
import {BaseCommand} from '../../base-command.js'
import {secretFileFlag} from '../../webhooks/options.js'

export default class WebhooksVerify extends BaseCommand<typeof WebhooksVerify> {
  static override summary = 'Check a webhook signature offline against the raw payload.'
  static override description = [
    'Reads the raw body from --payload-file or stdin, byte for byte (a re-serialised or reformatted body fails, and so does a trailing newline the sender did not sign). Prints "valid" and exits 0 (in json and ndjson one line {"valid":true,"secret_index":N}, the index of the secret that matched; csv a header and that row; --columns and --query apply to that object), or names the reason and exits 1 (bad signature, a signature that is not 64 hex characters included; stale timestamp); a timestamp that is not a whole number of seconds, or a missing secret, exits 2.',
    'The payload is read up to 1 MB, the largest body `webhooks listen` accepts; a larger one is a usage error (exit 2). No staleness check unless --tolerance is given.',
    'The secret comes from PAYOPS_WEBHOOK_SECRET(S), --secret-file (one per line) or --secret (visible in `ps`); it is never printed.',
  ].join('\n\n')
  static override examples = [
    '<%= config.bin %> webhooks verify --secret "$WEBHOOK_SECRET" --timestamp 1767225600 --signature 5f1c… --payload-file body.json',
    'printf \'%s\' "$BODY" | <%= config.bin %> webhooks verify --secret "$WEBHOOK_SECRET" --timestamp "$TS" --signature "$SIG" --tolerance 300',
  ]
  static override flags = {
    secret: Flags.string({summary: 'Signing secret (repeatable: valid when any matches). Visible in `ps`: prefer PAYOPS_WEBHOOK_SECRET or --secret-file.', multiple: true}),
    'secret-file': secretFileFlag(),
    timestamp: Flags.string({summary: 'The X-Webhook-Timestamp value as sent (unix seconds, unix milliseconds or an ISO 8601 date-time).', required: true}),
    signature: Flags.string({summary: 'The X-Webhook-Signature value (lower-case hex).', required: true}),
    'payload-file': Flags.string({summary: 'File with the raw body, at most 1 MB (default: stdin).'}),
    tolerance: Flags.integer({summary: 'Also reject timestamps more than this many seconds from now.', min: 0}),
  }

  async run(): Promise<void> {
    const f = this.flags
    const {runVerify} = await import('../../webhooks/verify-command.js')
    await runVerify(
      {secret: f.secret, secretFile: f['secret-file'], timestamp: f.timestamp, signature: f.signature, payloadFile: f['payload-file'], tolerance: f.tolerance},
      this.ctx,
    )
  }
}
