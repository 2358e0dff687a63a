/**
 * `webhooks listen`: the receiver started from the command's options, each accepted event written
 * through the output layer's row stream (one JSON line, a CSV row, or a line for people), logs and
 * the summary on stderr, stopped by the context's stop signal (Ctrl-C).
 */
import {redact} from '../api/redact.js'
import type {CommandContext} from '../context/index.js'
import {chmodSync, mkdirSync, writeFileSync} from 'node:fs'
import {ExitCode, PayopsError, UsageError} from '../errors.js'
import {isSymlink, readFileArg} from '../files.js'
import type {Column, Output} from '../output/index.js'
import type {AcceptedEvent} from './listener.js'
import {DEFAULT_KEEP_DAYS, DEFAULT_KEEP_EVENTS, EventStore} from './event-store.js'
import {parseEventTypes, parseTargetUrl, secretsFromFlags} from './options.js'
import {Registrar, type Registration} from './register.js'
import {parseRoutes, routeLabel, routeWarnings} from './routes.js'

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
  /** `TYPE=URL` routes (repeatable --forward). */
  forward?: string[]
  forwardConcurrency: number
  forwardQueue: number
  maxConnections: number
  tlsCert?: string
  tlsKey?: string
  /** Keep verified events in the config dir's event store (default true). */
  store?: boolean
  keepEvents?: number
  keepDays?: number
  /** Create an endpoint for this listener, deleted when it stops. */
  register?: boolean
  /** The endpoint's public URL (with --register). */
  url?: string
  /** Print the registered endpoint's secret on stdout. */
  printSecret?: boolean
  /** Write the registered endpoint's secret to this file (mode 0600). */
  secretOut?: string
  yes?: boolean
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

/** True when a secret is given at all (a flag, a file, or the environment). */
function secretGiven(opts: ListenOptions, env: NodeJS.ProcessEnv): boolean {
  return Boolean(opts.secret?.length || opts.secretFile?.length || env.PAYOPS_WEBHOOK_SECRETS?.trim() || env.PAYOPS_WEBHOOK_SECRET?.trim())
}

/** The listener's settings read from the options, every one checked before anything listens. */
async function readSettings(opts: ListenOptions, ctx: CommandContext) {
  const {out, io} = ctx
  const register = Boolean(opts.register)
  if (!register) {
    for (const [given, flag] of [[opts.url, '--url'], [opts.printSecret, '--print-secret'], [opts.secretOut, '--secret-out']] as const) {
      if (given) throw new UsageError(`${flag} goes with --register.`)
    }
  }
  // With --register the endpoint's own secret is used; secrets given besides it are accepted too.
  const secrets = register && !secretGiven(opts, io.env) ? [] : await secretsFromFlags({secret: opts.secret, 'secret-file': opts.secretFile}, (line) => out.note(line), io.env, io.stdin)
  if (!opts.path.startsWith('/')) throw new UsageError(`--path "${opts.path}" must start with "/".`)
  const events = parseEventTypes(opts.events, '--events')
  const forwardTo = opts.forwardTo === undefined ? undefined : parseTargetUrl(opts.forwardTo, '--forward-to')
  const routes = parseRoutes(opts.forward)
  if (Boolean(opts.tlsCert) !== Boolean(opts.tlsKey)) throw new UsageError('--tls-cert and --tls-key go together.')
  const tls = opts.tlsCert && opts.tlsKey ? {cert: readFileArg(opts.tlsCert, '--tls-cert'), key: readFileArg(opts.tlsKey, '--tls-key')} : undefined
  if (opts.secretOut !== undefined && isSymlink(opts.secretOut)) throw new UsageError(`--secret-out ${opts.secretOut} is a symbolic link; payops does not write a secret through one.`)
  return {register, secrets, events, forwardTo, routes, tls}
}

type Settings = Awaited<ReturnType<typeof readSettings>>

/** The listener, its events kept in the store (when there is one) and printed by `onEvent`. */
async function newListener(opts: ListenOptions, ctx: CommandContext, s: Settings, store: EventStore | undefined, onEvent: (accepted: AcceptedEvent) => void, log: (line: string) => void) {
  const {WebhookListener} = await import('./listener.js')
  return new WebhookListener({
    host: opts.host,
    port: opts.port,
    path: opts.path,
    secrets: s.secrets,
    toleranceSec: opts.tolerance,
    events: s.events ? new Set(s.events) : undefined,
    forwardTo: s.forwardTo,
    routes: s.routes,
    forwardConcurrency: opts.forwardConcurrency,
    forwardQueue: opts.forwardQueue,
    maxConnections: opts.maxConnections,
    tls: s.tls,
    log,
    onEvent,
    now: ctx.clock.now,
    // An event kept by an earlier run of the listener (a restart) is a duplicate: not printed or forwarded again.
    known: store ? (id) => store.has(id) : undefined,
    onVerified: store
      ? (d) => store.record({id: d.event.id, type: d.event.type, body: d.body, rawHeaders: d.rawHeaders, signatureTimestamp: d.timestamp, secretIndex: d.secretIndex, receivedAt: d.receivedAt})
      : undefined,
    onForward: store ? (f) => store.addDelivery(f.event.id, {kind: 'forward', route: f.route, url: f.url, status: f.status, ok: f.ok, error: f.error, duration_ms: f.duration_ms, at: f.at}) : undefined,
  })
}

