/**
 * The guard of every money request: the profile's limits and allow-list, then (on a LIVE key, or
 * over a limit with --override-limits) a summary and a confirmation. Typed on a terminal: the
 * amount shown, or, when this machine does not know the amount, the id's last 6 characters.
 * Without a terminal --yes confirms what needs no override; nothing else passes.
 */
import type {IntentCheck} from '../api/audit-info.js'
import {NotConfirmedError} from '../errors.js'
import {systemClock} from '../context/host.js'
import {addTotals, dailyViolations, hasDailyCap, violationsOfSets, type Totals} from '../guardrails.js'
import {toDecimalString} from '../money.js'
import {refuseOwnApproval} from './maker-checker.js'
import {checkTeam} from './team.js'
import type {History, MovementPorts, Plan} from './types.js'

/** What the guard reads of a plan (bulk callers build one for a whole batch). */
export type Guarded = Pick<Plan, 'summary' | 'checks' | 'typed' | 'unknown' | 'evenOnTest' | 'plainConfirm' | 'alwaysTyped' | 'overridden'> & {autoApprove?: boolean | null}

const plainPaint = {live: (s: string) => s, bold: (s: string) => s, red: (s: string) => s}

/** Some profile's max-amount or allow-list binds the key in use. */
export function hasLimits(ports: Pick<MovementPorts, 'profile'>): boolean {
  return ports.profile.limitSets.length > 0
}

/** Every limit the plans break, as one-line reasons (empty when allowed). */
export function violationsOf(plans: Guarded[], ports: MovementPorts): string[] {
  const sets = ports.profile.limitSets
  const names = sets.map((s) => `"${s.profile}"`).join(', ')
  const out: string[] = []
  for (const plan of plans) {
    if (plan.unknown && sets.length) out.push(`${plan.unknown}, so the limits of profile ${names} cannot be checked`)
    for (const m of plan.checks) out.push(...violationsOfSets(sets, m))
  }
  // Daily caps: what these plans move, with what moved today (UTC, as the audit trail's times) under the
  // key. A create without auto-approval moves nothing yet: its approval is what the cap checks.
  out.push(...dailyCapsBroken(sets, addTotals(new Map(), plans.filter((p) => p.autoApprove !== false).flatMap((p) => p.checks)), ports.history))
  return out
}

/** The daily caps `asked` (per currency) breaks with what moved today (UTC, the trail read by position) under the key. */
export function dailyCapsBroken(sets: MovementPorts['profile']['limitSets'], asked: Totals, history: Pick<History, 'movedSince' | 'spentSince'>): string[] {
  if (!hasDailyCap(sets) || asked.size === 0) return []
  // The trail's records are dated by the host's wall clock: so is the day they are counted in.
  const since = utcDayStart(systemClock.now())
  return dailyViolations(sets, asked, history.spentSince?.(since) ?? {moved: history.movedSince(since), unknown: new Map()})
}

/** The one-line refusal of broken limits (exit 3, nothing sent). */
function refusal(violations: string[], when = ''): NotConfirmedError {
  const more = violations.length > 1 ? ` (and ${violations.length - 1} more)` : ''
  return new NotConfirmedError(`Refused by profile limits: ${violations[0]}${more}${when}. Nothing was sent; --override-limits overrides it after confirmation.`)
}

/**
 * The decisions that read the audit trail, taken again under its lock right before the intent is
 * written (after any confirmation, which is never asked under the lock): the daily caps, with what
 * every run recorded until then (another run's intent in flight counts as unknown), and
 * maker-checker's refusal of an approval by the movement's maker. Undefined when neither applies,
 * and for a batch's rows (the batch was checked as a whole before its first row).
 */
export function recheckUnderLock(p: Plan, ports: MovementPorts): IntentCheck | undefined {
  const history = ports.history
  if (!history.at || p.batchRow) return undefined
  const sets = ports.profile.limitSets
  const r = p.request
  const capped = hasDailyCap(sets) && p.autoApprove !== false && p.checks.length > 0 && !p.overridden
  const approval = (r.kind === 'move.approve' || r.kind === 'transfer.approve') && !r.known && sets.some((s) => s.limits.approval)
  if (!capped && !approval) return undefined
  return (records) => {
    const now = history.at!(records)
    if (capped) {
      const broken = dailyCapsBroken(sets, addTotals(new Map(), p.checks), now)
      if (broken.length) throw refusal(broken, ' (decided under the audit trail\'s lock, with what other runs recorded meanwhile)')
    }
    if (approval) {
      const k = now.byResource(r.id)
      const known = k && {...k, amount_in_minor_units: p.audit.amount_in_minor_units ?? k.amount_in_minor_units, currency_code: p.audit.currency_code ?? k.currency_code}
      refuseOwnApproval(sets, known, ports.profile.operator, p.noun, r.id)
    }
  }
}

/** Midnight UTC of the day `ms` falls in. */
export function utcDayStart(ms: number): number {
  return ms - (((ms % 86_400_000) + 86_400_000) % 86_400_000)
}

