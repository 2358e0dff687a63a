/**
 * The team's controls in the movement pipeline. With a team store bound, every money request is
 * decided by the store (`ControlStore.decide`): its policies (max-amount, daily-max,
 * allowed-destinations) and today's total are read in one transaction with the intent they allow,
 * so N runs on M machines never allow more than the cap. A profile's own limits still apply on top
 * (they may only add restrictions), and --override-limits never overrides a team policy.
 */
import {NotConfirmedError} from '../errors.js'
import {StoreUnavailableError} from '../control/errors.js'
import {addTotals, limitViolations, type Totals} from '../guardrails.js'
import type {Limits} from '../config/index.js'
import {formatMoney} from '../money.js'
import {leavesOutcomeUnknown} from '../api/retry.js'
import type {DecisionView, IntentInput, OutcomeInput} from '../control/types.js'
import {grouped, type Settled} from '../control/group.js'
import {openControlStore, teamBinding, type StoreContext} from '../control/index.js'
import type {Known, MovementPorts, MovementRequest, Outcome, Plan, TeamControls} from './types.js'

export type {TeamControls} from './types.js'

/** What the team's check reads of a plan (bulk callers build one for a whole batch). */
type Guarded = Pick<Plan, 'checks' | 'unknown'> & {autoApprove?: boolean | null; summary?: {action: string}}

const MARK = '\u0000team'

/** The team's policies that limit a movement (maker-checker is the approvals' own). */
function movementPolicies(l: Limits): Limits {
  const out: Limits = {}
  if (l.max_amount && Object.keys(l.max_amount).length) out.max_amount = l.max_amount
  if (l.daily_max && Object.keys(l.daily_max).length) out.daily_max = l.daily_max
  if (l.allowed_destinations?.length) out.allowed_destinations = l.allowed_destinations
  return out
}

/** What the plans count towards the day's total: a create held for approval moves nothing yet (its approval does). */
function counted(plans: Guarded[]): Totals {
  return addTotals(new Map(), plans.filter((p) => p.autoApprove !== false).flatMap((p) => p.checks))
}

/** Every team policy the plans break, read in the decision's transaction (empty when allowed). */
export async function teamViolations(plans: Guarded[], view: Pick<DecisionView, 'limits' | 'totalToday'>, location: string): Promise<string[]> {
  const limits = movementPolicies(await view.limits())
  if (Object.keys(limits).length === 0) return []
  const team = `the team store ${location}`
  const out: string[] = []
  for (const plan of plans) {
    if (plan.unknown) out.push(`${plan.unknown}, so the policies of ${team} cannot be checked`)
    for (const m of plan.checks) out.push(...limitViolations(limits, m, MARK).map((v) => v.replaceAll(`profile "${MARK}"`, team)))
  }
  const caps = limits.daily_max
  if (!caps) return out
  for (const [currency, asked] of counted(plans)) {
    const cap = caps[currency]
    if (cap === undefined) {
      out.push(`${team} has daily-max policies for ${Object.keys(caps).join(', ')} but none for ${currency}`)
      continue
    }
    const before = BigInt(await view.totalToday(currency))
    if (before + asked > BigInt(cap)) {
      out.push(`daily-max ${formatMoney(cap, currency)} of ${team}: ${formatMoney(before, currency)} allowed today (the store's day, UTC) + ${formatMoney(asked, currency)} asked = ${formatMoney(before + asked, currency)}`)
    }
  }
  return out
}

/** The refusal of broken team policies (exit 3, nothing sent). */
export function teamRefusal(violations: string[]): NotConfirmedError {
  const more = violations.length > 1 ? ` (and ${violations.length - 1} more)` : ''
  return new NotConfirmedError(`Refused by the team's policies: ${violations[0]}${more}. Nothing was sent; --override-limits does not override a team policy.`)
}

/**
 * Before any confirmation: the plans checked against the team's policies and today's total as
 * the store has them now (a decision that records nothing). The decision that counts is taken
 * again, with the intent, right before sending (decideIntent).
 */
