import {Flags} from '@oclif/core'
import {BaseCommand} from '../../base-command.js'
import {readFileArg, readStdin} from '../../flags.js'
import {UsageError} from '../../errors.js'
import {resolveSecrets} from '../../webhooks/options.js'
import {verify} from '../../webhooks/signature.js'
import {InvalidSignatureError} from '../../webhooks/tools.js'

export default class WebhooksVerify extends BaseCommand<typeof WebhooksVerify> {
  static override summary = 'Check a webhook signature offline against the raw payload.'
  static override description = [
    'Reads the raw body from --payload-file or stdin, byte for byte (a re-serialised or reformatted body fails, and so does a trailing newline the sender did not sign). Prints "valid" and exits 0, or names the reason and exits 1 (bad signature, stale timestamp); a malformed timestamp or signature input exits 2.',
    'No staleness check unless --tolerance is given. The secret may also come from PAYOPS_WEBHOOK_SECRET(S); it is never printed.',
  ].join('\n\n')
  static override examples = [
    '<%= config.bin %> webhooks verify --secret "$WEBHOOK_SECRET" --timestamp 1767225600 --signature 5f1c… --payload-file body.json',
    'printf \'%s\' "$BODY" | <%= config.bin %> webhooks verify --secret "$WEBHOOK_SECRET" --timestamp "$TS" --signature "$SIG" --tolerance 300',
  ]
  static override flags = {
    secret: Flags.string({summary: 'Signing secret (repeatable: valid when any matches).', multiple: true}),
    timestamp: Flags.string({summary: 'The X-Webhook-Timestamp value (unix seconds).', required: true}),
    signature: Flags.string({summary: 'The X-Webhook-Signature value (lower-case hex).', required: true}),
    'payload-file': Flags.string({summary: 'File with the raw body (default: stdin).'}),
    tolerance: Flags.integer({summary: 'Also reject timestamps more than this many seconds from now.', min: 0}),
  }

  async run(): Promise<void> {
    const f = this.flags
    const secrets = resolveSecrets(f.secret)
    let rawBody: Buffer
    if (f['payload-file'] !== undefined) rawBody = readFileArg(f['payload-file'], '--payload-file')
    else {
      if (process.stdin.isTTY) throw new UsageError('Give the raw body with --payload-file FILE or on stdin.')
      rawBody = await readStdin()
    }
    const result = verify({secrets, timestamp: f.timestamp.trim(), signature: f.signature.trim(), rawBody, toleranceSec: f.tolerance})
    if (!result.ok) throw new InvalidSignatureError(result.reason, f.tolerance)
    if (this.out.machine && this.out.format !== 'csv') process.stdout.write(JSON.stringify({valid: true, secret_index: result.secretIndex}) + '\n')
    else process.stdout.write('valid\n')
  }
}
