import {Flags} from '@oclif/core'
import {BaseCommand} from '../../base-command.js'
import {UsageError} from '../../errors.js'
import {readBounded} from '../../webhooks/input.js'
import {MAX_BODY_BYTES} from '../../webhooks/limits.js'
import {secretFileFlag, secretsFromFlags} from '../../webhooks/options.js'
import {verify} from '../../webhooks/signature.js'
import {InvalidSignatureError} from '../../webhooks/tools.js'

export default class WebhooksVerify extends BaseCommand<typeof WebhooksVerify> {
  static override summary = 'Check a webhook signature offline against the raw payload.'
  static override description = [
    'Reads the raw body from --payload-file or stdin, byte for byte (a re-serialised or reformatted body fails, and so does a trailing newline the sender did not sign). Prints "valid" and exits 0, or names the reason and exits 1 (bad signature, stale timestamp); a malformed timestamp or signature input exits 2.',
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
    timestamp: Flags.string({summary: 'The X-Webhook-Timestamp value (unix seconds).', required: true}),
    signature: Flags.string({summary: 'The X-Webhook-Signature value (lower-case hex).', required: true}),
    'payload-file': Flags.string({summary: 'File with the raw body, at most 1 MB (default: stdin).'}),
    tolerance: Flags.integer({summary: 'Also reject timestamps more than this many seconds from now.', min: 0}),
  }

  async run(): Promise<void> {
    const f = this.flags
    const payloadFromStdin = f['payload-file'] === undefined || f['payload-file'] === '-'
    if (payloadFromStdin && f['secret-file']?.includes('-')) throw new UsageError('stdin cannot carry both the payload and the secret: give --payload-file FILE or --secret-file FILE.')
    const secrets = await secretsFromFlags(f, (line) => this.out.note(line))
    if (f['payload-file'] === undefined && process.stdin.isTTY) throw new UsageError('Give the raw body with --payload-file FILE or on stdin.')
    const rawBody = await readBounded(f['payload-file'], '--payload-file', MAX_BODY_BYTES, 'the largest body `webhooks listen` accepts')
    const result = verify({secrets, timestamp: f.timestamp.trim(), signature: f.signature.trim(), rawBody, toleranceSec: f.tolerance})
    if (!result.ok) throw new InvalidSignatureError(result.reason, f.tolerance)
    if (this.out.machine && this.out.format !== 'csv') process.stdout.write(JSON.stringify({valid: true, secret_index: result.secretIndex}) + '\n')
    else process.stdout.write('valid\n')
  }
}
