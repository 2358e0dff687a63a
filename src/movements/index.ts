/**
 * The movement pipeline: every request that can move money (moves create, approve and cancel,
 * each import row, transfers create and approve, simulated credits, and `payops api` on those
 * endpoints) goes plan -> guard -> record intent -> send -> classify -> record outcome, and the
 * caller renders the outcome. Nothing here prints or parses flags: the world comes in as ports.
 */
import {ApiError, ConflictError, PayopsError, UnrecordedOutcomeError} from '../errors.js'
import {leavesOutcomeUnknown} from '../api/retry.js'
import {alreadyDone, stateInRefusal, unknownExplanation, unknownOutcome} from './settle.js'
import {recordRequest, type ApiResponse, type RequestRecord} from '../api/client.js'
import {classifyOutcome, mismatches, requestWindowStart, timeOf} from './classify.js'
import {guard, recheckUnderLock, type GuardOptions} from './guard.js'
import {plan} from './plan.js'
import {describe, seenOf, sentence} from './sentence.js'
import {heldForApproval, makerCheckerFor} from './maker-checker.js'
import {answered, fromTrail} from './unshown.js'
import {unprovenRerun, type SearchResult} from './search.js'
import {decideIntent, outcomeStatus, recordTeamOutcome, withTeamKnown} from './team.js'
import type {LostAnswer, MovementPorts, MovementRequest, Outcome, OutcomeKind, Plan} from './types.js'

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

function header(res: ApiResponse<unknown>, name: string): string | undefined {
  const v = res.headers[name]
  return Array.isArray(v) ? v[0] : v
}

function rawStatusOf(body: unknown): string | null {
  const data = (body as {data?: {status?: unknown}} | undefined)?.data
  return typeof data?.status === 'string' ? data.status : null
}

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

/**
 * An approve answer without an amount (the spec's example shape has none): the amount (and the
 * currency, when the answer lacks it) of the move as this machine's audit trail recorded it, when
 * it recorded this move and the answer does not contradict it; else the amount stays unknown.
 */
function withKnownAmount(resource: Record<string, unknown>, p: Plan): Record<string, unknown> {
  if (p.request.kind !== 'move.approve' || typeof resource.amount_in_minor_units === 'number') return resource
  const k = p.recorded
  if (!k || k.amount_in_minor_units == null) return resource
  const answered = typeof resource.currency_code === 'string' ? resource.currency_code.toUpperCase() : undefined
  if (answered && k.currency_code && answered !== k.currency_code.toUpperCase()) return resource
  if ((k.from && resource.from_subaccount_id && k.from !== resource.from_subaccount_id) || (k.to && resource.to_subaccount_id && k.to !== resource.to_subaccount_id)) return resource
  return {...resource, amount_in_minor_units: k.amount_in_minor_units, currency_code: resource.currency_code ?? k.currency_code ?? null}
}

/** The profile whose maker-checker policy covers a create asked without auto-approval (its maker cannot approve it). */
function checkerOf(p: Plan, ports: MovementPorts): string | undefined {
  if (p.autoApprove !== false || !p.expected) return undefined
  return makerCheckerFor(ports.profile.limitSets, p.expected.amount_in_minor_units, p.currency)
}

