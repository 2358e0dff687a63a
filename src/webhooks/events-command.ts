/**
 * `webhooks events list/get/resend`: the events `webhooks listen` kept (src/webhooks/event-store.ts).
 *
 * `resend` sends kept events again, the raw body byte for byte, either re-signed now with a secret
 * the operator names (a file, or PAYOPS_WEBHOOK_SECRET: never a flag value, which `ps` shows) or
 * with the signature they arrived with (their own signature and timestamp headers, nothing else of
 * what they arrived with). Requests take the run's way out (its proxy and CAs), as every other
 * request does. Every id is looked up before anything is sent: an unknown one is exit 4 with
 * nothing sent. Each result is printed and recorded with the event; exit 6 when some failed and
 * some went through, the failures' own code when all failed (7 when none was reached, else 1).
 */
import {loadUndici} from '../interop.js'
import {redact} from '../api/redact.js'
import type {CommandContext} from '../context/index.js'
import {ExitCode, PartialError, PayopsError, UsageError, type ExitCodeValue} from '../errors.js'
import {runDispatcher} from '../net.js'
import {parseDateTime} from '../flags.js'
import type {Column} from '../output/index.js'
import {oneLine} from '../text.js'
import {EventStore, OWN_SIGNATURE_HEADERS, eventNotFound, type DeliveryResult, type StoredEvent} from './event-store.js'
import {parseTargetUrl, secretsFromFlags} from './options.js'
import {checkPattern} from './routes.js'
import {SIGNATURE_HEADER, TIMESTAMP_HEADER, sign} from './signature.js'

export const EVENT_LIST_COLUMNS: Column[] = [
  {key: 'received_at', style: 'dim'},
  {key: 'type', style: 'bold'},
  {key: 'id'},
  {key: 'size'},
  {key: 'last_delivery', get: (r) => lastDelivery(r.deliveries as DeliveryResult[] | undefined)},
]
export const EVENT_LIST_KNOWN: Column[] = [...EVENT_LIST_COLUMNS, {key: 'signature_timestamp'}, {key: 'secret_index'}, {key: 'deliveries'}]

export const RESEND_COLUMNS: Column[] = [{key: 'id'}, {key: 'type'}, {key: 'url'}, {key: 'status', get: (r) => r.status ?? r.error}, {key: 'duration_ms'}]
export const RESEND_KNOWN: Column[] = [...RESEND_COLUMNS, {key: 'ok'}, {key: 'signed'}, {key: 'error'}, {key: 'response'}]

export const EVENT_RECORD_COLUMNS: Column[] = [
  {key: 'id'},
  {key: 'type'},
  {key: 'received_at'},
  {key: 'signature_timestamp'},
  {key: 'size'},
  {key: 'headers', get: (r) => (r.headers as Array<[string, string]>).map(([k, v]) => `${k}: ${v}`).join('; ')},
  {key: 'deliveries', get: (r) => (r.deliveries as DeliveryResult[]).map(describeDelivery).join('; ') || 'none'},
  {key: 'body'},
]

function describeDelivery(d: DeliveryResult): string {
  return `${d.kind} ${d.status ?? d.error} ${d.url} at ${d.at}`
}

function lastDelivery(list: DeliveryResult[] | undefined): string {
  const d = list?.at(-1)
  return d ? `${d.kind} ${d.status ?? d.error} ${d.url}` : ''
}

/** A list row: the stored event without its body and headers. */
function listRow(e: StoredEvent): Record<string, unknown> {
  return {received_at: e.received_at, id: e.id, type: e.type, size: e.size, signature_timestamp: Number(e.signature_timestamp), secret_index: e.secret_index, deliveries: e.deliveries}
}

const DURATION = /^(\d+)\s*(s|m|h|d)$/
const UNIT_MS: Record<string, number> = {s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000}

/** `--since`: a date, a date-time, or an age such as 30m, 2h, 7d. Epoch ms. */
export function parseSince(input: string, now: number): number {
  const m = DURATION.exec(input.trim())
  if (m) return now - Number(m[1]) * UNIT_MS[m[2]]
  try {
    return Date.parse(parseDateTime(input, '--since'))
  } catch {
    throw new UsageError(`--since "${input}" is neither a date, an ISO 8601 date-time, nor an age such as 30m, 2h or 7d.`)
  }
}

