/**
 * Concluding a movement: its answer (or what a lookup found) classified against what this machine
 * knew before, the outcome recorded in the audit trail, and the sentence the run tells of it.
 */
import {ConflictError, UnrecordedOutcomeError} from '../errors.js'
import type {ApiResponse, AuditInfo, RequestRecord} from '../api/client.js'
import {systemClock} from '../context/host.js'
import {classifyOutcome, mismatches, requestWindowStart, timeOf} from './classify.js'
import {describe, seenOf, sentence} from './sentence.js'
import {heldForApproval, makerCheckerFor} from './maker-checker.js'
import {answered} from './unshown.js'
import type {Known, MovementPorts, Outcome, OutcomeKind, Plan} from './types.js'

function header(res: ApiResponse<unknown>, name: string): string | undefined {
  const v = res.headers[name]
  return Array.isArray(v) ? v[0] : v
}

function rawStatusOf(body: unknown): string | null {
  const data = (body as {data?: {status?: unknown}} | undefined)?.data
  return typeof data?.status === 'string' ? data.status : null
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

/** An answer payops did not receive as such: what a lookup found, or what a refusal showed. */
export function learned(status: number, resource: Record<string, unknown>, sentAt: number): ApiResponse<Record<string, unknown>> {
  return {status, data: resource, body: {data: resource}, headers: {}, attempts: 1, earlierAttemptUncertain: false, sentAt}
}

/** How the outcome was established when not from the answer itself. */
export interface Established {
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

/** What a movement's answer was read as, before it is told. */
interface Concluded {
  resource: Record<string, unknown>
  seen: ReturnType<typeof seenOf>
  kind: OutcomeKind
  partial: boolean
  prior: (Known & {id?: string | null; status?: string | null}) | undefined
}

export async function conclude(p: Plan, ports: MovementPorts, rec: RequestRecord, res: ApiResponse<Record<string, unknown> | undefined>, est?: Established): Promise<Outcome> {
  // On the clock the client timed the request with (res.sentAt): the host's wall clock.
  const receivedAt = systemClock.now()
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
  // 207; or a create that the answer shows approved (a replay of a move whose settlement failed
  // earlier, whether this request asked to settle it or to hold it for approval: the API returns it
  // as it is, approved and not settled, and nothing continues it; so what was asked is not where it
  // stands).
  const partial = res.status === 207 || (op === 'move.create' && seen.status === 'approved')
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
  const told = toldOutcome(p, ports, rec, res, est, {resource, seen, kind, partial, prior})
  if (unrecorded !== undefined) throw unrecordedError(told, p, unrecorded)
  return told
}

/** What the run tells of a concluded movement: its sentence, and how to restate it as it changes. */
function toldOutcome(p: Plan, ports: MovementPorts, rec: RequestRecord, res: ApiResponse<Record<string, unknown> | undefined>, est: Established | undefined, c: Concluded): Outcome {
  const {resource, seen, kind, partial, prior} = c
  const create = p.request.kind === 'move.create' || p.request.kind === 'transfer.create' || p.request.kind === 'credit.simulate'
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
  return outcome(resource, seen)
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
