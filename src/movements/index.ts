/**
 * The movement pipeline: every request that can move money (moves create, approve and cancel,
 * each import row, transfers create and approve, simulated credits, and `payops api` on those
 * endpoints) goes plan -> guard -> record intent -> send -> classify -> record outcome, and the
 * caller renders the outcome. Nothing here prints or parses flags: the world comes in as ports.
 */
import {ApiError, ConflictError, PayopsError} from '../errors.js'
import {conclude, learned, type Established} from './conclude.js'
import {leavesOutcomeUnknown} from '../api/retry.js'
import {alreadyDone, stateInRefusal, unknownExplanation, unknownOutcome} from './settle.js'
import {recordRequest, type ApiResponse, type RequestRecord} from '../api/client.js'
import {guard, recheckUnderLock, type GuardOptions} from './guard.js'
import {plan} from './plan.js'
import {describe} from './sentence.js'
import {fromTrail} from './unshown.js'
import {unprovenRerun, type SearchResult} from './search.js'
import {decideIntent, outcomeStatus, recordTeamOutcome, withTeamKnown} from './team.js'
import {systemClock} from '../context/host.js'
import type {LostAnswer, MovementPorts, MovementRequest, Outcome, Plan} from './types.js'

export type {MovementPorts, MovementRequest, Outcome, Plan} from './types.js'
export {plan} from './plan.js'
export {guard} from './guard.js'

/** The API areas each kind of movement uses (commands load only those). */
export const AREAS_FOR_KIND = {
  'move.create': ['moves', 'subaccounts'],
  'move.approve': ['moves', 'subaccounts'],
  'move.cancel': ['moves', 'subaccounts'],
  'transfer.create': ['transfers', 'treasury'],
  'transfer.approve': ['transfers', 'treasury'],
  'credit.simulate': ['treasury'],
} as const


/** Adds what the operator must know to an error that leaves the outcome unknown (import rows keep their error class). */
function explainUncertain(err: unknown, p: Plan): unknown {
  if (!(err instanceof PayopsError) || !leavesOutcomeUnknown(err)) return err
  err.message = `${err.message.replace(/\.?\s*$/, '.')} ${unknownExplanation(p)}`
  return err
}

/** A create refused with 409 because of its Idempotency-Key: the API carried nothing out. */
function keyRefused(err: unknown, p: Plan): boolean {
  return p.request.kind === 'move.create' && p.idempotencyKey !== null && err instanceof ApiError && err.status === 409
}

/**
 * The API's 409 to a move create (a key used for another move, or for a canceled or failed one) as
 * exit 5 naming the key: nothing was carried out, and what the key names here is said when the
 * audit trail knows it.
 */
function keyConflict(err: ApiError, p: Plan, ports: MovementPorts): ConflictError {
  const key = p.idempotencyKey!
  const known = p.keyGenerated ? undefined : ports.history.byKey(key)
  const names = known?.id ? ` (here it names move ${known.id}${known.status ? `, ${known.status.toLowerCase()}` : ''})` : ''
  const asked = p.expected ? ` (${describe(p.expected, p.currency)})` : ''
  return new ConflictError(
    `The API refused Idempotency-Key ${key}${names}: ${err.describe()}. This request${asked} was not carried out; nothing was moved by it. Use a new key for a new move.`,
    known?.id ?? '',
    key,
  )
}


/** Sends one planned movement, records it, and classifies the answer. */
export async function execute(p: Plan, ports: MovementPorts): Promise<Outcome> {
  return (await prepare(p, ports, {unknownAsError: true})).send()
}

/** A movement whose intent is on record: send it, or give it up (recorded as not sent). */
export interface Prepared {
  send(): Promise<Outcome>
  /** Records that the movement was not sent (the run stopped first). */
  abandon(reason: string): Promise<void>
}

export interface PrepareOptions {
  /**
   * An outcome left unknown ends as {@link OutcomeUnknownError} (exit 7, naming the command that
   * settles it); otherwise the original error is kept, its message saying the same.
   */
  unknownAsError?: boolean
}

/**
 * Records the intent of a planned movement; what it resolves with sends it. A caller with several
 * movements to send (an import) prepares the next one while the last one is in flight, so that
 * writing the intent is not on the path from one request to the next.
 */
export async function prepare(p: Plan, ports: MovementPorts, opts: PrepareOptions = {}): Promise<Prepared> {
  const team = ports.team
  // With a team store, the store decides first: its policies, today's total and the intent, in one transaction.
  const seq = team ? await decideIntent(p, team) : undefined
  const told = (status: string, detail: Record<string, unknown>) => (team && seq !== undefined ? recordTeamOutcome(team, seq, status, detail, (l) => ports.prompter.note(l)) : Promise.resolve())
  let rec: RequestRecord
  try {
    // The limits that depend on the trail are decided again under its lock, with the intent.
    rec = await recordRequest(ports.audit, {...p.audit, idempotency_key: p.idempotencyKey}, recheckUnderLock(p, ports))
  } catch (err) {
    await told('not_sent', {reason: (err as Error).name ?? 'refused'})
    throw err
  }
  return {
    send: async () => {
      const result = await sendPlanned(p, ports, rec, opts).then(
        (outcome) => ({outcome}),
        (error: unknown) => ({error}),
      )
      const {status, detail} = outcomeStatus(result)
      await told(status, detail)
      if ('error' in result) throw result.error
      return result.outcome
    },
    abandon: async (reason) => {
      await rec.outcome({status: null, error_code: reason})
      await told('not_sent', {reason})
    },
  }
}


