/**
 * `emulator load FILE` and `emulator clock [advance DURATION | set INSTANT]`: client commands that
 * drive a running payops emulator through its control API (the profile's or --base-url's
 * emulator, which must be on a loopback address). A scenario file is read and checked whole here
 * first (by @payops/emulator's reader, loaded only by these commands): a bad one is refused with a line per problem and nothing is sent.
 */
import type {CommandContext} from '../context/index.js'
import {UsageError} from '../errors.js'
import {isLoopbackHost} from '../net.js'
import type {Column} from '../output/index.js'
import {plural} from '../text.js'
import {SCHEDULE_TIME_ZONE} from '../api/assumptions.js'
import {asCommandError} from './errors.js'

const HAPPENING_COLUMNS: Column[] = [{key: 'at'}, {key: 'entity'}, {key: 'kind'}, {key: 'id'}, {key: 'status', status: true}]
const CLOCK_COLUMNS: Column[] = [{key: 'now'}, {key: 'day'}, {key: 'offset_ms'}]

/** The emulator's control API answers only on loopback: anything else is refused before a request. */
function checkEmulatorUrl(ctx: CommandContext, command: string): void {
  const base = ctx.profile.baseUrl
  if (base === undefined) return // the API client says what is missing
  let host: string
  try {
    host = new URL(base).hostname
  } catch {
    return
  }
  if (!isLoopbackHost(host)) throw new UsageError(`${command} drives a local payops emulator; the base URL ${base} is not a loopback address. Use the emulator's profile or --base-url http://127.0.0.1:PORT.`)
}

export async function runEmulatorLoad(opts: {file: string}, ctx: CommandContext): Promise<void> {
  checkEmulatorUrl(ctx, 'emulator load')
  const {readScenarioFile} = await import('@payops/emulator')
  const scenario = await asCommandError(async () => readScenarioFile(opts.file, ctx.io.env, (line) => ctx.out.note(line)))
  const api = await ctx.api(['emulator'])
  const res = await api.emulator.loadScenario(scenario)
  const d = res.data as Record<string, unknown> & {clock: {now: string; day: string}}
  const counts = ['accounts', 'subaccounts', 'payers', 'payees', 'moves', 'transfers', 'payins', 'bank_lines', 'webhooks']
    .map((k) => [k, Number(d[k] ?? 0)] as const)
    .filter(([, n]) => n > 0)
    .map(([k, n]) => `${n} ${k.replace('_', ' ')}`)
  const planned = Number(d.planned_bank_lines ?? 0)
  const sentence = `Loaded ${opts.file}: ${counts.join(', ') || 'nothing'}${planned ? ` (and ${plural(planned, 'bank line')} to appear on ${planned === 1 ? 'its date' : 'their dates'})` : ''}. Clock: ${d.clock.now} (${d.clock.day} in ${SCHEDULE_TIME_ZONE}).`
  await ctx.out.result({...d, file: opts.file}, [{key: 'file'}, {key: 'name'}, {key: 'accounts'}, {key: 'transfers'}, {key: 'bank_lines'}], sentence)
}

export async function runClockShow(ctx: CommandContext): Promise<void> {
  checkEmulatorUrl(ctx, 'emulator clock')
  const api = await ctx.api(['emulator'])
  const {data} = await api.emulator.clock()
  await ctx.out.result(data, CLOCK_COLUMNS, `${data.now} (${data.day} in ${SCHEDULE_TIME_ZONE})`)
}

/** `advance DURATION` or `set INSTANT`: checked here, then one request; what the clock made happen is listed. */
export async function runClockMove(opts: {advance?: string; to?: string}, ctx: CommandContext): Promise<void> {
  checkEmulatorUrl(ctx, 'emulator clock')
  const {parseDuration, parseInstant} = await import('@payops/emulator')
  if (opts.advance !== undefined && parseDuration(opts.advance) === undefined) {
    throw new UsageError(`"${opts.advance}" is not a duration: use a number and a unit, such as 30m, 36h, 2d, 1d12h or 1w (at most 10 years).`)
  }
  if (opts.to !== undefined && parseInstant(opts.to) === undefined) {
    throw new UsageError(`"${opts.to}" is not an instant: use ISO 8601 with its offset, such as 2026-01-07T09:00:00-05:00, or a day (2026-01-07, its start in ${SCHEDULE_TIME_ZONE}).`)
  }
  const api = await ctx.api(['emulator'])
  if (opts.to !== undefined) {
    // Checked here too, for a clear refusal (exit 2) before anything is asked of the emulator.
    const {data: now} = await api.emulator.clock()
    if (parseInstant(opts.to)! < Date.parse(now.now)) {
      throw new UsageError(`${opts.to} is before the emulator's clock (${now.now}); the clock only moves forward. Start an emulator with --clock to begin earlier.`)
    }
  }
  const {data} = await api.emulator.moveClock(opts.advance !== undefined ? {advance: opts.advance} : {to: opts.to!})
  const out = ctx.out
  if (out.format !== 'table' || out.machine) return out.resource(data, CLOCK_COLUMNS, [...CLOCK_COLUMNS, {key: 'from'}, {key: 'happened'}])
  await out.writeLine(`Clock moved from ${data.from} to ${data.now} (${data.day} in ${SCHEDULE_TIME_ZONE}); ${data.happened.length === 0 ? 'nothing was due.' : `${plural(data.happened.length, 'step')} ran:`}`)
  if (data.happened.length > 0) await out.list(data.happened, HAPPENING_COLUMNS)
}
