/**
 * `webhooks trigger`: a sample event of one type, signed with one secret and POSTed to a receiver
 * as the service would send it. Prints one sentence on a terminal, the send result otherwise; a
 * receiver that does not answer 2XX is an error whose exit code follows its status.
 */
import type {WebhookEventType} from '../api/schemas/events.js'
import type {CommandContext} from '../context/index.js'
import {UsageError} from '../errors.js'
import {parseIntegerFlag, parseKeyValues} from '../flags.js'
import type {Column} from '../output/index.js'
import {parseEventTypes, parseTargetUrl, secretsFromFlags} from './options.js'
import {applyOverrides, newEventId, sampleData} from './samples.js'
import {ReceiverError, sendSignedEvent} from './tools.js'

export interface TriggerOptions {
  type: string
  url: string
  secret?: string
  secretFile?: string[]
  /** `k=v` overrides of data fields. */
  data?: string[]
  id?: string
  /** Unix seconds (default: the clock's now). */
  timestamp?: string
  timeoutSec: number
}

export const TRIGGER_COLUMNS: Column[] = [{key: 'id'}, {key: 'type'}, {key: 'status'}, {key: 'duration_ms'}]
export const TRIGGER_KNOWN: Column[] = [...TRIGGER_COLUMNS, {key: 'url'}, {key: 'ok'}, {key: 'timestamp'}, {key: 'response'}, {key: 'event'}]

export async function runTrigger(opts: TriggerOptions, ctx: CommandContext): Promise<void> {
  const {io, out} = ctx
  const type = parseEventTypes(opts.type, 'EVENT_TYPE')![0] as WebhookEventType
  if (opts.type.includes(',')) throw new UsageError('Give one EVENT_TYPE.')
  const url = parseTargetUrl(opts.url, '--url')
  const secrets = await secretsFromFlags({secret: opts.secret, 'secret-file': opts.secretFile}, (line) => out.note(line), io.env, io.stdin)
  if (opts.secretFile && secrets.length > 1) throw new UsageError('trigger signs with one secret: give one --secret-file holding one line (or --secret alone).')
  const secret = secrets[0]
  if (opts.id !== undefined && opts.id.trim() === '') throw new UsageError('--id is empty.')
  const timestamp = opts.timestamp === undefined ? Math.floor(ctx.clock.now() / 1000) : parseIntegerFlag(opts.timestamp, '--timestamp')!
  if (timestamp < 0) throw new UsageError('--timestamp must not be negative.')
  const data = applyOverrides(sampleData(type), parseKeyValues(opts.data, '--data'))
  const event = {id: opts.id ?? newEventId(), type, data}
  const res = await sendSignedEvent({url, secret, event, timestamp, timeoutMs: opts.timeoutSec * 1000, now: ctx.clock.now})
  const p = out.paint
  const sentence = `Sent ${p.bold(type)} ${event.id} to ${url}: ${res.ok ? p.green(String(res.status)) : p.red(String(res.status))} in ${res.duration_ms} ms`
  await out.result({...res, event}, TRIGGER_COLUMNS, sentence, {known: TRIGGER_KNOWN})
  if (!res.ok) throw new ReceiverError(res.status, `The receiver answered ${res.status}${res.response ? `: ${res.response}` : ''}.`)
}