/** Records an outcome; outside a batch, the error when it could not be written (a batch row's is a warning). */
async function recordOutcome(rec: RequestRecord, p: Plan, o: Parameters<RequestRecord['outcome']>[0]): Promise<unknown> {
  try {
    await rec.outcome(o, {strict: !p.batchRow})
    return undefined
  } catch (err) {
    return err ?? new Error('unknown error')
  }
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

/** An answer payops did not receive as such: what a lookup found, or what a refusal showed. */
function learned(status: number, resource: Record<string, unknown>, sentAt: number): ApiResponse<Record<string, unknown>> {
  return {status, data: resource, body: {data: resource}, headers: {}, attempts: 1, earlierAttemptUncertain: false, sentAt}
}

/** How the outcome was established when not from the answer itself. */
interface Established {
  kind: OutcomeKind
  /** The request failed (lost answer, refusal): its status and code, for the audit trail. */
  failure?: {status: number | null; request_id: string | null; error_code: string | null}
  /** The lost answer's movement was found in the list by its key. */
  foundByKey?: boolean
  /** The sentence, when the answer was a refusal that shows the state. */
  sentence?: string
  /** Nothing was sent: the key already names a movement in the list. */
  notSent?: boolean
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
  return conclude(p, ports, rec, learned(200, found, Date.now()), {kind: 'replayed', notSent: true})
}

/**
 * A transfer this machine's trail shows accepted (2XX) without an id (a 202 without a body): the
 * list names it when exactly one transfer around that time could be it; else its id stays unknown.
 */
async function namedByTrail(p: Plan, last: LostAnswer): Promise<Record<string, unknown>> {
  const known = fromTrail(p, last)
  if (last.id || p.request.kind !== 'transfer.create' || !p.search) return known
  const at = Date.parse(last.time)
  const seen = await p.search({since: at, until: at}).catch(() => undefined)
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
    return conclude(p, ports, rec, learned(200, await namedByTrail(p, last), Date.now()), {kind: 'replayed', notSent: true})
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
  const sentAt = Date.now()
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

async function conclude(p: Plan, ports: MovementPorts, rec: RequestRecord, res: ApiResponse<Record<string, unknown> | undefined>, est?: Established): Promise<Outcome> {
  const receivedAt = Date.now()
  const op = p.request.kind
  const requestedId = 'id' in p.request ? p.request.id : undefined
  // An answer the spec does not show (a cancel's 204, an approve's `{}`, a transfer's 202 without a
  // body): its status code tells what happened; what it leaves out is what is known, or unknown.
  const resource = withKnownAmount(answered(p, res.status, res.data), p)
  const seen = seenOf(p.noun, resource)
  if (!seen.id && requestedId) seen.id = requestedId
  const create = op === 'move.create' || op === 'transfer.create' || op === 'credit.simulate'
  const byKey = p.idempotencyKey && !p.keyGenerated ? ports.history.byKey(p.idempotencyKey) : undefined
  // What the key named, in the latest state this machine recorded for it (an approve after its create).
  const latest = byKey?.id ? ports.history.lastStatus?.(byKey.id) : undefined
  const prior = byKey && latest ? {...byKey, status: latest} : byKey
  const kind =
    est?.kind ??
    classifyOutcome({
      op: create ? 'create' : 'advance',
      httpStatus: res.status,
      rawStatus: rawStatusOf(res.body),
      status: seen.status,
      keyGenerated: p.keyGenerated,
      earlierAttemptUncertain: res.earlierAttemptUncertain,
      prior,
      autoApprove: p.autoApprove,
      createdAt: timeOf(resource.created_at),
      statusRecordedAt: timeOf(resource.status_recorded_at ?? resource.settled_at ?? resource.updated_at),
      windowStart: requestWindowStart(res.sentAt, receivedAt, header(res, 'date')),
    })
  // 207; or a move asked to settle that the answer shows only approved (a replay of one whose
  // settlement failed earlier: the API returns it as it is, so what was asked did not all happen).
  const partial = res.status === 207 || (op === 'move.create' && p.autoApprove === true && seen.status === 'approved')
  const differs = create && p.expected && !est?.sentence ? mismatches(p.expected, seen) : []
  // Outside a batch, an outcome that cannot be written ends the command (see unrecordedError).
  const info = rec.info
  const unrecorded = await recordOutcome(rec, p, {
    status: res.status,
    request_id: res.requestId ?? null,
    ...est?.failure,
    ...(est?.notSent ? {status: null, error_code: 'found-by-key'} : {}),
    resource_id: seen.id || null,
    resource_status: seen.status,
    outcome: differs.length ? 'conflict' : kind,
    amount_in_minor_units: resource.amount_in_minor_units === undefined ? info.amount_in_minor_units : seen.amount_in_minor_units,
    currency_code: seen.currency_code ?? info.currency_code,
    from: seen.from ?? info.from,
    to: seen.to ?? info.to,
    ...(typeof resource.scheduled_date === 'string' ? {scheduled_date: resource.scheduled_date} : {}),
    attempts: res.attempts,
  })
  if (differs.length) {
    const asked = describe(p.expected!, p.currency)
    const named = describe(seen, p.currency)
    throw new ConflictError(
      `Idempotency-Key ${p.idempotencyKey} already names ${p.noun} ${seen.id} (${named}${seen.status ? `, ${seen.status}` : ''}); this request (${asked}) was not carried out. Use a new key for a new ${p.noun}.`,
      seen.id,
      p.idempotencyKey,
    )
  }
  const confirmedByRetry = kind === 'created' && res.earlierAttemptUncertain && res.status === 200
  const nameOf = ports.names ? (id: string) => ports.names?.get(id) : undefined
  const checker = create ? (p.heldBy ?? checkerOf(p, ports)) : undefined
  // Held by maker-checker: said once the movement exists (a refusal before sending never says it).
  const awaiting = seen.status === 'created' || (seen.status === null && kind === 'created')
  if (p.heldBy && seen.id && awaiting && !p.batchRow && p.expected) ports.prompter.note(heldForApproval(p.heldBy, p.expected.amount_in_minor_units, p.currency ?? '', p.noun, seen.id))
  const tell = (s: typeof seen) => est?.sentence ?? sentence({plan: p, kind, seen: s, partial, confirmedByRetry, foundByKey: est?.foundByKey, before: prior?.status, nameOf, checker})
  const outcome = (r: Record<string, unknown>, s: typeof seen): Outcome => ({
    kind,
    // Never an empty id: an answer that named none (a 202 without a body) leaves it unknown.
    id: s.id || null,
    idempotency_key: p.idempotencyKey,
    status: s.status,
    resource: r,
    body: res.body,
    http_status: res.status,
    warning: res.warning ?? undefined,
    partial,
    ...(p.heldBy ? {held_by: p.heldBy} : {}),
    confirmed_by_retry: confirmedByRetry || Boolean(est?.foundByKey),
    sentence: tell(s),
    restate: (now) => {
      const s2 = seenOf(p.noun, now)
      if (!s2.id) s2.id = s.id
      return outcome(now, s2)
    },
    observe: async (now) => {
      const s2 = seenOf(p.noun, now)
      if (!s2.status || s2.status === s.status) return
      // Not an answer to a request (no status, outcome "observed"): read only for what the movement became.
      await rec.outcome({status: null, request_id: null, error_code: null, resource_id: s2.id || s.id || null, resource_status: s2.status, outcome: 'observed'})
    },
  })
  const told = outcome(resource, seen)
  if (unrecorded !== undefined) throw unrecordedError(told, p, unrecorded)
  return told
}

/**
 * What moved, when its outcome could not be written to the audit trail (the disk full): the trail
 * ends on its intent, read as an outcome unknown (daily caps count it so) until the command that
 * finds it out (the plan's settle command: the same create with its key, the same approve or
 * cancel) records it. Exit 1, so that no script takes the run for a clean one.
 */
function unrecordedError(o: Outcome, p: Plan, err: unknown): UnrecordedOutcomeError {
  return new UnrecordedOutcomeError(
    `${o.sentence} But its outcome could not be written (${(err as Error).message}): the audit trail shows this request as sent with its outcome unknown, and daily caps count it so. Once the trail can be written, run \`${p.settle}\` to record it: it finds what this run did and moves nothing again.`,
  )
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
