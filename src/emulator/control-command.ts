/**
 * `emulator load FILE` and `emulator clock [advance DURATION | set INSTANT]`: client commands that
 * drive a running payops emulator through its control API (the profile's or --base-url's
 * emulator, which must be on a loopback address). Nothing is parsed here: `load` sends the file's
 * name and text (and the values of the environment variables its `secret_env` fields name), and
 * the emulator reads and checks it whole; `clock` sends the duration or instant as given. The
 * emulator's refusal (a 400: nothing loaded, the clock unmoved) is exit 2 with its line, after
 * one line per problem of the file, each `FILE:LINE:COL: field: message`.
 */
import {readFileSync, statSync} from 'node:fs'
import type {CommandContext} from '../context/index.js'
import {ApiError, UsageError} from '../errors.js'
import {isLoopbackHost} from '../net.js'
import type {Column} from '../output/index.js'
import {plural} from '../text.js'
import {SCHEDULE_TIME_ZONE} from '../api/assumptions.js'

/** Larger scenario files are refused before they are read (a scenario is a hand-written world, not a data dump). */
const MAX_SCENARIO_BYTES = 10 * 1024 * 1024

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

/** The emulator's refusal of a request (a 400) as a usage error: its problems noted one a line, its message the error. */
async function refusedAsUsage<T>(ctx: CommandContext, send: () => Promise<T>): Promise<T> {
  try {
    return await send()
  } catch (err) {
    if (!(err instanceof ApiError) || err.status !== 400) throw err
    const problems = Array.isArray(err.details) ? err.details.map((d) => (d as {message?: unknown}).message).filter((m): m is string => typeof m === 'string') : []
    if (problems.length > 0) ctx.out.note(problems)
    throw new UsageError(err.message)
  }
}

function readScenarioText(file: string): string {
  try {
    if (statSync(file).size > MAX_SCENARIO_BYTES) throw new UsageError(`Scenario file ${file} is larger than ${MAX_SCENARIO_BYTES / 1024 / 1024} MB.`)
    return readFileSync(file, 'utf8')
  } catch (err) {
    if (err instanceof UsageError) throw err
    const code = (err as NodeJS.ErrnoException).code
    throw new UsageError(`Cannot read scenario file ${file}: ${code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a directory' : (code ?? (err as Error).message)}.`)
  }
}

/** The variables a scenario's `secret_env` fields name (YAML or JSON), with their values where they are set. */
function namedVariables(text: string, env: NodeJS.ProcessEnv): Record<string, string> {
  const named: Record<string, string> = {}
  for (const m of text.matchAll(/\bsecret_env["']?\s*:\s*["']?([A-Za-z_][A-Za-z0-9_]*)/g)) {
    const value = env[m[1]]
    if (value !== undefined && value !== '') named[m[1]] = value
  }
  return named
}

export async function runEmulatorLoad(opts: {file: string}, ctx: CommandContext): Promise<void> {
  checkEmulatorUrl(ctx, 'emulator load')
  const text = readScenarioText(opts.file)
  const api = await ctx.api(['emulator'])
  const res = await refusedAsUsage(ctx, () => api.emulator.loadScenario({file: opts.file, text, env: namedVariables(text, ctx.io.env)}))
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

/** `advance DURATION` or `set INSTANT`: one request, checked by the emulator; what the clock made happen is listed. */
export async function runClockMove(opts: {advance?: string; to?: string}, ctx: CommandContext): Promise<void> {
  checkEmulatorUrl(ctx, 'emulator clock')
  const api = await ctx.api(['emulator'])
  const {data} = await refusedAsUsage(ctx, () => api.emulator.moveClock(opts.advance !== undefined ? {advance: opts.advance} : {to: opts.to!}))
  const out = ctx.out
  if (out.format !== 'table' || out.machine) return out.resource(data, CLOCK_COLUMNS, [...CLOCK_COLUMNS, {key: 'from'}, {key: 'happened'}])
  await out.writeLine(`Clock moved from ${data.from} to ${data.now} (${data.day} in ${SCHEDULE_TIME_ZONE}); ${data.happened.length === 0 ? 'nothing was due.' : `${plural(data.happened.length, 'step')} ran:`}`)
  if (data.happened.length > 0) await out.list(data.happened, HAPPENING_COLUMNS)
}
