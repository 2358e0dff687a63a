/**
 * What commands do with the movement pipeline, given their context: run one money request or a
 * batch, render outcomes (the resource on stdout, the outcome line or sentence on stderr), and
 * confirm mutations that move no money through the same guard.
 */
import type {CommandContext} from '../context/index.js'
import {ApiError, ExitCode, PartialError, type ExitCodeValue} from '../errors.js'
import {BulkReport, type ItemResult} from '../api/bulk.js'
import {keyIdOf, redactKey} from '../api/redact.js'
import {currentOperator} from '../config/identity.js'
import {violationsOfSets, type Movement} from '../guardrails.js'

import {RESULT_COLUMNS} from '../output/columns.js'
import type {Column} from '../output/index.js'
import {dailyCapsBroken, guard, type GuardOptions} from './guard.js'
import {randomUUID} from 'node:crypto'
import {auditHistory} from './history.js'
import {teamHook, type TeamHook} from './team-approvals.js'
import {openTeamControls} from './team.js'
import type {MovementKind, MovementPorts, MovementRequest, Outcome, Summary, TeamControls} from './types.js'

export interface GuardFlags {
  yes?: boolean
  'override-limits'?: boolean
}

/**
 * What the movement pipeline needs, from a command's context and flags. With `root`, requests go
 * below that path of the base URL's origin (`payops api` sends to the URL it was given).
 */
export async function portsOf(ctx: CommandContext, kinds: readonly MovementKind[], flags: GuardFlags, root?: string, opts: {teamApproval?: boolean; team?: TeamControls} = {}): Promise<MovementPorts> {
  const {AREAS_FOR_KIND} = await import('./index.js')
  const loaded = await ctx.api([...new Set(kinds.flatMap((k) => AREAS_FOR_KIND[k]))])
  const api = root === undefined ? loaded : await loaded.under(root)
  const r = ctx.profile
  // Bound to a team store: it decides every money request; unreachable, nothing is sent (exit 7).
  const team = opts.team ?? (await openTeamControls(ctx))
  // The team's approval policy holds creates as a profile's does (its limits are the store's to
  // decide, in the transaction that records the intent): a member's profile cannot drop it.
  // (Not for the worker: what it carries out was approved in the store by a member other than its maker.)
  const teamApproval = team && opts.teamApproval !== false ? (await team.store.limits()).approval : undefined
  const limitSets = teamApproval ? [...r.limitSets, {profile: `team store ${team!.location}`, limits: {approval: teamApproval}}] : r.limitSets
  return {
    ...(team ? {team} : {}),
    api,
    audit: ctx.audit(),
    history: auditHistory(ctx.configDir, keyIdOf(r.apiKey)),
    prompter: ctx.prompter,
    paint: ctx.out.paint,
    profile: {name: r.profileName ?? null, live: r.mode === 'live', limitSets, keyLabel: redactKey(r.apiKey), operator: currentOperator(r.profile?.operator_name)},
    yes: Boolean(flags.yes),
    overrideLimits: Boolean(flags['override-limits']),
    newKey: () => randomUUID(),
    names: ctx.names,
  }
}

/** Runs one money request through the pipeline (plan, guard, send, classify, record); `root` as for portsOf. */
export async function runOne(ctx: CommandContext, flags: GuardFlags, request: MovementRequest, root?: string): Promise<Outcome> {
  // A member without the key: a create is recorded in the team store as a request, nothing sent.
  if (root === undefined && !ctx.profile.apiKey) {
    const requested = await (await import('../team/request.js')).requestWithoutKey(ctx, request)
    if (requested) return requested
  }
  const {team, ports} = await moneyPorts(ctx, [request], flags, root)
  const {runMovement} = await import('./index.js')
  try {
    const outcome = await runMovement(request, ports, (p) => {
      if (p.keyGenerated && !ctx.out.machine) {
        ctx.out.note(ctx.out.paint.dim(`Idempotency-Key: ${p.idempotencyKey}  (re-run with --idempotency-key ${p.idempotencyKey} to retry safely)`))
      }
    })
    await team?.after(request, outcome)
    return outcome
  } finally {
    await closePorts(ports)
  }
}

