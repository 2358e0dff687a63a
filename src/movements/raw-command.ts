/**
 * `payops api`: any endpoint with the profile's key. A request that moves money goes through the
 * movement pipeline as the dedicated commands' do (limits, confirmation, key, audit), to the URL
 * asked for; any other request that changes something is confirmed on a LIVE key.
 */
import {buildRawRequest, type RawMethod} from '../api/raw.js'
import type {CommandContext} from '../context/index.js'
import {UsageError} from '../errors.js'
import {readFileArg, readFileOrStdin} from '../files.js'
import {confirmMutation, finishOutcome, runOne, type GuardFlags} from './command.js'

export interface RawOptions {
  method: RawMethod
  path: string
  /** -f key=value: sent as strings. */
  rawFields?: string[]
  /** -F key=value: typed values, @FILE read. */
  typedFields?: string[]
  /** --input FILE (or - for stdin): the body as it is. */
  input?: string
  headers?: string[]
  paginate?: boolean
  sendAnyway?: boolean
  guard: GuardFlags
}

export async function runApi(opts: RawOptions, ctx: CommandContext): Promise<void> {
  const {out} = ctx
  const {method} = opts
  const req = buildRawRequest({
    method,
    path: opts.path,
    fields: opts.rawFields,
    typedFields: opts.typedFields,
    input: opts.input === undefined ? undefined : (await readFileOrStdin(opts.input, '--input', ctx.io.stdin)).toString('utf8'),
    headers: opts.headers,
    readFile: (file) => readFileArg(file, '-F').toString('utf8'),
  })
  if (opts.paginate && method !== 'GET') throw new UsageError('--paginate works with GET only.')
  // Judged on the path sent: the base URL's path joined with PATH.
  const movement = (await import('./raw.js')).movementOfRaw(req, ctx.profile.baseUrl)
  if (opts.sendAnyway && movement?.request.kind !== 'transfer.create' && movement?.request.kind !== 'credit.simulate') {
    throw new UsageError('--send-anyway goes with an account transfer or simulated credit create (POST); nothing was sent.')
  }
  if (movement) {
    if (movement.request.kind === 'transfer.create' || movement.request.kind === 'credit.simulate') movement.request.sendAnyway = opts.sendAnyway
    // Money moves through the same pipeline as the dedicated commands, to the URL asked for; the raw body is printed.
    const outcome = await runOne(ctx, opts.guard, movement.request, movement.root)
    await out.value(outcome.body)
    return finishOutcome(ctx, outcome)
  }
  if (method !== 'GET') await confirmMutation(ctx, opts.guard, {action: `${method} ${req.path}`})
  const api = await ctx.api(['raw'])
  if (opts.paginate) return void (await out.list(api.raw.paginate(req), []))
  const res = await api.raw.send(req)
  if (res.warning) out.warn(res.warning)
  if (res.body === undefined) out.note(`${res.status} (no body)`)
  else await out.value(res.body)
}