function failureOf(err: unknown): NonNullable<Established['failure']> {
  const e = err as {status?: number; errorCode?: string; requestId?: string; code?: string}
  return {status: e.status ?? null, request_id: e.requestId ?? null, error_code: e.errorCode ?? e.code ?? (err as Error).name}
}

/**
 * A refusal that names the state the movement is in ("move cannot be approved in status
 * canceled"): recorded with the error, so that the approval queue knows it is no longer waiting.
 */
function refusedInState(p: Plan, err: unknown): {resource_id: string; resource_status: string} | undefined {
  const r = p.request
  if (!(err instanceof ApiError) || err.status !== 400) return undefined
  if (r.kind !== 'move.approve' && r.kind !== 'move.cancel' && r.kind !== 'transfer.approve') return undefined
  const state = stateInRefusal(err.message)
  return state ? {resource_id: r.id, resource_status: state} : undefined
}

/** The movement a lookup before sending found by its key: a failed or canceled one is a conflict (exit 5), any other is replayed. */
async function foundBeforeSending(p: Plan, ports: MovementPorts, rec: RequestRecord, found: Record<string, unknown>): Promise<Outcome> {
  // A key that names a failed or canceled transfer cannot make the one asked for, as the spec's
  // 409 says of a move's key: nothing is sent, exit 5.
  const ended = typeof found.status === 'string' && ['failed', 'canceled'].includes(found.status.toLowerCase()) ? found.status.toLowerCase() : undefined
  if (ended) {
    await rec.outcome({status: null, error_code: 'not_sent', resource_id: String(found.id ?? ''), resource_status: ended, outcome: 'conflict'})
    throw new ConflictError(`Idempotency-Key ${p.idempotencyKey} names ${p.noun} ${String(found.id)}, which ${ended === 'failed' ? 'failed' : 'was canceled'}: it will not move money, and this request was not sent. Use a new key for a new ${p.noun}.`, String(found.id ?? ''), p.idempotencyKey)
  }
  return conclude(p, ports, rec, learned(200, found, systemClock.now()), {kind: 'replayed', notSent: true})
}

/**
 * A transfer this machine's trail shows accepted (2XX) without an id (a 202 without a body): the
 * list names it when exactly one transfer around that time could be it; else its id stays unknown.
 */
async function namedByTrail(p: Plan, last: LostAnswer): Promise<Record<string, unknown>> {
  const known = fromTrail(p, last)
  if (p.request.kind !== 'transfer.create' || !p.search) return known
  const at = Date.parse(last.time)
  const seen = await p.search({since: at, until: at}).catch(() => undefined)
  // Known by its id: where it stands now, as the list shows it (a list that echoes no key still
  // names ids; a transfer moves on after its answer), else as the trail saw it.
  if (last.id) return [seen?.found, ...(seen?.candidates ?? [])].find((t) => t?.id === last.id) ?? known
  const one = seen?.found ?? (seen?.candidates.length === 1 ? seen.candidates[0] : undefined)
  return one ?? known
}

/**
 * Where the spec promises no replay of a create (account transfers, simulated credits), a key the
 * operator gave is checked before anything is sent (see search.ts): the movement it names is
 * replayed, not sent; one this machine's trail shows answered 2XX is replayed from the trail; one
 * whose answer was lost is sent again only when the list shows that it did not happen (or with
 * --send-anyway). Resolves with the outcome when nothing is to be sent; with undefined to send.
 */
