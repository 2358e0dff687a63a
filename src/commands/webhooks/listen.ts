import * as Flags from '@oclif/core/flags'
import {ApiCommand} from '../../base-command.js'
import {DEFAULT_KEEP_DAYS, DEFAULT_KEEP_EVENTS, MAX_STORE_BYTES} from '../../webhooks/event-store.js'
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
    'Verifies X-Webhook-Signature (HMAC-SHA256 of "{timestamp}.{raw body}") in constant time against each --secret, rejects timestamps more than --tolerance seconds away, answers 200 at once and prints one line per event on stdout (one JSON object per line with -o json or ndjson). Rejections, duplicates and forwarding results are logged on stderr. Ctrl-C prints a summary and exits 0.',
    `Answers: 200 accepted, duplicate, or outside --events; 400 missing headers, malformed timestamp, malformed JSON, not an event, an event nested more than ${MAX_EVENT_DEPTH} levels deep, or a malformed HTTP request; 401 bad signature or stale timestamp; 404 another path; 405 another method; 408 a request not received within ${REQUEST_TIMEOUT_MS / 1000} s (headers within ${HEADERS_TIMEOUT_MS / 1000} s); 413 a body over 1 MB; 431 headers too large; 503 with Retry-After when --forward-to is behind and its queue is full (the sender retries later).`,
    `Limits: at most --max-connections open connections, ${DEFAULT_MAX_CONNECTIONS_PER_ADDRESS} from one address; at a limit the connection that has waited longest for a complete request is closed to make room (the new one, when all are being answered); idle keep-alive connections close after ${KEEP_ALIVE_TIMEOUT_MS / 1000} s and carry at most ${MAX_REQUESTS_PER_CONNECTION} requests; at most --forward-concurrency forwards in flight and --forward-queue waiting, each abandoned after 10 s.`,
    'Output: json and ndjson print one JSON object per line (a stream has no closing bracket); csv prints one header, then a row per event; a terminal gets one line per event. --columns picks fields (or paths such as data.payin_id); --query is applied to each event and prints one result per line.',
    `Events are kept: every verified event (its raw body byte for byte, its headers without credentials, when it came, and each forward's result) is stored in webhook-events.sqlite in the config dir, at most --keep-events events (default ${DEFAULT_KEEP_EVENTS}), none older than --keep-days (default ${DEFAULT_KEEP_DAYS}) and ${MAX_STORE_BYTES / 1024 / 1024} MB of bodies, oldest out first; --no-store keeps nothing. \`webhooks events list/get/resend\` read them.`,
    'Routing: --forward TYPE=URL (repeatable) sends the events whose type matches TYPE (an event type, or a pattern where * stands for one part: payin.*, *.failed, *) to URL; an event goes to every route that matches it, and one that no route matches goes to --forward-to. A pattern that matches no known event type is warned about at the start. The summary counts each route.',
    '--register creates a webhook endpoint for this listener (needs an API key; --events sets its event types, every type by default) and deletes it when the listener stops, Ctrl-C included. Its URL is --url PUBLIC_URL (a tunnel that reaches this listener), or the listener\'s local URL when the API is on loopback (the emulator). Its signing secret is used at once and not printed: --print-secret prints it on stdout, --secret-out FILE writes it (mode 0600). If the listener is killed, the line printed at the start names the command that deletes the endpoint, and the next --register names it again.',
    'No API key is needed (except with --register). Secrets come from PAYOPS_WEBHOOK_SECRETS (comma-separated) / PAYOPS_WEBHOOK_SECRET, --secret-file (one per line) or --secret (visible in `ps`); repeat for a rotation (old and new). They are never printed.',
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
