/**
 * A checker's side of a money request (`approvals review req-N`) and where it stands for anyone
 * (`approvals show req-N`). Approving one sends nothing: it records the decision in the team store
 * (refused there to its maker and to a request already decided, in one transaction), and the
 * worker carries it out. Neither needs the API key.
 */
import type {CommandContext} from '../context/index.js'
import type {StoreContext} from '../control/index.js'
import {lastOutcome, moneyRequest, parseRequestRef, requestState, type MoneyRequest} from '../control/requests.js'
import type {ControlStore} from '../control/types.js'
import {ConflictError, LocalNotFoundError, NotConfirmedError, UsageError} from '../errors.js'
import {formatMoney, parseAmount} from '../money.js'
import type {Column} from '../output/index.js'
import {describeMoney, nounOf} from './request.js'

/** Runs `fn` with the team store of `team` (the run's, or the key's), closed after; exit 2 without one. */
async function withStore<T>(team: StoreContext | undefined, what: string, fn: (store: ControlStore) => Promise<T>): Promise<T> {
  if (!team) throw new UsageError(`${what} reads the team store, and none is bound to this run (\`profiles set NAME team URL\`, or \`profiles add NAME --team URL\`).`)
  const {openControlStore} = await import('../control/index.js')
  const store = await openControlStore(team)
  try {
    return await fn(store)
  } finally {
    await store.close()
  }
}

async function find(store: ControlStore, ref: string): Promise<MoneyRequest> {
  const r = await moneyRequest(store, parseRequestRef(ref)!)
  if (!r) throw new LocalNotFoundError(`The team store ${store.location} holds no money request ${ref}.`)
  return r
}

function describeLines(r: MoneyRequest, where: string): string[] {
  return [
    `Money request ${r.ref} in the team store ${where}: ${nounOf(r.kind)} (create)`,
    `  amount:     ${formatMoney(r.amount, r.currency)}`,
    `  from:       ${r.from}`,
    `  to:         ${r.destination ?? '(unknown)'}`,
    ...(r.params.rail ? [`  rail:       ${r.params.rail}${r.params.scheduled_date ? `, on ${r.params.scheduled_date}` : ''}`] : []),
    `  approve:    ${r.params.auto_approve ? 'at once (auto-approve)' : 'no (created awaiting approval)'}`,
    `  key:        ${r.idempotency_key}`,
    `  requested:  by ${r.maker} at ${r.at}`,
  ]
}

/** The checker's typed amount (on a terminal), or --yes without one; anything else sends and records nothing. */
async function confirmAmount(ctx: CommandContext, r: MoneyRequest, flags: {yes?: boolean}): Promise<void> {
  const amount = formatMoney(r.amount, r.currency)
  if (!ctx.prompter.interactive) {
    if (flags.yes) return
    throw new NotConfirmedError(`Approving ${r.ref} (${amount}) needs a terminal to type the amount, or --yes. Nothing was recorded.`)
  }
  const typed = await ctx.prompter.input(`Type the amount to approve (${amount})`)
  let minor: number | undefined
  try {
    minor = parseAmount(typed, r.currency)
  } catch {
    minor = undefined
  }
  if (minor !== r.amount) throw new NotConfirmedError(`"${typed}" is not ${amount}: ${r.ref} was not approved. Nothing was recorded.`)
}

