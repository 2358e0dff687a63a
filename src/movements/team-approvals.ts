/**
 * Maker-checker through a team store: the store holds each approval request (its maker is the
 * database role that recorded it) and its decision (its checker, likewise). A held create is
 * recorded there as a request; every approve (`moves approve`, `transfers approve`, `payops api`,
 * the queue, `approvals review`) of an item the store holds a request for is refused to the
 * request's maker before anything is sent, and the decision is recorded once the API approved it.
 * The store in use is the profile's, else that of any profile on this machine holding the same
 * key: a second profile with the key does not escape it.
 */
import {readProfiles} from '../config/index.js'
import type {CommandContext} from '../context/index.js'
import type {StoreContext} from '../control/index.js'
import type {ApprovalRequest as StoreRequest, ControlStore} from '../control/types.js'
import {ConflictError, LocalNotFoundError, NotConfirmedError, UsageError} from '../errors.js'
import type {Column} from '../output/index.js'
import {formatMoney} from '../money.js'
import type {MovementRequest, Outcome} from './types.js'
import type {PendingItem} from './pending.js'
import {saveTeamQueue} from './team-queue.js'

/** The context of the team store this run's key is bound to, if any (see the module's comment). */
export async function teamContext(ctx: CommandContext): Promise<StoreContext | undefined> {
  // Loaded only here: a run without money requests or approvals never loads the store's code.
  const {teamBinding} = await import('../control/index.js')
  if (teamBinding(ctx)) return ctx
  const key = ctx.profile.apiKey
  if (!key) return undefined
  let profiles
  try {
    profiles = readProfiles(ctx.configDir).profiles
  } catch {
    return undefined
  }
  const bound = Object.entries(profiles).find(([, p]) => p.api_key === key && p.team_database_url)
  if (!bound) return undefined
  return {configDir: ctx.configDir, clock: ctx.clock, io: {env: ctx.io.env}, profile: {...ctx.profile, profileName: bound[0], profile: bound[1]}}
}

/** Keeps the store's queue as just read, for shell completion (team-queue.ts). */
export function remember(ctx: CommandContext, all: readonly StoreRequest[]): void {
  saveTeamQueue(ctx.configDir, ctx.profile.apiKey, storeQueue(all), ctx.clock.now())
}

/** Runs `fn` with the team store (closed after), or returns undefined when there is none. */
export async function withTeamStore<T>(ctx: CommandContext, fn: (store: ControlStore) => Promise<T>): Promise<T | undefined> {
  const team = await teamContext(ctx)
  if (!team) return undefined
  const store = await open(team)
  try {
    return await fn(store)
  } finally {
    await store.close()
  }
}

/** The movement (move or account transfer) id a store request is about. */
export const resourceOf = (r: StoreRequest): string => String(r.detail.resource_id ?? '')

/** The latest store request about a movement id. */
export function requestFor(all: readonly StoreRequest[], id: string): StoreRequest | undefined {
  return all.filter((r) => resourceOf(r) === id).at(-1)
}

export const describeRequest = (r: StoreRequest): string =>
  `${r.kind === 'move' ? 'move' : 'account transfer'} ${resourceOf(r)} of ${formatMoney(r.amount, r.currency)} ${String(r.detail.from ?? '?')} → ${r.destination ?? '?'}`

/** Refuses (exit 3, nothing sent) the maker of a request, and any approve of a rejected one. */
export function refuseMaker(r: StoreRequest, me: string, where: string): void {
  const noun = r.kind === 'move' ? 'move' : 'account transfer'
  if (r.decision?.decision === 'rejected') {
    throw new NotConfirmedError(`maker-checker (team store ${where}): ${noun} ${resourceOf(r)} was rejected by ${r.decision.checker} at ${r.decision.at}. Nothing was sent.`)
  }
  if (!r.decision && r.maker === me) {
    throw new NotConfirmedError(`maker-checker (team store ${where}): ${noun} ${resourceOf(r)} was requested by ${r.maker}, who cannot also approve it (the store knows you as ${me}, whatever profile, file or key this machine uses). Nothing was sent; another member approves it (\`payops approvals review ${resourceOf(r)}\`).`)
  }
}

async function open(team: StoreContext): Promise<ControlStore> {
  const {openControlStore} = await import('../control/index.js')
  return openControlStore(team)
}

const APPROVES = new Set(['move.approve', 'transfer.approve'])
const CREATES = new Set(['move.create', 'transfer.create'])

/** What an approve or create does with the store after the API answered. */
export interface TeamHook {
  after(request: MovementRequest, outcome: Outcome): Promise<void>
}

/**
 * Before money requests are sent: with a team store, an approve of an item the store holds a
 * request for is refused to its maker; returns what records the decision (or a held create's
 * request) afterwards. Without a team store (or with nothing to check): undefined.
 */