async function beforeSending(p: Plan, ports: MovementPorts, rec: RequestRecord): Promise<Outcome | undefined> {
  const attempt = p.search && !p.keyGenerated && p.idempotencyKey ? ports.history.lastAttempt?.(p.audit.method, p.audit.path, p.idempotencyKey) : undefined
  // Only an attempt at this very movement (a key sent with other details is another matter: the API or the trail refuses it).
  const last = attempt && attempt.amount_in_minor_units === p.audit.amount_in_minor_units && (attempt.to ?? null) === p.audit.to ? attempt : undefined
  const lost = last && !last.made ? last : undefined
  // --send-anyway speaks of a risk only where there is one: an earlier attempt whose answer was lost.
  if (!lost) p.sendAnyway = false
  if (!p.search || p.keyGenerated || !p.idempotencyKey) return undefined
  const around = lost ? {since: Date.parse(lost.time), until: Date.parse(lost.time)} : undefined
  // Transfers are always looked for by their key; a credit only when its last attempt was lost.
  let result: SearchResult | undefined
  if (p.request.kind === 'transfer.create' || (lost && !p.sendAnyway)) {
    try {
      result = await p.search(around)
    } catch (err) {
      if (!lost) {
        await rec.outcome({status: null, error_code: 'not_sent'})
        if (err instanceof PayopsError) err.message = `${err.message.replace(/\.?\s*$/, '.')} Nothing was sent: payops looks for the key among the ${p.noun}s first and could not.`
        throw err
      }
      result = {candidates: [], incomplete: `reading it failed: ${(err as Error).message.replace(/\.?\s*$/, '')}`}
    }
  }
  if (result?.found) return foundBeforeSending(p, ports, rec, result.found)
  if (last?.made) {
    // This machine's trail shows the key's request answered 2XX: it was made; the list need not echo the key.
    // Where it stands now decides as a lookup by key would: a failed or canceled one is a conflict.
    return foundBeforeSending(p, ports, rec, await namedByTrail(p, last))
  }
  if (lost && !p.sendAnyway && result && (result.incomplete || result.candidates.length > 0)) {
    await rec.outcome({status: null, error_code: 'not_sent'})
    throw unprovenRerun(p, result, lost)
  }
  return undefined
}

async function sendPlanned(p: Plan, ports: MovementPorts, rec: RequestRecord, opts: PrepareOptions): Promise<Outcome> {
  const known = await beforeSending(p, ports, rec)
  if (known) return known
  const sentAt = systemClock.now()
  let res: ApiResponse<Record<string, unknown> | undefined>
  try {
    res = await p.send()
  } catch (err) {
    // The API's own 409 to a move create: the key names another (or a canceled or failed) move.
    if (keyRefused(err, p)) {
      const e = err as {status?: number; errorCode?: string; requestId?: string; code?: string}
      await rec.outcome({status: e.status ?? null, request_id: e.requestId ?? null, error_code: e.errorCode ?? e.code ?? (err as Error).name, outcome: 'conflict'})
      throw keyConflict(err as ApiError, p, ports)
    }
    // An answer that shows the state asked for (a cancel of a canceled move...): it is so.
    const done = alreadyDone(p, err, ports.history)
    if (done) return conclude(p, ports, rec, learned((err as {status: number}).status, done.resource, sentAt), {kind: 'replayed', failure: failureOf(err), sentence: done.sentence})
    const unknown = leavesOutcomeUnknown(err)
    let looked = false
    if (unknown && p.search && p.request.kind === 'transfer.create') {
      // Not sent again: looked for in the list by its key.
      const found = await p.search({since: sentAt}).then(
        (t) => ((looked = true), t.found),
        () => undefined,
      )
      if (found) return conclude(p, ports, rec, learned(201, found, sentAt), {kind: 'created', failure: failureOf(err), foundByKey: true})
    }
    await rec.outcome({...failureOf(err), ...refusedInState(p, err), ...(unknown ? {outcome: 'unknown'} : {})})
    if (unknown && opts.unknownAsError) throw unknownOutcome(err, p, {looked, since: sentAt})
    throw explainUncertain(err, p)
  }
  return conclude(p, ports, rec, res)
}


/** Plan, guard and send one movement. */
export async function runMovement(request: MovementRequest, ports: MovementPorts, onSending?: (p: Plan) => void): Promise<Outcome> {
  const p = await plan(await withTeamKnown(request, ports), ports)
  await guard([p], ports)
  onSending?.(p)
  return execute(p, ports)
}

/**
 * Plans and sends one movement that its caller already confirmed as part of a batch (each import
 * row: the command guarded the whole file at once).
 */
export async function sendConfirmed(request: MovementRequest, ports: MovementPorts): Promise<Outcome> {
  return execute(await plan(request, ports), ports)
}

/**
 * Plans one row of a batch its caller already confirmed (an import row) and records its intent
 * (see prepare). A lost answer is found out by re-running the batch, which the error says.
 */
export async function prepareConfirmed(request: MovementRequest, ports: MovementPorts): Promise<Prepared> {
  const p = await plan(request, ports)
  p.batchRow = true
  return prepare(p, ports)
}

export type Settled = {request: MovementRequest; outcome: Outcome} | {request: MovementRequest; error: PayopsError}

/**
 * Plans every movement first (any planning error stops before anything is sent), confirms them
 * together, then sends them one after the other; each one's outcome or error is returned.
 */
export async function runMovements(requests: MovementRequest[], ports: MovementPorts, opts: GuardOptions = {}): Promise<Settled[]> {
  const plans: Plan[] = []
  for (const r of requests) plans.push(await plan(await withTeamKnown(r, ports), ports))
  await guard(plans, ports, opts)
  const out: Settled[] = []
  for (const p of plans) {
    try {
      out.push({request: p.request, outcome: await execute(p, ports)})
    } catch (err) {
      if (!(err instanceof PayopsError)) throw err
      out.push({request: p.request, error: err})
    }
  }
  return out
}