export interface EventsListOptions {
  type?: string
  since?: string
  limit?: number
}

export async function runEventsList(opts: EventsListOptions, ctx: CommandContext): Promise<void> {
  const type = opts.type === undefined ? undefined : checkPattern(opts.type.trim(), '--type')
  const sinceMs = opts.since === undefined ? undefined : parseSince(opts.since, ctx.clock.now())
  const store = EventStore.existing(ctx.configDir, ctx.clock.now)
  try {
    const events = store ? store.list({type, sinceMs, limit: opts.limit}) : []
    await ctx.out.list(events.map(listRow), EVENT_LIST_COLUMNS, EVENT_LIST_KNOWN)
  } finally {
    store?.close()
  }
}

export interface EventsGetOptions {
  id: string
  /** The whole record (headers, deliveries) instead of the raw body. */
  record?: boolean
}

export async function runEventsGet(opts: EventsGetOptions, ctx: CommandContext): Promise<void> {
  const store = EventStore.existing(ctx.configDir, ctx.clock.now)
  if (!store) throw notFound(opts.id)
  let e: StoredEvent
  try {
    e = store.require(opts.id)
  } finally {
    store.close()
  }
  if (opts.record) {
    const {body, ...rest} = e
    await ctx.out.resource({...rest, body: body.toString('utf8')}, EVENT_RECORD_COLUMNS)
    return
  }
  ctx.out.refuseSelection('the raw body (use --record)')
  // A terminal is shown the body with control characters made visible; a pipe or file gets its bytes exactly.
  if (ctx.io.stdoutIsTTY) {
    await ctx.out.writeLine(e.body.toString('utf8'))
    return
  }
  await new Promise<void>((resolve, reject) => ctx.io.stdout.write(e.body, (err) => (err ? reject(err) : resolve())))
}

const notFound = eventNotFound

export interface EventsResendOptions {
  ids: string[]
  forwardTo?: string
  secretFile?: string
  originalHeaders?: boolean
  timeoutSec: number
}

/**
 * The headers of a resend with the event's original signature: payops' own content type and user
 * agent, and the event's signature and timestamp as they came. Nothing else the request carried
 * (a token, a cookie, a forwarding header) goes to another origin.
 */
function originalHeaders(event: StoredEvent): string[] {
  const own = event.headers.filter(([k]) => OWN_SIGNATURE_HEADERS.has(k.toLowerCase())).flat()
  return ['content-type', 'application/json', 'user-agent', 'payops-webhooks-resend', ...own]
}

/** The exit of a resend run: 0, 6 when some went through, else the failures' own code (7 unreached, 1 refused), 1 when mixed. */
function resendVerdict(codes: ExitCodeValue[], total: number): PayopsError | undefined {
  if (codes.length === 0) return undefined
  const msg = `${codes.length} of ${total} resend${total === 1 ? '' : 's'} failed.`
  if (codes.length < total) return new PartialError(msg)
  const distinct = new Set(codes)
  return new PayopsError(msg, distinct.size === 1 ? codes[0] : ExitCode.UNEXPECTED)
}

/** POSTs one event to `url` through the run's way out; the answer's status and first line. */
async function post(url: string, headers: Record<string, string> | string[], body: Buffer, timeoutMs: number): Promise<{status: number; response: string}> {
  const undici = await loadUndici()
  const dispatcher = await runDispatcher(undici, url)
  try {
    const res = await undici.request(url, {method: 'POST', headers, body, dispatcher, signal: AbortSignal.timeout(timeoutMs), headersTimeout: timeoutMs, bodyTimeout: timeoutMs})
    return {status: res.statusCode, response: redact(oneLine(await res.body.text().catch(() => ''), 200))}
  } finally {
    await dispatcher.close().catch(() => undefined)
  }
}

interface Send {
  event: StoredEvent
  url: string
}

