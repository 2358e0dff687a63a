/**
 * The approval queue: what awaits an approval. Account transfers in `created` come from the
 * service (the documented list, status=created). Moves cannot be listed by the API, so the moves
 * are those this machine created with the key in use without auto-approval (every `moves create`,
 * import row and `api` money call is in the audit trail) that no later record shows approved,
 * settled or canceled —
 * labelled as known locally. On a terminal the operator picks some and they are approved through
 * the movement pipeline (limits, typed confirmation of the total on LIVE); otherwise the list is
 * printed, ready for `payops moves approve -`.
 */
import type {CommandContext} from '../context/index.js'
import {formatMoney} from '../money.js'
import type {Column} from '../output/index.js'
import {runBatch, type GuardFlags} from './command.js'
import type {MovementRequest} from './types.js'
import {madeWith, pendingMovesOf, type PendingItem} from './pending.js'
import {StoreUnavailableError} from '../control/errors.js'
import {requestsQueue, storeQueue, withTeamStore} from './team-approvals.js'
import {mergeMoves, saveTeamQueue} from './team-queue.js'

export {madeWith, pendingMovesOf, type PendingItem}

const short = (id: string | null) => (id ? `${id.slice(0, 8)}…` : '')
const named = (name: unknown, id: unknown) => (name ? `${String(name)} (${short(id as string)})` : short(id as string))

export const APPROVAL_COLUMNS: Column[] = [
  {key: 'kind'},
  {key: 'id'},
  {key: 'amount', money: {amount: 'amount_in_minor_units', currency: 'currency_code'}},
  // Ids whole (csv, json); a table shows the name beside a short id.
  {key: 'from', names: true},
  {key: 'to', names: true},
  {key: 'source'},
  {key: 'created_at', header: 'created'},
]

/** Everything awaiting approval: transfers from the service, moves known locally, with names. */
export async function listPending(ctx: CommandContext, kinds: {moves: boolean; transfers: boolean}): Promise<PendingItem[]> {
  const items: PendingItem[] = []
  // A member without the key reads the team store's queue alone (the service needs the key).
  const keyless = !ctx.profile.apiKey && Boolean(ctx.io.env.PAYOPS_TEAM_DATABASE_URL?.trim() || ctx.profile.profile?.team_database_url)
  if (kinds.transfers && !keyless) {
    const api = await ctx.api(['transfers', 'treasury'])
    const labels = new Map<string, string>()
    for await (const a of api.treasury.accounts({limit: 500}, {all: true})) {
      labels.set(a.id, a.label)
      ctx.names.remember(a.id, a.label, 'treasury-account')
    }
    for await (const t of api.transfers.list({status: ['created'], limit: 500}, {all: true})) {
      items.push({
        kind: 'transfer',
        id: t.id,
        amount_in_minor_units: t.amount_in_minor_units,
        currency_code: t.currency_code,
        from: t.from_account_id,
        to: t.to_account_id,
        from_name: labels.get(t.from_account_id) ?? null,
        to_name: labels.get(t.to_account_id) ?? null,
        created_at: t.created_at ?? null,
        source: 'service',
      })
    }
  }
  // With a team store: its undecided requests from every member; what it shows decided leaves the queue.
  const team = await withTeamStore(ctx, async (store) => ({...storeQueue(await store.approvals()), requests: await requestsQueue(store)})).catch((err: unknown) => {
    // Reading the queue is read-only: it goes on without the store and says so. Deciding (an
    // approve, a review) still refuses until the store answers.
    if (!(err instanceof StoreUnavailableError)) throw err
    const where = /team store (\S+)/.exec(err.message)?.[1] ?? 'the team store'
    ctx.out.warn(`The team store ${where} cannot be reached: the team's approval requests and decisions are not shown, and the controls kept there are unavailable (approving refuses until it answers).`)
    return undefined
  })
  if (team) saveTeamQueue(ctx.configDir, ctx.profile.apiKey, team, ctx.clock.now())
  if (team) {
    for (const item of items) {
      const maker = team.pending.find((p) => p.id === item.id)?.maker
      if (maker) item.maker = maker
    }
    const wanted = team.pending.filter((p) => kinds[p.kind === 'move' ? 'moves' : 'transfers'] && !items.some((i) => i.id === p.id))
    items.push(...wanted.filter((p) => p.kind === 'transfer'))
    // Members' money requests (`req-N`): approved with `approvals review req-N`, carried out by the worker.
    items.push(...team.requests.filter((p) => kinds[p.kind === 'move' ? 'moves' : 'transfers']))
  }
  if (kinds.moves) {
    const {readAudit} = await import('../audit/index.js')
    const local = pendingMovesOf(readAudit(ctx.configDir).filter(madeWith(ctx.profile.apiKey, ctx.profile.profileName ?? null, ctx.profile.mode)))
    const moves = mergeMoves(local, team && {key_id: null, read_at: '', pending: team.pending, decided: [...team.decided]})
    if (moves.length && !keyless) {
      const api = await ctx.api(['subaccounts'])
      const names = new Map<string, string | null>()
      const nameOf = async (id: string | null) => {
        if (!id) return null
        // Subaccount names never change: the book of names answers without a request when it can.
        if (!names.has(id)) names.set(id, ctx.names.get(id) ?? (await api.subaccounts.get(id).then((r) => r.data.name, () => null)))
        ctx.names.remember(id, names.get(id), 'subaccount')
        return names.get(id) ?? null
      }
      for (const m of moves) {
        m.from_name = await nameOf(m.from)
        m.to_name = await nameOf(m.to)
      }
    }
    items.push(...moves)
  }
  return items
}