export async function checkTeam(plans: Guarded[], team: TeamControls): Promise<void> {
  const {value} = await team.store.decide(async (view) => {
    const violations = await teamViolations(plans, view, team.location)
    // A refusal is a decision too: recorded with why, in the transaction that took it.
    return {value: violations, ...(violations.length && {intents: plans.map((p) => refusedCheck(p, violations))})}
  })
  if (value.length) throw teamRefusal(value)
}

/** The record of a request refused before confirmation: what it asked, and why (it counts nothing). */
function refusedCheck(p: Guarded, violations: string[]): IntentInput {
  const check = p.checks[0]
  const currencies = new Set(p.checks.map((c) => c.currency.toUpperCase()))
  return {
    kind: 'check',
    currency: currencies.size === 1 ? [...currencies][0] : 'XXX',
    amount: currencies.size === 1 ? p.checks.reduce((sum, c) => sum + c.amount_in_minor_units, 0) : 0,
    destination: check?.to ?? null,
    status: 'refused',
    detail: {...(p.summary && {action: p.summary.action}), requests: p.checks.length, refused: violations},
  }
}

/** The intent a plan records in the store: what it counts towards the day's total, and where it goes. */
function intentOf(p: Plan, violations: string[]): IntentInput {
  const check = p.checks[0]
  const amount = p.autoApprove === false ? 0 : p.checks.reduce((sum, c) => sum + c.amount_in_minor_units, 0)
  return {
    kind: p.request.kind,
    currency: (check?.currency ?? p.currency ?? 'XXX').toUpperCase(),
    amount,
    destination: check?.to ?? null,
    status: violations.length ? 'refused' : 'allowed',
    detail: {
      method: p.audit.method,
      path: p.audit.path,
      idempotency_key: p.idempotencyKey,
      amount_in_minor_units: p.audit.amount_in_minor_units,
      from: p.audit.from,
      to: p.audit.to,
      ...('id' in p.request ? {resource_id: p.request.id} : {}),
      ...(p.autoApprove === false ? {held_for_approval: true} : {}),
      ...(violations.length ? {refused: violations} : {}),
    },
  }
}

/**
 * The decision and its intent, one transaction of the store: the team's policies and today's
 * total read, the intent appended (refused ones too, with why). Resolves with the intent's
 * position; a refusal throws (exit 3) once it is recorded. An unreachable store is exit 7.
 */
export async function decideIntent(p: Plan, team: TeamControls): Promise<number> {
  return (await groupOf(team)({plan: p}))!
}

/** What waits for the store's next transaction: a plan to decide, or an outcome to record. */
type Grouped = {plan: Plan} | {outcome: OutcomeInput}

/**
 * Plans decided together, with the outcomes waiting meanwhile (group commit, src/control/group.ts):
 * one transaction, each plan in its turn, judged against today's total with the plans allowed
 * before it in the group added, so the group allows exactly what the same plans decided one by one
 * would.
 */
async function flushGroup(items: Grouped[], team: TeamControls): Promise<Array<Settled<number | undefined>>> {
  const plans = items.flatMap((i) => ('plan' in i ? [i.plan] : []))
  const outcomes = items.flatMap((i) => ('outcome' in i ? [i.outcome] : []))
  if (plans.length === 0) {
    await team.store.recordOutcomes(outcomes)
    return items.map(() => ({ok: true, value: undefined}))
  }
  const {value, intents} = await team.store.decide(async (view) => {
    // Read once per transaction: the policies, and each currency's total before the group.
    const before = new Map<string, Promise<number>>()
    const earlier = new Map<string, number>()
    const limits = view.limits()
    const totalBefore = (currency: string) => before.get(currency) ?? (before.set(currency, view.totalToday(currency)), before.get(currency)!)
    const running: DecisionView = {day: view.day, totalToday: async (currency) => (await totalBefore(currency)) + (earlier.get(currency) ?? 0), limits: () => limits}
    const all: IntentInput[] = []
    const verdicts: string[][] = []
    for (const p of plans) {
      const violations = await teamViolations([p], running, team.location)
      const intent = intentOf(p, violations)
      if (intent.status === 'allowed') earlier.set(intent.currency, (earlier.get(intent.currency) ?? 0) + intent.amount)
      all.push(intent)
      verdicts.push(violations)
    }
    return {value: verdicts, intents: all, outcomes}
  })
  let k = 0
  return items.map((i) => {
    if ('outcome' in i) return {ok: true, value: undefined}
    const violations = value[k]
    const seq = intents![k++].seq
    return violations.length ? {ok: false, error: teamRefusal(violations)} : {ok: true, value: seq}
  })
}

