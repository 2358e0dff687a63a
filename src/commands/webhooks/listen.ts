import * as Flags from '@oclif/core/flags'
import {BaseCommand} from '../../base-command.js'
import {
  DEFAULT_FORWARD_CONCURRENCY,
  DEFAULT_FORWARD_QUEUE,
  DEFAULT_MAX_CONNECTIONS,
  DEFAULT_MAX_CONNECTIONS_PER_ADDRESS,
  HEADERS_TIMEOUT_MS,
  KEEP_ALIVE_TIMEOUT_MS,
  MAX_EVENT_DEPTH,
  MAX_REQUESTS_PER_CONNECTION,
  REQUEST_TIMEOUT_MS,
} from '../../webhooks/limits.js'
import {secretFileFlag} from '../../webhooks/options.js'

export default class WebhooksListen extends BaseCommand<typeof WebhooksListen> {
  static override summary = 'Receive webhooks locally: verify signatures, drop duplicates, print each event.'
  static override description = [
    'Verifies X-Webhook-Signature (HMAC-SHA256 of "{timestamp}.{raw body}") in constant time against each --secret, rejects timestamps more than --tolerance seconds away, answers 200 at once and prints one line per event on stdout (one JSON object per line with -o json or ndjson, a csv row with -o csv; --columns and --query apply to each event). Rejections, duplicates and forwarding results are logged on stderr. Ctrl-C prints a summary and exits 0.',
    `Answers: 200 accepted, duplicate or outside --events; 400 malformed (headers, timestamp, JSON, not an event, nested over ${MAX_EVENT_DEPTH} levels, bad HTTP); 401 bad signature or stale timestamp; 404/405 another path or method; 408 not received within ${REQUEST_TIMEOUT_MS / 1000} s (headers ${HEADERS_TIMEOUT_MS / 1000} s); 413 a body over 1 MB; 431 headers too large; 503 with Retry-After when the forward queue is full.`,
    `Limits: --max-connections open connections, ${DEFAULT_MAX_CONNECTIONS_PER_ADDRESS} per address (at a limit the one waiting longest for a complete request is closed); idle keep-alive connections close after ${KEEP_ALIVE_TIMEOUT_MS / 1000} s, after ${MAX_REQUESTS_PER_CONNECTION} requests at most; forwards: --forward-concurrency in flight, --forward-queue waiting, 10 s each.`,
    'No API key is needed. Secrets come from PAYOPS_WEBHOOK_SECRETS (comma-separated) / PAYOPS_WEBHOOK_SECRET, --secret-file (one per line) or --secret (visible in `ps`); repeat for a rotation (old and new). They are never printed.',
  ].join('\n\n')
  static override examples = [
    'PAYOPS_WEBHOOK_SECRET="$WEBHOOK_SECRET" <%= config.bin %> webhooks listen',
    '<%= config.bin %> webhooks listen --port 0 --secret-file old.secret --secret-file new.secret --events payin.settled,payin.failed -o ndjson',
    '<%= config.bin %> webhooks listen --secret-file webhook.secret --forward-to http://localhost:3000/webhooks --forward-concurrency 4',
  ]
  static override flags = {
    port: Flags.integer({summary: 'Port to listen on (0 picks a free one; the URL is printed on stderr).', default: 4242, min: 0, max: 65535}),
    host: Flags.string({summary: 'Address to bind.', default: '127.0.0.1'}),
    path: Flags.string({summary: 'Path that receives deliveries; other paths get 404.', default: '/'}),
    secret: Flags.string({summary: 'Signing secret to verify with (repeatable). Visible in `ps`: prefer PAYOPS_WEBHOOK_SECRET or --secret-file.', multiple: true}),
    'secret-file': secretFileFlag(),
    tolerance: Flags.integer({summary: 'Largest accepted timestamp age, in seconds.', default: 300, min: 0}),
    events: Flags.string({summary: 'Only print these comma-separated event types (others are answered 200 and ignored).'}),
    'forward-to': Flags.string({summary: 'Forward each verified event (raw body and signature headers) to this URL.'}),
    'forward-concurrency': Flags.integer({summary: 'Forwards in flight at once.', default: DEFAULT_FORWARD_CONCURRENCY, min: 1, max: 256}),
    'forward-queue': Flags.integer({summary: 'Verified events waiting to be forwarded; when full, deliveries get 503 with Retry-After.', default: DEFAULT_FORWARD_QUEUE, min: 0, max: 10_000}),
    'max-connections': Flags.integer({summary: 'Open connections at once; at the limit the one waiting longest for a request is closed.', default: DEFAULT_MAX_CONNECTIONS, min: 1, max: 65_535}),
    'tls-cert': Flags.string({summary: 'PEM certificate file: serve HTTPS.', dependsOn: ['tls-key']}),
    'tls-key': Flags.string({summary: 'PEM private key file for --tls-cert.', dependsOn: ['tls-cert']}),
  }

  async run(): Promise<void> {
    const f = this.flags
    const {runListen} = await import('../../webhooks/listen-command.js')
    await runListen(
      {
        host: f.host,
        port: f.port,
        path: f.path,
        secret: f.secret,
        secretFile: f['secret-file'],
        tolerance: f.tolerance,
        events: f.events,
        forwardTo: f['forward-to'],
        forwardConcurrency: f['forward-concurrency'],
        forwardQueue: f['forward-queue'],
        maxConnections: f['max-connections'],
        tlsCert: f['tls-cert'],
        tlsKey: f['tls-key'],
      },
      this.ctx,
    )
  }
}