/** The summary lines the operator sees before confirming. */
export function summaryLines(plans: Guarded[], ports: MovementPorts, action?: string): string[] {
  const p = ports.paint ?? plainPaint
  const live = ports.profile.live
  const lines: string[] = []
  if (plans.length === 1 || action === undefined) {
    const s = plans[0].summary
    lines.push(`${live ? p.live(' LIVE ') : p.bold('[test]')} ${p.bold(action ?? s.action)}`)
    if (plans.length === 1) {
      if (s.amount) lines.push(`  amount:  ${s.amount}`)
      if (s.from) lines.push(`  from:    ${s.from}`)
      if (s.to) lines.push(`  to:      ${s.to}`)
      for (const [k, v] of Object.entries(s.details ?? {})) if (v !== undefined) lines.push(`  ${(k + ':').padEnd(9)}${v}`)
      if (plans[0].unknown) lines.push(`  ${p.red('unknown:')} ${plans[0].unknown}`)
    }
  } else {
    lines.push(`${live ? p.live(' LIVE ') : p.bold('[test]')} ${p.bold(action)}`)
    for (const plan of plans.slice(0, 10)) lines.push(`  - ${plan.summary.action}${plan.summary.amount ? `: ${plan.summary.amount}` : ''}${plan.unknown ? ` (${plan.unknown})` : ''}`)
    if (plans.length > 10) lines.push(`  … and ${plans.length - 10} more`)
  }
  lines.push(`  profile: ${ports.profile.name ?? '(no profile)'} · ${live ? 'LIVE' : 'test'} key ${ports.profile.keyLabel}`)
  return lines
}

/**
 * What the operator types for several plans: their total when every amount is known and in one
 * currency, else their count; for one plan, its own (the amount, or the id's last 6 characters).
 */
export function batchTyped(plans: Guarded[]): string {
  if (plans.length === 1 && plans[0].typed) return plans[0].typed
  const checks = plans.flatMap((p) => p.checks)
  const currencies = new Set(checks.map((c) => c.currency.toUpperCase()))
  if (plans.some((p) => p.unknown) || checks.length !== plans.length || currencies.size !== 1) return String(plans.length)
  const [currency] = currencies
  return toDecimalString(checks.reduce((sum, c) => sum + BigInt(c.amount_in_minor_units), 0n), currency)
}

/** A decimal written plainly: `1,234.50` and `1234.5 USD` are both 1234.5. */
function decimalOf(s: string): string | undefined {
  const m = /^(\d+)(?:\.(\d+))?$/.exec(s.trim().replace(/,/g, '').replace(/\s+[A-Za-z]{3}$/, ''))
  if (!m) return undefined
  const int = m[1]
  const frac = (m[2] ?? '').replace(/0+$/, '')
  return frac ? `${int}.${frac}` : int
}

/** The answer confirms what was to be typed: amounts compare by value, anything else exactly. */
export function sameTyped(answer: string, typed: string): boolean {
  const a = decimalOf(answer)
  const t = decimalOf(typed)
  if (a !== undefined && t !== undefined) return a === t
  return answer.trim() === typed.trim()
}

export interface GuardOptions {
  /** The summary title for several plans at once. */
  action?: string
  /** What to type for several plans at once. */
  typed?: string
}

/**
 * Refuses (exit 3, nothing sent) or returns once the operator confirmed. Limits first: a
 * violation refuses unless --override-limits, which is then always confirmed (typed on a terminal,
 * --yes without one).
 */
export async function guard(plans: Guarded[], ports: MovementPorts, opts: GuardOptions = {}): Promise<void> {
  if (plans.length === 0) return
  // The team's policies first: no flag of this machine overrides them.
  if (ports.team) await checkTeam(plans, ports.team)
  const violations = violationsOf(plans, ports)
  if (violations.length && !ports.overrideLimits) throw refusal(violations)
  // Confirmed over the limits (or refused below): the check under the trail's lock does not ask again.
  if (violations.length) for (const plan of plans) plan.overridden = true
  const live = ports.profile.live
  const evenOnTest = plans.some((p) => p.evenOnTest)
  if (!live && !violations.length && !evenOnTest) return
  const p = ports.paint ?? plainPaint
  const lines = summaryLines(plans, ports, opts.action)
  for (const v of violations.slice(0, 10)) lines.push(`  ${p.red('over limit:')} ${v}`)
  if (violations.length > 10) lines.push(`  ${p.red(`and ${violations.length - 10} more over the limits`)}`)
  ports.prompter.note(lines)
  const plain = plans.every((x) => x.plainConfirm) && !violations.length
  const mustType = (live || violations.length > 0 || plans.some((x) => x.alwaysTyped)) && !plain
  const what = live ? (plain ? 'a LIVE action' : 'a LIVE money movement') : violations.length ? 'to override limits' : 'this action'
  // What was refused, named in every refusal: nothing of it was sent.
  const refused = opts.action ?? (plans.length === 1 ? plans[0].summary.action : `${plans.length} requests`)
  if (!ports.prompter.interactive) {
    if (ports.yes) return
    throw new NotConfirmedError(`Refusing ${what} without confirmation: no terminal to ask on, so nothing was sent. Refused: ${refused}. Re-run with --yes to confirm.`)
  }
  if (ports.yes && !violations.length && !plans.some((x) => x.unknown)) return
  if (!mustType) {
    if (!(await ports.prompter.confirm(`Proceed with ${what}?`))) throw new NotConfirmedError(`Not confirmed: nothing was sent. Refused: ${refused}.`)
    return
  }
  const typed = opts.typed ?? batchTyped(plans)
  const answer = (await ports.prompter.input(`Type ${typed} to confirm${live ? ' this LIVE movement' : ''}:`)).trim()
  if (!sameTyped(answer, typed)) throw new NotConfirmedError(`Not confirmed: typed "${answer}", expected ${typed}. Nothing was sent. Refused: ${refused}.`)
}