/** The endpoint registered for this listener, its secret written or printed as asked. */
async function registerEndpoint(opts: ListenOptions, ctx: CommandContext, registrar: Registrar, url: string, events: string[] | undefined, log: (line: string) => void): Promise<Registration> {
  const {out} = ctx
  const registration = await registrar.register(url)
  log(`Registered webhook endpoint ${registration.id} for ${registration.url} (${events ? events.join(',') : 'every event type'}); it is deleted when this listener stops. If this listener is killed, delete it: ${registration.deleteCommand}`)
  if (opts.secretOut !== undefined) writeSecretFile(opts.secretOut, registration.secret)
  if (opts.printSecret) {
    if (out.machine) await out.jsonLine({registered: {id: registration.id, url: registration.url, secret: registration.secret}})
    else await out.writeLine(`Signing secret of endpoint ${registration.id}: ${registration.secret}`)
  }
  return registration
}

export async function runListen(opts: ListenOptions, ctx: CommandContext): Promise<void> {
  const {out} = ctx
  const s = await readSettings(opts, ctx)
  // Checks --columns and --query before anything listens.
  const onEvent = await eventPrinter(out, s.secrets.length > 1)
  const log = (line: string) => out.note(redact(line))
  for (const warning of routeWarnings(s.routes)) out.warn(warning)

  const registrar = s.register ? await Registrar.prepare(ctx, {url: opts.url, events: s.events, yes: opts.yes}) : undefined
  const store = opts.store === false ? undefined : openStore(ctx, opts)

  // The first Ctrl-C (or SIGTERM) stops the listener; a second ends at once (130), naming an endpoint
  // left registered. The handler stays installed to the end: a process whose only handler is a
  // library's exit hook would be killed by that hook instead of finishing (deleting the endpoint).
  let stop!: () => void
  const stopped = new Promise<void>((resolve) => (stop = resolve))
  let registration: Registration | undefined
  const offInterrupt = ctx.onInterrupt((count) => {
    if (count === 1) return stop()
    if (registration) out.note(`Stopped before webhook endpoint ${registration.id} was deleted; delete it: ${registration.deleteCommand}`)
    ctx.exitNow(130)
  })
  const {formatSummary} = await import('./listener.js')
  const allRoutes = [...s.routes, ...(s.forwardTo ? [{pattern: null, url: s.forwardTo}] : [])]
  const listener = await newListener(opts, ctx, s, store, onEvent, log)
  let url: string
  try {
    url = await listener.start()
  } catch (err) {
    offInterrupt()
    store?.close()
    const e = err as NodeJS.ErrnoException
    if (e.code === 'EADDRINUSE') throw new UsageError(`Port ${opts.port} is in use; pick another with --port (0 for any free port).`)
    if (e.code === 'EADDRNOTAVAIL' || e.code === 'ENOTFOUND') throw new UsageError(`Cannot listen on --host ${opts.host} (${e.code}).`)
    throw err
  }

  try {
    if (registrar) {
      registration = await registerEndpoint(opts, ctx, registrar, url, s.events, log)
      listener.addSecret(registration.secret)
    }
    const secretCount = s.secrets.length + (registration ? 1 : 0)
    const what = [`${secretCount} secret${secretCount > 1 ? 's' : ''}`, `tolerance ${opts.tolerance} s`]
    if (s.events) what.push(`events ${s.events.join(',')}`)
    if (allRoutes.length) what.push(`forwarding ${allRoutes.map((r) => routeLabel(r)).join(', ')} (${opts.forwardConcurrency} at once, ${opts.forwardQueue} queued at most)`)
    what.push(store ? `storing events in ${store.db.path} (at most ${opts.keepEvents} events, ${opts.keepDays} days)` : 'not storing events')
    log(`Listening on ${url} (${what.join(', ')}). Press Ctrl-C to stop.`)
    await stopped
  } finally {
    try {
      await listener.close()
      log(`Summary: ${formatSummary(listener.stats, allRoutes.length > 0)}`)
      if (out.machine) out.note(JSON.stringify({summary: listener.stats}))
      if (registration && registrar) await unregister(registrar, registration, log)
    } finally {
      offInterrupt()
      store?.close()
    }
  }
}

function openStore(ctx: CommandContext, opts: ListenOptions): EventStore {
  mkdirSync(ctx.configDir, {recursive: true, mode: 0o700})
  return EventStore.open(ctx.configDir, {maxEvents: opts.keepEvents ?? DEFAULT_KEEP_EVENTS, maxAgeDays: opts.keepDays ?? DEFAULT_KEEP_DAYS}, ctx.clock.now)
}

/** The endpoint's secret in a file only its owner reads (replaced when it exists). */
function writeSecretFile(path: string, secret: string): void {
  try {
    writeFileSync(path, `${secret}\n`, {mode: 0o600})
    chmodSync(path, 0o600)
  } catch (err) {
    throw new UsageError(`--secret-out ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}.`)
  }
}

async function unregister(registrar: Registrar, reg: Registration, log: (line: string) => void): Promise<void> {
  try {
    await registrar.unregister(reg)
  } catch (err) {
    const why = err instanceof PayopsError ? err.message : String((err as Error)?.message ?? err)
    throw new PayopsError(`Could not delete webhook endpoint ${reg.id} (${why.replace(/\.$/, '')}); it still receives events. Delete it: ${reg.deleteCommand}`, err instanceof PayopsError ? err.exitCode : ExitCode.UNEXPECTED)
  }
  log(`Deleted webhook endpoint ${reg.id}.`)
}
