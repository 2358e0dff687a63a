/**
 * `payops team worker`: run where the API key lives (a cron host), it carries out each money
 * request of the team store approved by a member other than its maker, exactly once, and records
 * what became of it there. Per request: a session advisory lock (another worker skips it), the
 * store's claim (`claim_request`: refused for a request not approved, approved by its maker, or
 * finished), the movement pipeline with the request's own Idempotency-Key, and the outcome
 * recorded. A claim found without a final outcome (a worker killed between send and record) is
 * resumed: a move is sent again with its key (the API replays it), a transfer is looked for by
 * its key and sent again only when the list shows it did not happen (src/movements/search.ts).
 */
import type {CommandContext} from '../context/index.js'
import {StoreConflictError, StoreUnavailableError} from '../control/errors.js'
import {teamBinding, openControlStore} from '../control/index.js'
import {claimRequest, isFinished, lockRequest, moneyRequest, moneyRequests, recordExecution, unlockRequest, type Claim, type MoneyRequest} from '../control/requests.js'
import type {ControlStore} from '../control/types.js'
import {leavesOutcomeUnknown} from '../api/retry.js'
import {ApiError, AuthError, ExitCode, InterruptedError, PayopsError, PartialError, UsageError} from '../errors.js'
import {formatMoney} from '../money.js'
import type {Column} from '../output/index.js'
import {closePorts, portsOf} from '../movements/command.js'
import type {MovementPorts, MovementRequest, Outcome} from '../movements/types.js'
import {plural} from '../text.js'
import {describeMoney} from './request.js'

export interface WorkerOptions {
  once: boolean
  intervalMs: number
}

export type WorkResult = 'carried_out' | 'failed' | 'unknown' | 'skipped' | 'refused'

export interface WorkRow extends Record<string, unknown> {
  request: string
  kind: MoneyRequest['kind']
  result: WorkResult
  amount_in_minor_units: number
  currency_code: string
  from: string
  to: string | null
  maker: string
  checker: string | null
  id: string | null
  message: string
}

export const WORK_COLUMNS: Column[] = [
  {key: 'request'},
  {key: 'result', status: true},
  {key: 'amount', money: {amount: 'amount_in_minor_units', currency: 'currency_code'}},
  {key: 'from'},
  {key: 'to'},
  {key: 'maker'},
  {key: 'checker'},
  {key: 'id'},
  {key: 'message'},
]

/**
 * How long a transfer's claim without an outcome is left alone: longer than one worker can spend on
 * one request (each API call's timeout, with its retries), and shorter than the window the list is
 * searched in around the claim (search.ts AROUND_MS, 15 minutes), so that a transfer its worker
 * made falls inside that window.
 */
const CLAIM_GRACE_S = 600

/** The movement a request asks for, exactly as recorded (its key included). */
export function movementOf(r: MoneyRequest, key: string): MovementRequest {
  const p = r.params
  if (r.kind === 'move.create') {
    return {kind: 'move.create', from: r.from, to: r.destination ?? '', amount: {minor: r.amount}, currency: r.currency, autoApprove: p.auto_approve, metadata: p.metadata as Record<string, string> | undefined, idempotencyKey: key}
  }
  return {kind: 'transfer.create', from: r.from, to: r.destination ?? '', amount: {minor: r.amount}, currency: r.currency, rail: p.rail ?? '', autoApprove: p.auto_approve, scheduledDate: p.scheduled_date, metadata: p.metadata, idempotencyKey: key, sendAnyway: false}
}

/**
 * A resumed claim is an earlier attempt whose answer was lost (unless this machine's trail knows
 * better): the pipeline's rules for a lost answer then apply (never send twice without proof).
 */
function withEarlierAttempt(ports: MovementPorts, r: MoneyRequest, claim: Claim): MovementPorts {
  const h = ports.history
  const earlier = {time: claim.claimed_at, made: false, id: null, amount_in_minor_units: r.amount, currency_code: r.currency, from: r.from, to: r.destination, idempotency_key: claim.idempotency_key}
  return {...ports, history: {...h, lastAttempt: (method, path, key) => h.lastAttempt?.(method, path, key) ?? (key === claim.idempotency_key ? earlier : undefined)}}
}