/**
 * The ports of money requests and the team's hook, on one connection to the team store for the
 * whole command (the maker check before, the decisions, the records after); closed if either fails.
 */
async function moneyPorts(ctx: CommandContext, requests: readonly MovementRequest[], flags: GuardFlags, root?: string): Promise<{team?: TeamHook; ports: MovementPorts}> {
  const controls = await openTeamControls(ctx)
  try {
    const team = await teamHook(ctx, requests, controls?.store)
    const ports = await portsOf(ctx, [...new Set(requests.map((r) => r.kind))], flags, root, {...(controls && {team: controls})})
    return {team, ports}
  } catch (err) {
    await controls?.store.close()
    throw err
  }
}

/** Closes what portsOf opened (the team store's connection). */
export async function closePorts(ports: Pick<MovementPorts, 'team'>): Promise<void> {
  await ports.team?.store.close()
}

/**
 * Renders an outcome: the resource on stdout, then on stderr one JSON line `{"outcome":{...}}`
 * in machine formats or the sentence on a terminal; a warning on stderr; a 207 ends with exit 6.
 */
export async function renderOutcome(ctx: CommandContext, o: Outcome, columns: Column[], known?: Column[], resource: Record<string, unknown> = o.resource): Promise<void> {
  await ctx.out.resource(resource, columns, known)
  finishOutcome(ctx, o)
}

/** The outcome line, the warning and the exit code of a 207, after the resource was rendered. */
export function finishOutcome(ctx: CommandContext, o: Outcome): void {
  ctx.out.outcome({kind: o.kind, id: o.id, idempotency_key: o.idempotency_key, status: o.status}, o.sentence)
  if (o.warning || (o.partial && o.http_status === 207)) ctx.out.warn(o.warning ?? 'the API reported a partial success')
  if (o.partial) throw new PartialError(partialLine(ctx, o))
}

/**
 * The error line of a partial outcome (exit 6): on a terminal the sentence was just printed, so
 * the line only names the state; in machine formats it is the sentence (the outcome line is JSON).
 */
function partialLine(ctx: CommandContext, o: Outcome): string {
  return ctx.out.machine ? o.sentence : `Partial success: ${o.id ?? 'it'} is ${o.status ?? 'in an unknown state'}, not settled (see above).`
}

/**
 * Several money requests with one confirmation (moves approve ID...): each one's outcome line, then
 * a result table; exit 0 when all went through, 6 when some did not.
 */
export async function runBatch(ctx: CommandContext, flags: GuardFlags, requests: MovementRequest[], opts: GuardOptions, verb: string): Promise<void> {
  const {team, ports} = await moneyPorts(ctx, requests, flags)
  const {runMovements} = await import('./index.js')
  let settled: Awaited<ReturnType<typeof runMovements>>
  try {
    settled = await runMovements(requests, ports, opts)
    for (const s of settled) if ('outcome' in s) await team?.after(s.request, s.outcome)
  } finally {
    await closePorts(ports)
  }
  const results: ItemResult[] = []
  const codes: ExitCodeValue[] = []
  for (const s of settled) {
    const id = 'id' in s.request ? s.request.id : ''
    if ('outcome' in s) {
      const o = s.outcome
      ctx.out.outcome({kind: o.kind, id: o.id, idempotency_key: o.idempotency_key, status: o.status}, o.sentence)
      if (o.warning) ctx.out.warn(`${o.id}: ${o.warning}`)
      results.push({id, result: o.partial ? 'partial' : 'ok', move: o.resource, warning: o.warning, message: o.warning ?? ''})
      codes.push(o.partial ? ExitCode.PARTIAL : ExitCode.OK)
    } else {
      const e = s.error
      results.push({id, result: 'error', message: e instanceof ApiError ? e.describe() : e.message, error: e.toJSON()})
      codes.push(e.exitCode)
    }
  }
  await ctx.out.list(results, RESULT_COLUMNS)
  // A 207 was carried out (approved) though not settled: say so and what to do, never "could not approve".
  const partial = settled.flatMap((s) => ('outcome' in s && s.outcome.partial ? [s.outcome] : []))
  if (partial.length && !results.some((r) => r.result === 'error')) {
    if (partial.length === 1 && results.length === 1) throw new PartialError(partialLine(ctx, partial[0]))
    throw new PartialError(`${partial.length} of ${results.length} were approved but not settled (${partial.map((o) => o.id).join(', ')}): each stays approved: the API can no longer approve or cancel them (both answer 400), and replaying a create returns the move as it is; ask the provider to settle or fail them.`)
  }
  new BulkReport(results, codes).throwIfFailed(verb)
}