/** The group of a store (one per open store: this process's connection). */
const groups = new WeakMap<object, (item: Grouped) => Promise<number | undefined>>()

function groupOf(team: TeamControls): (item: Grouped) => Promise<number | undefined> {
  let g = groups.get(team.store)
  if (!g) {
    g = grouped((items: Grouped[]) => flushGroup(items, team))
    groups.set(team.store, g)
  }
  return g
}

/** What became of a decided intent, as the store records it. */
export function outcomeStatus(result: {outcome: Outcome} | {error: unknown}): {status: string; detail: Record<string, unknown>} {
  if ('outcome' in result) {
    const o = result.outcome
    return {status: o.kind, detail: {id: o.id, status: o.status, http_status: o.http_status, partial: o.partial}}
  }
  const e = result.error as {name?: string; status?: number; errorCode?: string; requestId?: string}
  const detail = {error: e?.name ?? 'Error', http_status: e?.status ?? null, error_code: e?.errorCode ?? null, request_id: e?.requestId ?? null}
  // Carried out, only this machine's trail could not record it: it moved.
  if (e?.name === 'UnrecordedOutcomeError') return {status: 'sent', detail}
  return {status: leavesOutcomeUnknown(result.error) ? 'unknown' : 'failed', detail}
}

/**
 * An approval of a movement this machine did not create: what the team store recorded of its
 * create (amount, currency, route, key), so that the team's policies judge what it moves. A
 * request whose details are known here (the trail, a review file) is left as it is.
 */
export async function withTeamKnown(r: MovementRequest, ports: Pick<MovementPorts, 'team' | 'history'>): Promise<MovementRequest> {
  if (!ports.team || (r.kind !== 'move.approve' && r.kind !== 'transfer.approve') || r.known || ports.history.byResource(r.id)) return r
  const i = await ports.team.store.intentFor(r.id)
  if (!i) return r
  const d = i.detail
  const str = (v: unknown) => (typeof v === 'string' ? v : null)
  const known: Known = {
    id: r.id,
    amount_in_minor_units: typeof d.amount_in_minor_units === 'number' ? d.amount_in_minor_units : i.amount,
    currency_code: i.currency,
    from: str(d.from),
    to: i.destination ?? str(d.to),
    idempotency_key: str(d.idempotency_key),
  }
  return {...r, known}
}

/** The team store this run is bound to, opened (an unreachable one is exit 7, before anything is sent); undefined without one. */
export async function openTeamControls(ctx: StoreContext): Promise<TeamControls | undefined> {
  if (!teamBinding(ctx)) return undefined
  const store = await openControlStore(ctx)
  return {store, location: store.location}
}

/** Records an outcome in the store; a failure to record it is said (the intent stays counted), never thrown. */
export async function recordTeamOutcome(team: TeamControls, seq: number, status: string, detail: Record<string, unknown>, note: (line: string) => void): Promise<void> {
  const written = groupOf(team)({outcome: {intentSeq: seq, status, detail}}).then(
    () => undefined,
    (err: unknown) => {
      const why = err instanceof StoreUnavailableError ? 'it cannot be reached' : (err as Error).message.replace(/\.?\s*$/, '')
      note(`Warning: the team store ${team.location} could not record this request's outcome (${why}); its intent stays on record there and counts towards the team's daily total. This machine's audit trail has the outcome.`)
    },
  )
  if (team.defer) team.defer(written)
  else await written
}