/** Nothing was carried out for this request: a refusal before sending, or the API's definite no. */
function definitelyNotCarriedOut(err: unknown): boolean {
  if (leavesOutcomeUnknown(err)) return false
  if (err instanceof ApiError) return err.status >= 400 && err.status < 500
  if (!(err instanceof PayopsError)) return false
  const notSent: number[] = [ExitCode.USAGE, ExitCode.AUTH, ExitCode.NOT_FOUND, ExitCode.CONFLICT, ExitCode.REJECTED]
  return notSent.includes(err.exitCode)
}

function row(r: MoneyRequest, result: WorkResult, message: string, id: string | null = null): WorkRow {
  return {request: r.ref, kind: r.kind, result, amount_in_minor_units: r.amount, currency_code: r.currency, from: r.from, to: r.destination, maker: r.maker, checker: r.decision?.checker ?? null, id, message}
}

/** Sends one claimed request and records its outcome; a store that cannot record it ends the pass (exit 7). */
async function send(ctx: CommandContext, store: ControlStore, r: MoneyRequest, claim: Claim): Promise<WorkRow> {
  const ports = await portsOf(ctx, [r.kind], {yes: true}, undefined, {teamApproval: false})
  let outcome: Outcome | undefined
  let error: unknown
  try {
    const {runMovement} = await import('../movements/index.js')
    outcome = await runMovement(movementOf(r, claim.idempotency_key), claim.attempt === 'resume' ? withEarlierAttempt(ports, r, claim) : ports)
  } catch (err) {
    error = err
  } finally {
    await closePorts(ports)
  }
  const message = outcome ? outcome.sentence : ((error as Error)?.message ?? String(error))
  const status = outcome ? 'carried_out' : definitelyNotCarriedOut(error) ? 'failed' : 'unknown'
  const detail = outcome
    ? {kind: outcome.kind, status: outcome.status, http_status: outcome.http_status, partial: outcome.partial, idempotency_key: claim.idempotency_key, attempt: claim.attempt, message}
    : {error: (error as Error)?.name ?? 'Error', idempotency_key: claim.idempotency_key, attempt: claim.attempt, message}
  try {
    await recordExecution(store, r.id, status, outcome?.id ?? null, detail)
  } catch (err) {
    const what = outcome ? `it was carried out (${outcome.sentence})` : `its outcome: ${message}`
    throw new StoreUnavailableError(`${r.ref}: ${what}; but the team store ${store.location} could not record it (${(err as Error).message}). The claim stays without an outcome: the next worker pass finds out with the request's key and moves nothing twice.`)
  }
  return row(r, status, message, outcome?.id ?? null)
}

/** One request: locked, checked again, claimed, sent, recorded. */
async function carryOut(ctx: CommandContext, store: ControlStore, due: MoneyRequest): Promise<WorkRow> {
  if (due.decision?.checker === due.maker) return row(due, 'refused', `approved by its own maker ${due.maker}: maker-checker forbids it, so the worker never carries it out. Nothing was sent.`)
  if (!(await lockRequest(store, due.id))) return row(due, 'skipped', 'another worker is carrying it out now; nothing was sent by this one.')
  try {
    const r = await moneyRequest(store, due.id)
    if (!r || isFinished(r)) return row(due, 'skipped', 'another worker finished it meanwhile; nothing was sent by this one.')
    // A transfer's claim without any outcome may still be in the hands of a worker that lost the
    // store (its lock went with its connection): looked for only once that worker is surely done.
    if (r.kind === 'transfer.create' && r.claim && r.outcomes.length === 0 && r.claim.age_s < CLAIM_GRACE_S) {
      return row(r, 'skipped', `claimed by ${r.claim.worker} at ${r.claim.at} without an outcome yet: its transfer may still be in flight, so nothing was sent; a pass from ${CLAIM_GRACE_S / 60} minutes after the claim looks for it by its key.`)
    }
    let claim: Claim
    try {
      claim = await claimRequest(store, r.id)
    } catch (err) {
      if (err instanceof AuthError || err instanceof StoreConflictError) return row(r, 'refused', `${(err as Error).message} Nothing was sent.`)
      throw err
    }
    return await send(ctx, store, r, claim)
  } finally {
    await unlockRequest(store, due.id).catch(() => undefined)
  }
}