/** The guard's ports without an API: for confirmations of a whole batch, or of mutations that move no money. */
function guardPorts(ctx: CommandContext, flags: GuardFlags): MovementPorts {
  const r = ctx.profile
  return {
    api: undefined as never,
    history: auditHistory(ctx.configDir, keyIdOf(r.apiKey)),
    prompter: ctx.prompter,
    paint: ctx.out.paint,
    profile: {name: r.profileName ?? null, live: r.mode === 'live', limitSets: r.limitSets, keyLabel: redactKey(r.apiKey), operator: currentOperator(r.profile?.operator_name)},
    yes: Boolean(flags.yes),
    overrideLimits: Boolean(flags['override-limits']),
    newKey: () => '',
  }
}

/**
 * Every mutating command that moves no money calls this before sending. On a LIVE key it shows
 * the summary and asks; without a terminal it refuses (exit 3) unless --yes.
 */
export async function confirmMutation(ctx: CommandContext, flags: GuardFlags, summary: Summary, opts: {evenOnTest?: boolean} = {}): Promise<void> {
  await guard([{summary, checks: [], plainConfirm: true, evenOnTest: opts.evenOnTest}], guardPorts(ctx, flags))
}

/** Confirms a batch of money movements with one summary (bulk commands), through the movement guard. */
export async function confirmBatch(ctx: CommandContext, flags: GuardFlags, summary: Summary, movements: Movement[], typed: string, opts: {evenOnTest?: boolean} = {}): Promise<void> {
  await guard([{summary, checks: movements, typed, evenOnTest: opts.evenOnTest}], guardPorts(ctx, flags))
}

/** Every limit the movements break (bulk commands list them all). */
export function limitReport(ctx: CommandContext, movements: Movement[]): string[] {
  return movements.flatMap((m) => violationsOfSets(ctx.profile.limitSets, m))
}

/**
 * Refusals a dry run collects instead of stopping at the first, so that it reports every class of
 * problem: `checked(fn, none)` runs one check (with `collect`, a refusal is kept and `none` is
 * returned); `end()` throws what was kept, the first refusal's class and exit code with every message.
 */
export function refusals(collect: boolean): {readonly any: boolean; checked<T>(fn: () => T, none: T): T; end(): void} {
  const kept: Error[] = []
  return {
    get any() {
      return kept.length > 0
    },
    checked<T>(fn: () => T, none: T): T {
      try {
        return fn()
      } catch (err) {
        if (!collect) throw err
        kept.push(err as Error)
        return none
      }
    },
    end() {
      if (kept.length) throw Object.assign(kept[0], {message: kept.map((e) => e.message).join(' ')})
    },
  }
}

/** The daily caps a batch's totals (minor units per currency) break, with what moved today under the key. */
export function dailyCapReport(ctx: CommandContext, totals: Record<string, number>): string[] {
  const asked = new Map(Object.entries(totals).map(([c, v]) => [c.toUpperCase(), BigInt(v)]))
  return dailyCapsBroken(ctx.profile.limitSets, asked, auditHistory(ctx.configDir, keyIdOf(ctx.profile.apiKey)))
}
