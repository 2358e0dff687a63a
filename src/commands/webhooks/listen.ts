import {Flags} from '@oclif/core'
import {BaseCommand} from '../../base-command.js'
import {readFileArg, readStdin} from '../../flags.js'
import {UsageError} from '../../errors.js'
import {parseEventTypes, parseTargetUrl, resolveSecrets} from '../../webhooks/options.js'

export default class WebhooksListen extends BaseCommand<typeof WebhooksListen> {
  static override summary = 'Receive webhooks locally: verify signatures, drop duplicates, print each event.'
  static override description = [
    'Verifies X-Webhook-Signature (HMAC-SHA256 of "{timestamp}.{raw body}") in constant time against each --secret, rejects timestamps more than --tolerance seconds away, answers 200 at once and prints one line per event on stdout (one JSON object per line with -o json or ndjson). Rejections, duplicates and forwarding results are logged on stderr. Ctrl-C prints a summary and exits 0.',
    'Answers: 200 accepted, duplicate, or outside --events; 400 missing headers, malformed timestamp, malformed JSON or not an event; 401 bad signature or stale timestamp; 404 another path; 405 another method; 413 a body over 1 MB.',
    'No API key is needed. Secrets come from --secret (repeatable, e.g. old and new during a rotation) or PAYOPS_WEBHOOK_SECRETS (comma-separated) / PAYOPS_WEBHOOK_SECRET; they are never printed.',
  ].join('\n\n')
  static override examples = [
    '<%= config.bin %> webhooks listen --secret "$WEBHOOK_SECRET"',
    '<%= config.bin %> webhooks listen --port 0 --secret "$OLD" --secret "$NEW" --events payin.settled,payin.failed -o ndjson',
    '<%= config.bin %> webhooks listen --secret "$WEBHOOK_SECRET" --forward-to http://localhost:3000/webhooks',
  ]
  static override flags = {
    port: Flags.integer({summary: 'Port to listen on (0 picks a free one; the URL is printed on stderr).', default: 4242, min: 0, max: 65535}),
    host: Flags.string({summary: 'Address to bind.', default: '127.0.0.1'}),
    path: Flags.string({summary: 'Path that receives deliveries; other paths get 404.', default: '/'}),
    secret: Flags.string({summary: 'Signing secret to verify with (repeatable).', multiple: true}),
    tolerance: Flags.integer({summary: 'Largest accepted timestamp age, in seconds.', default: 300, min: 0}),
    events: Flags.string({summary: 'Only print these comma-separated event types (others are answered 200 and ignored).'}),
    'forward-to': Flags.string({summary: 'Forward each verified event (raw body and signature headers) to this URL.'}),
    'tls-cert': Flags.string({summary: 'PEM certificate file: serve HTTPS.', dependsOn: ['tls-key']}),
    'tls-key': Flags.string({summary: 'PEM private key file for --tls-cert.', dependsOn: ['tls-cert']}),
  }

  async run(): Promise<void> {
    const f = this.flags
    const secrets = resolveSecrets(f.secret)
    if (!f.path.startsWith('/')) throw new UsageError(`--path "${f.path}" must start with "/".`)
    const events = parseEventTypes(f.events, '--events')
    const forwardTo = f['forward-to'] === undefined ? undefined : parseTargetUrl(f['forward-to'], '--forward-to')
    const tls = f['tls-cert'] && f['tls-key'] ? {cert: readFileArg(f['tls-cert'], '--tls-cert'), key: readFileArg(f['tls-key'], '--tls-key')} : undefined

    const stopped = this.stopSignal()

    const {WebhookListener, formatSummary} = await import('../../webhooks/listener.js')
    const {redact} = await import('../../api/redact.js')
    const format = this.out.format
    const paint = this.out.paint
    const log = (line: string) => process.stderr.write(`${redact(line)}\n`)
    let csvHeader = format === 'csv'
    const stringify = format === 'csv' ? (await import('csv-stringify/sync')).stringify : undefined
    const multi = secrets.length > 1
    const listener = new WebhookListener({
      host: f.host,
      port: f.port,
      path: f.path,
      secrets,
      toleranceSec: f.tolerance,
      events: events ? new Set(events) : undefined,
      forwardTo,
      tls,
      log,
      onEvent: ({event, timestamp, secretIndex, receivedAt}) => {
        let line: string
        if (format === 'json' || format === 'ndjson') {
          line = JSON.stringify({received_at: receivedAt, id: event.id, type: event.type, data: event.data, timestamp: Number(timestamp), secret_index: secretIndex, verified: true}) + '\n'
        } else if (stringify) {
          const rows = [[receivedAt, event.id, event.type, timestamp, String(secretIndex), JSON.stringify(event.data)]]
          if (csvHeader) rows.unshift(['received_at', 'id', 'type', 'timestamp', 'secret_index', 'data'])
          csvHeader = false
          line = stringify(rows, {record_delimiter: '\r\n'})
        } else {
          line = `${paint.dim(receivedAt)}  ${paint.bold(event.type)}  ${event.id}  ${JSON.stringify(event.data)}${multi ? paint.dim(`  (secret #${secretIndex + 1})`) : ''}\n`
        }
        process.stdout.write(line)
      },
    })
    let url: string
    try {
      url = await listener.start()
    } catch (err) {
      const e = err as NodeJS.ErrnoException
      if (e.code === 'EADDRINUSE') throw new UsageError(`Port ${f.port} is in use; pick another with --port (0 for any free port).`)
      if (e.code === 'EADDRNOTAVAIL' || e.code === 'ENOTFOUND') throw new UsageError(`Cannot listen on --host ${f.host} (${e.code}).`)
      throw err
    }
    const what = [`${secrets.length} secret${multi ? 's' : ''}`, `tolerance ${f.tolerance} s`]
    if (events) what.push(`events ${events.join(',')}`)
    if (forwardTo) what.push(`forwarding to ${forwardTo}`)
    log(`Listening on ${url} (${what.join(', ')}). Press Ctrl-C to stop.`)
    await stopped
    await listener.close()
    log(`Summary: ${formatSummary(listener.stats, Boolean(forwardTo))}`)
    if (this.out.machine) process.stderr.write(JSON.stringify({summary: listener.stats}) + '\n')
  }
}