export async function teamHook(ctx: CommandContext, requests: readonly MovementRequest[], shared?: ControlStore): Promise<TeamHook | undefined> {
  if (!requests.some((r) => APPROVES.has(r.kind) || CREATES.has(r.kind))) return undefined
  const team = await teamContext(ctx)
  if (!team) return undefined
  // The command's own connection when it has one (it closes it); else one of this hook's.
  const store = shared ?? (await open(team))
  try {
    const me = (await store.status()).actor
    const all = await store.approvals()
    remember(ctx, all)
    for (const r of requests) {
      if (!APPROVES.has(r.kind) || !('id' in r)) continue
      const found = requestFor(all, r.id)
      if (found) refuseMaker(found, me, store.location)
    }
  } finally {
    if (!shared) await store.close()
  }
  return {after: (request, outcome) => recordAfter(ctx, team, request, outcome, shared)}
}

async function recordAfter(ctx: CommandContext, team: StoreContext, request: MovementRequest, o: Outcome, shared?: ControlStore): Promise<void> {
  // An approve that came back (2XX, a 207 too) was approved by the API; a create in `created` awaits one.
  if (!(CREATES.has(request.kind) && o.status === 'created' && o.id) && !APPROVES.has(request.kind)) return
  let store: ControlStore | undefined
  try {
    store = shared ?? (await open(team))
    if (CREATES.has(request.kind)) {
      const r = await recordRequest(store, request.kind === 'move.create' ? 'move' : 'transfer', o.id!, o.resource)
      ctx.out.note(`Its approval request is in the team store ${store.location}, requested by ${r.maker}: another member approves it (\`payops approvals review ${o.id}\`).`)
    } else await recordDecision(ctx, store, 'id' in request ? request.id : '', o)
    remember(ctx, await store.approvals())
  } catch (err) {
    const what = CREATES.has(request.kind) ? `its approval request (run \`payops approvals request ${o.id}\`)` : 'the decision'
    ctx.out.warn(`${o.id ?? ''}: the API answered, but ${what} could not be recorded in the team store: ${(err as Error).message}`)
  } finally {
    if (!shared) await store?.close()
  }
}

const str = (v: unknown) => (typeof v === 'string' ? v : null)

/** The route and amount of a move or transfer resource. */
export function routeOf(res: Record<string, unknown>): {amount: number | null; currency: string | null; from: string | null; to: string | null} {
  return {
    amount: typeof res.amount_in_minor_units === 'number' ? res.amount_in_minor_units : null,
    currency: str(res.currency_code)?.toUpperCase() ?? null,
    from: str(res.from_subaccount_id) ?? str(res.from_account_id) ?? str(res.from),
    to: str(res.to_subaccount_id) ?? str(res.to_account_id) ?? str(res.to),
  }
}

/** Puts a movement awaiting approval in the store (once: an undecided request for it is kept; a decided one is not asked again). */
export async function recordRequest(store: ControlStore, kind: 'move' | 'transfer', id: string, res: Record<string, unknown>): Promise<StoreRequest> {
  const existing = requestFor(await store.approvals(), id)
  if (existing && !existing.decision) return existing
  if (existing?.decision) throw new UsageError(`The team store shows ${kind === 'move' ? 'move' : 'account transfer'} ${id} already ${existing.decision.decision} by ${existing.decision.checker} at ${existing.decision.at}: there is nothing to request.`)
  const r = routeOf(res)
  if (r.amount === null || !r.currency) throw new LocalNotFoundError(`The amount of ${kind} ${id} is not known here: it cannot be put in the team store.`)
  return store.requestApproval({kind, currency: r.currency, amount: r.amount, destination: r.to, detail: {resource_id: id, from: r.from}})
}

/** Records the API's approval as the store's decision, noting where the answer differs from the request. */
async function recordDecision(ctx: CommandContext, store: ControlStore, id: string, o: Outcome): Promise<void> {
  const req = requestFor(await store.approvals(), id)
  if (!req || req.decision) return
  const differs = differences(req, o.resource)
  const note = `approved through the API${o.status ? ` (${o.status})` : ''}${differs.length ? `; the API's answer differs from the request: ${differs.join('; ')}` : ''}`
  await store.decideApproval(req.id, 'approved', note)
  if (differs.length) ctx.out.warn(`${id}: the API's answer differs from the team store's request: ${differs.join('; ')}.`)
}

