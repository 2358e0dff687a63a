import * as Flags from '@oclif/core/flags'
import {ApiCommand} from '../../base-command.js'
import {DEFAULT_KEEP_DAYS, DEFAULT_KEEP_EVENTS} from '../../webhooks/event-store.js'
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

export default class WebhooksListen extends ApiCommand<typeof WebhooksListen> {
  static override areas = ['webhooks'] as const
  static override summary = 'Receive webhooks locally: verify signatures, drop duplicates, print each event.'
  static override description = [
    'Verifies X-Webhook-Signature against each --secret and the timestamp within --tolerance, answers 200 at once and prints one line per event. Rejections and forwards go to stderr; Ctrl-C prints a summary, exit 0.',
    `Answers: 200 accepted or duplicate; 400 malformed (nested over ${MAX_EVENT_DEPTH} levels too); 401 bad signature or stale; 404/405; 408 after ${REQUEST_TIMEOUT_MS / 1000} s (headers ${HEADERS_TIMEOUT_MS / 1000} s); 413 over 1 MB; 503 when the forward queue is full.`,
    `Limits: --max-connections, ${DEFAULT_MAX_CONNECTIONS_PER_ADDRESS} per address (the longest waiting is closed first); keep-alive ${KEEP_ALIVE_TIMEOUT_MS / 1000} s, ${MAX_REQUESTS_PER_CONNECTION} requests a connection.`,
    `Events are kept in webhook-events.sqlite (--keep-events ${DEFAULT_KEEP_EVENTS}, --keep-days ${DEFAULT_KEEP_DAYS}; --no-store: none) for \`webhooks events list/get/resend\`.`,
    '--forward TYPE=URL (repeatable; payin.*) routes events, the rest go to --forward-to. --register creates an endpoint for this listener (--url, or the local URL on a loopback API), deletes it on exit, and uses its secret without printing it.',
    'Secrets: PAYOPS_WEBHOOK_SECRET(S), --secret-file or --secret (visible in `ps`); repeat for a rotation. Never printed. No API key is needed, except with --register.',
  ].join('\n\n')
  static override examples = [
    'PAYOPS_WEBHOOK_SECRET="$WEBHOOK_SECRET" <%= config.bin %> webhooks listen',
    '<%= config.bin %> webhooks listen --port 0 --secret-file old.secret --secret-file new.secret --events payin.settled,payin.failed -o ndjson',
    '<%= config.bin %> webhooks listen --secret-file webhook.secret --forward-to http://localhost:3000/webhooks --forward-concurrency 4',
    "<%= config.bin %> webhooks listen --secret-file webhook.secret --forward 'payin.*=http://localhost:3000/payins' --forward 'payout.*=http://localhost:3001/payouts' --forward-to http://localhost:3002/other",
    '<%= config.bin %> webhooks listen --register --forward-to http://localhost:3000/webhooks',
    '<%= config.bin %> webhooks listen --register --url https://example.trycloudflare.com/ --secret-out handler.secret',
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
    forward: Flags.string({summary: 'Route events of a type or pattern to a URL: TYPE=URL, e.g. payin.*=http://localhost:3000/payins (repeatable).', multiple: true}),
    'forward-concurrency': Flags.integer({summary: 'Forwards in flight at once.', default: DEFAULT_FORWARD_CONCURRENCY, min: 1, max: 256}),
    'forward-queue': Flags.integer({summary: 'Verified events waiting to be forwarded; when full, deliveries get 503 with Retry-After.', default: DEFAULT_FORWARD_QUEUE, min: 0, max: 10_000}),
    'max-connections': Flags.integer({summary: 'Open connections at once; at the limit the one waiting longest for a request is closed.', default: DEFAULT_MAX_CONNECTIONS, min: 1, max: 65_535}),
    'tls-cert': Flags.string({summary: 'PEM certificate file: serve HTTPS.', dependsOn: ['tls-key']}),
    'tls-key': Flags.string({summary: 'PEM private key file for --tls-cert.', dependsOn: ['tls-cert']}),
    store: Flags.boolean({summary: 'Keep verified events in the config dir for `webhooks events` (--no-store: keep nothing).', default: true, allowNo: true}),
    'keep-events': Flags.integer({summary: 'Events kept at most; the oldest go first.', default: DEFAULT_KEEP_EVENTS, min: 1, max: 10_000_000}),
    'keep-days': Flags.integer({summary: 'Days an event is kept.', default: DEFAULT_KEEP_DAYS, min: 1, max: 36_500}),
    register: Flags.boolean({summary: 'Create a webhook endpoint for this listener; delete it when the listener stops.'}),
    url: Flags.string({summary: 'With --register: the public URL the service delivers to (default: the local URL, when the API is on loopback).'}),
    'print-secret': Flags.boolean({summary: 'With --register: print the endpoint\'s signing secret on stdout.'}),
    'secret-out': Flags.string({summary: 'With --register: write the endpoint\'s signing secret to this file (mode 0600).'}),
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
        forward: f.forward,
        forwardConcurrency: f['forward-concurrency'],
        forwardQueue: f['forward-queue'],
        maxConnections: f['max-connections'],
        tlsCert: f['tls-cert'],
        tlsKey: f['tls-key'],
        store: f.store,
        keepEvents: f['keep-events'],
        keepDays: f['keep-days'],
        register: f.register,
        url: f.url,
        printSecret: f['print-secret'],
        secretOut: f['secret-out'],
        yes: f.yes,
      },
      this.ctx,
    )
  }
}