function sentenceOf(w: WorkRow): string {
  const what = `${w.request} (${describeMoney({kind: w.kind, amount: w.amount_in_minor_units, currency: w.currency_code, from: w.from, destination: w.to})}, requested by ${w.maker}, approved by ${w.checker ?? '?'})`
  switch (w.result) {
    case 'carried_out': return `carried out: ${what}: ${w.message}`
    case 'failed': return `failed: ${what}: ${w.message.replace(/\.?\s*$/, '.')} Nothing was carried out for it; the store records it failed.`
    case 'unknown': return `outcome unknown: ${what}: ${w.message.replace(/\.?\s*$/, '.')} The store records it unknown; the next pass finds out with its key and moves nothing twice.`
    case 'refused': return `refused: ${what}: ${w.message}`
    default: return `skipped: ${what}: ${w.message}`
  }
}

/** One pass over the store's approved requests; each one's sentence on stderr, the rows on stdout. */
export async function workerPass(ctx: CommandContext, stopped: () => boolean): Promise<WorkRow[]> {
  const store = await openControlStore(ctx)
  const rows: WorkRow[] = []
  try {
    const due = (await moneyRequests(store)).filter((r) => r.decision?.decision === 'approved' && !isFinished(r))
    if (due.length === 0) ctx.out.note(`No approved request awaits the worker in the team store ${store.location}.`)
    for (const r of due) {
      if (stopped()) break
      const w = await carryOut(ctx, store, r)
      ctx.out.note(sentenceOf(w))
      rows.push(w)
    }
  } finally {
    await store.close()
  }
  return rows
}

/** The exit of a `--once` pass: 7 when an outcome is unknown, 6 when some failed and some were carried out, 1 when none was. */
function endOf(rows: WorkRow[]): void {
  const count = (k: WorkResult) => rows.filter((w) => w.result === k).length
  const [done, failed, unknown] = [count('carried_out'), count('failed') + count('refused'), count('unknown')]
  const total = (k: WorkResult) => rows.filter((w) => w.result === k).map((w) => formatMoney(w.amount_in_minor_units, w.currency_code)).join(', ')
  const of = `of ${plural(rows.length, 'request')}`
  if (unknown) throw new PayopsError(`The outcome of ${unknown} ${of} is unknown (${total('unknown')}); the next pass finds out with the request's key and moves nothing twice.`, ExitCode.NETWORK)
  if (failed && done) throw new PartialError(`${done} ${of} carried out; ${failed} failed or refused, and nothing was carried out for ${failed === 1 ? 'it' : 'them'}.`)
  if (failed) throw new PayopsError(`None ${of} was carried out: ${failed === 1 ? 'it failed or was refused' : `${failed} failed or were refused`} (see above).`, ExitCode.UNEXPECTED)
}

export async function runWorker(opts: WorkerOptions, ctx: CommandContext): Promise<void> {
  if (!teamBinding(ctx)) throw new UsageError('`team worker` carries out the team store\'s approved requests, and this run has none: bind the key\'s profile (`payops profiles set NAME team URL`) or set PAYOPS_TEAM_DATABASE_URL.')
  if (!ctx.profile.apiKey) throw new AuthError('`team worker` runs where the API key lives, and this run has none (a profile\'s, PAYOPS_API_KEY or --api-key): a member without the key requests, the worker sends.')
  const stop = ctx.stopSignal()
  let stopped = false
  void stop.then(() => (stopped = true))
  if (opts.once) {
    const rows = await workerPass(ctx, () => stopped)
    await ctx.out.list(rows, WORK_COLUMNS)
    return endOf(rows)
  }
  ctx.out.note(`Carrying out approved requests every ${opts.intervalMs / 1000} s; Ctrl-C stops (after the request in hand is recorded).`)
  for (;;) {
    try {
      await workerPass(ctx, () => stopped)
    } catch (err) {
      // A store that went away (or any failure of one pass) is said, and the next pass tries again.
      if (!(err instanceof PayopsError)) throw err
      ctx.out.warn(err.message)
    }
    if (!stopped) await Promise.race([ctx.clock.sleep(opts.intervalMs), stop])
    if (stopped) throw new InterruptedError('Stopped the worker.')
  }
}