/** Where a resource (or a request file) differs from the store's request: amount, currency, route. */
export function differences(req: StoreRequest, res: Record<string, unknown>): string[] {
  const r = routeOf(res)
  const out: string[] = []
  if (r.amount !== null && r.amount !== req.amount) out.push(`amount ${formatMoney(r.amount, r.currency ?? req.currency)}, the store's ${formatMoney(req.amount, req.currency)}`)
  if (r.currency && r.currency !== req.currency) out.push(`currency ${r.currency}, the store's ${req.currency}`)
  if (r.to && req.destination && r.to !== req.destination) out.push(`destination ${r.to}, the store's ${req.destination}`)
  const from = str(req.detail.from)
  if (r.from && from && r.from !== from) out.push(`source ${r.from}, the store's ${from}`)
  return out
}

/** Refuses (exit 5) a request file that contradicts the store's record of the same movement. */
export function refuseContradiction(req: StoreRequest, file: {amount_in_minor_units: number; currency_code: string; from: string | null; to: string; maker?: string}, name: string): void {
  const differs = differences(req, {amount_in_minor_units: file.amount_in_minor_units, currency_code: file.currency_code, from: file.from, to: file.to})
  if (file.maker !== undefined && file.maker !== req.maker) differs.push(`maker ${file.maker}, the store's ${req.maker}`)
  if (differs.length) {
    throw new ConflictError(`${name} contradicts the team store's request for ${resourceOf(req)}: ${differs.join('; ')}. The store's record stands; nothing was sent.`, resourceOf(req), null)
  }
}

/** The store's undecided requests as queue items; and the ids the store shows decided. */
export function storeQueue(all: readonly StoreRequest[]): {pending: PendingItem[]; decided: Set<string>} {
  const latest = new Map<string, StoreRequest>()
  // A member's money request (`move.create`, `transfer.create`) names no movement yet: not approvable through the API.
  for (const r of all) if (r.kind === 'move' || r.kind === 'transfer') latest.set(resourceOf(r), r)
  const pending: PendingItem[] = []
  const decided = new Set<string>()
  for (const [id, r] of latest) {
    if (r.decision) {
      decided.add(id)
      continue
    }
    pending.push({
      kind: r.kind === 'move' ? 'move' : 'transfer',
      id,
      amount_in_minor_units: r.amount,
      currency_code: r.currency,
      from: str(r.detail.from),
      to: r.destination,
      from_name: null,
      to_name: null,
      created_at: r.at,
      source: 'team',
      maker: r.maker,
    })
  }
  return {pending, decided}
}

/** The members' money requests awaiting a checker, as queue items named `req-N`. */
export async function requestsQueue(store: ControlStore): Promise<PendingItem[]> {
  if (store.engine !== 'postgres') return []
  const {moneyRequests} = await import('../control/requests.js')
  return (await moneyRequests(store)).filter((r) => !r.decision).map((r) => ({
    kind: r.kind === 'move.create' ? ('move' as const) : ('transfer' as const), id: r.ref, amount_in_minor_units: r.amount, currency_code: r.currency,
    from: r.from, to: r.destination, from_name: null, to_name: null, created_at: r.at, source: 'team' as const, maker: r.maker,
  }))
}

export const SHOW_COLUMNS: Column[] = [
  {key: 'id'},
  {key: 'kind'},
  {key: 'state'},
  {key: 'amount', money: {amount: 'amount_in_minor_units', currency: 'currency_code'}},
  {key: 'from'},
  {key: 'to'},
  {key: 'maker', header: 'requested by'},
  {key: 'requested_at', header: 'requested'},
  {key: 'checker', header: 'decided by'},
  {key: 'decided_at', header: 'decided'},
  {key: 'note'},
  {key: 'request', header: 'store request'},
]

/** `approvals show ID`: where a movement's approval stands in the team store. */
export async function showApproval(ctx: CommandContext, id: string): Promise<void> {
  if (/^req-\d+$/.test(id)) return (await import('../team/review.js')).showMoneyRequest(ctx, await teamContext(ctx), id)
  const found = await withTeamStore(ctx, async (store) => {
    const all = await store.approvals()
    remember(ctx, all)
    return {r: requestFor(all, id), where: store.location}
  })
  if (!found) throw new UsageError('`approvals show` reads the team store, and no team store is bound to this key (`profiles set NAME team URL`); `payops approvals` lists what awaits approval.')
  const r = found.r
  if (!r) throw new LocalNotFoundError(`The team store ${found.where} holds no approval request for ${id}.`)
  await ctx.out.resource(
    {
      id,
      kind: r.kind,
      state: r.decision?.decision ?? 'awaiting approval',
      amount_in_minor_units: r.amount,
      currency_code: r.currency,
      from: str(r.detail.from),
      to: r.destination,
      maker: r.maker,
      requested_at: r.at,
      checker: r.decision?.checker ?? null,
      decided_at: r.decision?.at ?? null,
      note: r.decision?.note ?? null,
      request: r.id,
    },
    SHOW_COLUMNS,
  )
}
