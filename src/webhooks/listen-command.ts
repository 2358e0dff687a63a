/**
 * `webhooks listen`: the receiver started from the command's options, each accepted event written
 * through the output layer's row stream (one JSON line, a CSV row, or a line for people), logs and
 * the summary on stderr, stopped by the context's stop signal (Ctrl-C).
 */
import {redact} from '../api/redact.js'
import type {CommandContext} from '../context/index.js'
import {UsageError} from '../errors.js'
import {readFileArg} from '../files.js'
import type {Column, Output} from '../output/index.js'
import type {AcceptedEvent} from './listener.js'
import {parseEventTypes, parseTargetUrl, secretsFromFlags} from './options.js'

export interface ListenOptions {
  host: string
  port: number
  path: string
  secret?: string[]
  secretFile?: string[]
  tolerance: number
  /** Comma-separated event types to print. */
  events?: string
  forwardTo?: string
  forwardConcurrency: number
  forwardQueue: number
  maxConnections: number
  tlsCert?: string
  tlsKey?: string
}

/** One accepted event as a row: the JSON object printed per event, field for field. */
export function eventRow({event, timestamp, secretIndex, receivedAt}: AcceptedEvent): Record<string, unknown> {
  return {received_at: receivedAt, id: event.id, type: event.type, data: event.data, timestamp: Number(timestamp), secret_index: secretIndex, verified: true}
}

/** The line for people: time, type, id, data, and during a rotation which secret matched. */
export const EVENT_LINE_COLUMNS: Column[] = [{key: 'received_at', style: 'dim'}, {key: 'type', style: 'bold'}, {key: 'id'}, {key: 'data'}]

/** Which secret matched (1-based, as people count), shown when more than one is accepted. */
export const SECRET_COLUMN: Column = {key: 'secret', get: (r) => `(secret #${Number(r.secret_index) + 1})`, style: 'dim'}

/** The CSV columns, in the order csv has always had them. */
export const EVENT_CSV_COLUMNS: Column[] = [{key: 'received_at'}, {key: 'id'}, {key: 'type'}, {key: 'timestamp'}, {key: 'secret_index'}, {key: 'data'}]

/** Every column `--columns` knows by name (other names are paths into the row, e.g. data.payin_id). */
export const EVENT_KNOWN: Column[] = [...EVENT_CSV_COLUMNS, {key: 'verified'}, SECRET_COLUMN]

/**
 * What prints each accepted event: a row of the output's stream, with the columns of its format
 * (and the matched secret when several are accepted). Creating it checks --columns and --query.
 */
export async function eventPrinter(out: Output, multi: boolean): Promise<(accepted: AcceptedEvent) => void> {
  const defaults = out.format === 'csv' ? EVENT_CSV_COLUMNS : multi ? [...EVENT_LINE_COLUMNS, SECRET_COLUMN] : EVENT_LINE_COLUMNS
  const rows = await out.stream(defaults, EVENT_KNOWN)
  return (accepted) => rows.write(eventRow(accepted))
}

export async function runListen(opts: ListenOptions, ctx: CommandContext): Promise<void> {
  const {out, io} = ctx
  const secrets = await secretsFromFlags({secret: opts.secret, 'secret-file': opts.secretFile}, (line) => out.note(line), io.env, io.stdin)
  if (!opts.path.startsWith('/')) throw new UsageError(`--path "${opts.path}" must start with "/".`)
  const events = parseEventTypes(opts.events, '--events')
  const forwardTo = opts.forwardTo === undefined ? undefined : parseTargetUrl(opts.forwardTo, '--forward-to')
  if (Boolean(opts.tlsCert) !== Boolean(opts.tlsKey)) throw new UsageError('--tls-cert and --tls-key go together.')
  const tls = opts.tlsCert && opts.tlsKey ? {cert: readFileArg(opts.tlsCert, '--tls-cert'), key: readFileArg(opts.tlsKey, '--tls-key')} : undefined
  const multi = secrets.length > 1
  // Checks --columns and --query before anything listens.
  const onEvent = await eventPrinter(out, multi)

  const stopped = ctx.stopSignal()
  const {WebhookListener, formatSummary} = await import('./listener.js')
  const log = (line: string) => out.note(redact(line))
  const listener = new WebhookListener({
    host: opts.host,
    port: opts.port,
    path: opts.path,
    secrets,
    toleranceSec: opts.tolerance,
    events: events ? new Set(events) : undefined,
    forwardTo,
    forwardConcurrency: opts.forwardConcurrency,
    forwardQueue: opts.forwardQueue,
    maxConnections: opts.maxConnections,
    tls,
    log,
    onEvent,
  })
  let url: string
  try {
    url = await listener.start()
  } catch (err) {
    const e = err as NodeJS.ErrnoException
    if (e.code === 'EADDRINUSE') throw new UsageError(`Port ${opts.port} is in use; pick another with --port (0 for any free port).`)
    if (e.code === 'EADDRNOTAVAIL' || e.code === 'ENOTFOUND') throw new UsageError(`Cannot listen on --host ${opts.host} (${e.code}).`)
    throw err
  }
  const what = [`${secrets.length} secret${multi ? 's' : ''}`, `tolerance ${opts.tolerance} s`]
  if (events) what.push(`events ${events.join(',')}`)
  if (forwardTo) what.push(`forwarding to ${forwardTo} (${opts.forwardConcurrency} at once, ${opts.forwardQueue} queued at most)`)
  log(`Listening on ${url} (${what.join(', ')}). Press Ctrl-C to stop.`)
  await stopped
  await listener.close()
  log(`Summary: ${formatSummary(listener.stats, Boolean(forwardTo))}`)
  if (out.machine) out.note(JSON.stringify({summary: listener.stats}))
}