export interface ApprovalsOptions {
  moves: boolean
  transfers: boolean
  guard: GuardFlags
}

/** Lists the queue; on a terminal (table output) offers a selection and approves the chosen ones. */
export async function runApprovals(opts: ApprovalsOptions, ctx: CommandContext): Promise<void> {
  const items = await listPending(ctx, opts)
  const canPick = ctx.prompter.interactive && ctx.io.stdoutIsTTY && !ctx.out.machine && ctx.prompter.select !== undefined && Boolean(ctx.profile.apiKey)
  const requested = items.filter((i) => i.id.startsWith('req-'))
  if (canPick && requested.length) ctx.out.note(`${requested.length === 1 ? 'A member\'s money request awaits' : `${requested.length} members' money requests await`} a checker: \`payops approvals review req-N\` approves one (the worker carries it out).`)
  if (canPick) items.splice(0, items.length, ...items.filter((i) => !i.id.startsWith('req-')))
  if (!canPick || items.length === 0) {
    // With a team store, who asked for each (its requests' makers).
    const columns = items.some((i) => i.maker) ? [...APPROVAL_COLUMNS.slice(0, -1), {key: 'maker'}, APPROVAL_COLUMNS.at(-1)!] : APPROVAL_COLUMNS
    await ctx.out.list(items, columns)
    if (items.some((i) => i.source === 'local')) ctx.out.note(ctx.out.paint.dim('Moves are known locally (this machine\'s audit trail): one approved or canceled elsewhere may still be listed; approving it here is refused by the API (nothing moves) and takes it off the list.'))
    return
  }
  // Amounts right-aligned in one column, the routes after them.
  const amounts = items.map((i) => formatMoney(i.amount_in_minor_units, i.currency_code) || '(amount unknown)')
  const room = Math.max(...amounts.map((a) => a.length))
  const chosen = await ctx.prompter.select!(
    'Approve which? (space to pick, enter to go on)',
    items.map((i, n) => ({
      value: `${i.kind}:${i.id}`,
      name: `${i.kind === 'move' ? 'Move    ' : 'Transfer'} ${amounts[n].padStart(room)}  ${named(i.from_name, i.from)} → ${named(i.to_name, i.to)}${i.source === 'local' ? '  (known locally)' : ''}`,
    })),
  )
  if (chosen.length === 0) {
    ctx.out.note('Nothing chosen: nothing was approved.')
    return
  }
  const requests: MovementRequest[] = chosen.map((v) => {
    const [kind, id] = v.split(':')
    return kind === 'move' ? {kind: 'move.approve', id} : {kind: 'transfer.approve', id}
  })
  await runBatch(ctx, opts.guard, requests, {action: `Approve ${requests.length} item${requests.length === 1 ? '' : 's'} from the queue`}, 'approve')
}