export async function runEventsResend(opts: EventsResendOptions, ctx: CommandContext): Promise<void> {
  const {out, io} = ctx
  // `-` alone: the ids come from stdin, one per line (or comma-separated).
  let ids = opts.ids
  if (ids.length === 1 && ids[0] === '-') ids = (await ctx.readStdin()).toString('utf8').split(/[\s,]+/)
  opts = {...opts, ids: [...new Set(ids.map((s) => s.trim()).filter(Boolean))]}
  if (opts.ids.length === 0) throw new UsageError('Give at least one event id (or - to read ids from stdin).')
  if (opts.originalHeaders && opts.secretFile !== undefined) throw new UsageError('--original-headers sends the stored signature; --secret-file re-signs: give one of them.')
  let secret: string | undefined
  if (!opts.originalHeaders) {
    const given = opts.secretFile !== undefined || io.env.PAYOPS_WEBHOOK_SECRET?.trim() || io.env.PAYOPS_WEBHOOK_SECRETS?.trim()
    if (!given) throw new UsageError('Give the secret to sign with: --secret-file FILE (- for stdin) or PAYOPS_WEBHOOK_SECRET; or --original-headers to send each event with the signature it came with.')
    const secrets = await secretsFromFlags({'secret-file': opts.secretFile}, (line) => out.note(line), io.env, io.stdin)
    if (secrets.length > 1) throw new UsageError('resend signs with one secret: give one (a --secret-file of one line, or PAYOPS_WEBHOOK_SECRET).')
    secret = secrets[0]
  }
  const forwardTo = opts.forwardTo === undefined ? undefined : parseTargetUrl(opts.forwardTo, '--forward-to')

  const store = EventStore.existing(ctx.configDir, ctx.clock.now)
  if (!store) throw notFound(opts.ids[0])
  try {
    // Every id and target is settled before anything is sent.
    const sends: Send[] = []
    const noTarget: string[] = []
    for (const id of opts.ids) {
      const event = store.require(id)
      const urls = forwardTo ? [forwardTo] : [...new Set(event.deliveries.filter((d) => d.kind === 'forward').map((d) => d.url))]
      if (urls.length === 0) noTarget.push(id)
      for (const url of urls) sends.push({event, url})
    }
    if (noTarget.length) throw new UsageError(`${noTarget.join(', ')} ${noTarget.length === 1 ? 'was' : 'were'} never forwarded, so there is no URL to resend to: give --forward-to URL.`)

    const failures: ExitCodeValue[] = []
    const timeoutMs = opts.timeoutSec * 1000
    async function* results() {
      for (const {event, url} of sends) {
        const at = new Date(ctx.clock.now()).toISOString()
        const started = ctx.clock.now()
        let headers: Record<string, string> | string[]
        if (secret) {
          const ts = String(Math.floor(ctx.clock.now() / 1000))
          headers = {'content-type': 'application/json', 'user-agent': 'payops-webhooks-resend', [SIGNATURE_HEADER]: sign(secret, ts, event.body), [TIMESTAMP_HEADER]: ts}
        } else headers = originalHeaders(event)
        let status: number | null = null
        let error: string | null = null
        let response = ''
        try {
          ;({status, response} = await post(url, headers, event.body, timeoutMs))
          if (status < 200 || status >= 300) {
            error = `answered ${status}`
            failures.push(ExitCode.UNEXPECTED)
          }
        } catch (err) {
          const e = err as {code?: string; name?: string}
          error = /Timeout|Abort/.test(e.name ?? '') || /TIMEOUT/.test(e.code ?? '') ? `no answer within ${opts.timeoutSec} s` : (e.code ?? e.name ?? 'error')
          failures.push(ExitCode.NETWORK)
        }
        const ok = error === null
        const duration = ctx.clock.now() - started
        store!.addDelivery(event.id, {kind: 'resend', route: null, url, status, ok, error, duration_ms: duration, at})
        yield {id: event.id, type: event.type, url, status, ok, error, duration_ms: duration, signed: secret ? 're-signed' : 'original', response}
      }
    }
    await out.list(results(), RESEND_COLUMNS, RESEND_KNOWN)
    const verdict = resendVerdict(failures, sends.length)
    if (verdict) throw verdict
    if (!out.machine) out.note(`Resent ${sends.length} event${sends.length === 1 ? '' : 's'} (${secret ? 're-signed now' : 'with their original headers'}).`)
  } finally {
    store.close()
  }
}