/** `approvals review req-N`: the request from the store, its maker refused, the amount typed, the decision recorded. */
export async function reviewMoneyRequest(ctx: CommandContext, team: StoreContext | undefined, ref: string, flags: {yes?: boolean}): Promise<void> {
  await withStore(team, '`approvals review`', async (store) => {
    const r = await find(store, ref)
    ctx.out.note(describeLines(r, store.location))
    if (r.decision) throw new ConflictError(`The team store shows ${r.ref} already ${r.decision.decision} by ${r.decision.checker} at ${r.decision.at}: there is nothing to review. Nothing was recorded.`, r.ref, null)
    const me = (await store.status()).actor
    if (me === r.maker) {
      throw new NotConfirmedError(`maker-checker (team store ${store.location}): ${r.ref} was requested by ${r.maker}, who cannot also approve it (the store knows you as ${me}, whatever profile or file this machine uses). Nothing was recorded; another member approves it.`)
    }
    await confirmAmount(ctx, r, flags)
    // One call, one transaction of the store: it refuses the maker and a decided request itself.
    await store.decideApproval(r.id, 'approved', 'approved for the worker')
    const now = await find(store, ref)
    ctx.out.note(`approved: ${r.ref} (${describeMoney(r)}) by ${now.decision?.checker ?? me}. Nothing was sent by this command: the worker carries it out (\`payops team worker\`, where the key lives).`)
    await ctx.out.resource(showRow(now), SHOW_REQUEST_COLUMNS)
  })
}

export const SHOW_REQUEST_COLUMNS: Column[] = [
  {key: 'id'},
  {key: 'kind'},
  {key: 'state'},
  {key: 'amount', money: {amount: 'amount_in_minor_units', currency: 'currency_code'}},
  {key: 'from'},
  {key: 'to'},
  {key: 'maker', header: 'requested by'},
  {key: 'checker', header: 'approved by'},
  {key: 'carried_out_as', header: 'carried out as'},
  {key: 'worker'},
  {key: 'message'},
]

function showRow(r: MoneyRequest): Record<string, unknown> {
  const last = lastOutcome(r)
  return {
    id: r.ref, kind: r.kind, state: requestState(r), amount_in_minor_units: r.amount, currency_code: r.currency, from: r.from, to: r.destination,
    maker: r.maker, requested_at: r.at, checker: r.decision?.checker ?? null, decided_at: r.decision?.at ?? null, decision: r.decision?.decision ?? null,
    idempotency_key: r.idempotency_key, claimed_at: r.claim?.at ?? null, worker: last?.worker ?? r.claim?.worker ?? null,
    carried_out_as: last?.resource_id ?? null, outcome_at: last?.at ?? null, message: typeof last?.detail.message === 'string' ? last.detail.message : null,
  }
}

/** Where a request stands, in one sentence the maker can act on. */
function standing(r: MoneyRequest): string {
  const last = lastOutcome(r)
  const noun = nounOf(r.kind)
  switch (requestState(r)) {
    case 'requested': return `${r.ref} awaits a checker: another member approves it (\`payops approvals review ${r.ref}\`); nothing was sent.`
    case 'rejected': return `${r.ref} was rejected by ${r.decision!.checker} at ${r.decision!.at}; nothing was sent, and the worker never will.`
    case 'approved': return `${r.ref} was approved by ${r.decision!.checker} at ${r.decision!.at} and awaits the worker; nothing was sent yet.`
    case 'being carried out': return `${r.ref} was claimed by the worker ${r.claim!.worker} at ${r.claim!.at}, and no outcome is recorded yet: it may have been sent. The next worker pass finds out with its key and moves nothing twice.`
    case 'carried out': return `${r.ref} was carried out by ${last!.worker} at ${last!.at}: ${noun} ${last!.resource_id ?? '(id not named)'}${typeof last!.detail.status === 'string' ? `, ${last!.detail.status}` : ''}.`
    case 'failed': return `${r.ref} failed when the worker ${last!.worker} tried it at ${last!.at}; nothing was carried out for it: ${String(last!.detail.message ?? '')}`
    case 'unknown': return `${r.ref}'s outcome is unknown (worker ${last!.worker} at ${last!.at}): ${String(last!.detail.message ?? '')} The next worker pass finds out with its key and moves nothing twice.`
    default: return `${r.ref} was approved by its own maker ${r.maker}: the worker never carries it out.`
  }
}

/** `approvals show req-N`. */
export async function showMoneyRequest(ctx: CommandContext, team: StoreContext | undefined, ref: string): Promise<void> {
  await withStore(team, '`approvals show`', async (store) => {
    const r = await find(store, ref)
    ctx.out.note(standing(r))
    await ctx.out.resource(showRow(r), SHOW_REQUEST_COLUMNS)
  })
}
