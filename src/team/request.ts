/**
 * A member without the key (`profiles add NAME --team URL`): their money commands (`moves
 * create`, `transfers create`, each `moves import` row) record a request in the team store and
 * send nothing. Another member approves it (`approvals review req-N`), and the worker, where the
 * key lives (`team worker`), carries it out once.
 */
import {randomUUID} from 'node:crypto'
import type {CommandContext} from '../context/index.js'
import {teamBinding, openControlStore} from '../control/index.js'
import {recordMoneyRequest, type MoneyRequest, type MoneyRequestInput} from '../control/requests.js'
import type {ControlStore} from '../control/types.js'
import {UsageError} from '../errors.js'
import {formatMoney, normalizeCurrency, parseAmount} from '../money.js'
import {checkTeam} from '../movements/team.js'
import type {AmountInput, MovementRequest, Outcome} from '../movements/types.js'

/** Whether this run is a member's without the key: a team store, and no key from any source. */
export function memberWithoutKey(ctx: CommandContext): boolean {
  return !ctx.profile.apiKey && teamBinding(ctx) !== undefined
}

function minorOf(amount: AmountInput, currency: string): number {
  return 'minor' in amount ? amount.minor : parseAmount(amount.decimal, currency)
}

/** The request's parameters, exactly as the worker will send them. */
export function requestInput(r: MovementRequest): MoneyRequestInput {
  if (r.kind === 'move.create') {
    if (!r.currency) throw new UsageError('Without the API key payops cannot read the source subaccount\'s currency: give --currency (the source subaccount\'s) with the amount.')
    const currency = normalizeCurrency(r.currency)
    return {kind: r.kind, currency, amount: minorOf(r.amount, currency), from: r.from, to: r.to, idempotency_key: r.idempotencyKey ?? randomUUID(), auto_approve: r.autoApprove, ...(r.metadata ? {metadata: r.metadata} : {})}
  }
  if (r.kind === 'transfer.create') {
    const currency = normalizeCurrency(r.currency)
    return {
      kind: r.kind, currency, amount: minorOf(r.amount, currency), from: r.from, to: r.to, idempotency_key: r.idempotencyKey ?? randomUUID(), auto_approve: r.autoApprove, rail: r.rail,
      ...(r.scheduledDate ? {scheduled_date: r.scheduledDate} : {}), ...(r.metadata ? {metadata: r.metadata} : {}),
    }
  }
  throw new UsageError(`\`${r.kind}\` needs the API key: a member without it requests only creates (moves create, transfers create, moves import).`)
}

export const nounOf = (kind: string): string => (kind === 'move.create' ? 'move' : 'account transfer')

/** One line on a request: `move of 50.00 USD SUB_A → SUB_B`. */
export const describeMoney = (r: Pick<MoneyRequest, 'kind' | 'amount' | 'currency' | 'from' | 'destination'>): string =>
  `${nounOf(r.kind)} of ${formatMoney(r.amount, r.currency)} ${r.from} → ${r.destination ?? '?'}`

/**
 * Checks requests against the team's policies as the store has them now (a refusal is exit 3,
 * nothing recorded), then records each; resolves with the requests recorded.
 */
export async function recordRequests(store: ControlStore, inputs: readonly MoneyRequestInput[]): Promise<MoneyRequest[]> {
  const plans = inputs.map((m) => ({checks: [{amount_in_minor_units: m.amount, currency: m.currency, to: m.to}], unknown: undefined, autoApprove: m.auto_approve}))
  await checkTeam(plans, {store, location: store.location})
  const out: MoneyRequest[] = []
  for (const m of inputs) out.push(await recordMoneyRequest(store, m))
  return out
}

/** What the maker is told of a request recorded: it awaits a checker, nothing was sent. */
export function requestedSentence(r: MoneyRequest, where: string): string {
  return `requested: awaits a checker. The ${describeMoney(r)} is request ${r.ref} in the team store ${where}, requested by ${r.maker}; nothing was sent. Another member approves it (\`payops approvals review ${r.ref}\`), then the worker carries it out (\`payops team worker\`); \`payops approvals show ${r.ref}\` says where it stands.`
}

/**
 * A create by a member without the key: recorded in the team store as a request, sent by no one
 * yet. Undefined when this run is not a member's without the key (the command goes on as usual).
 */
export async function requestWithoutKey(ctx: CommandContext, request: MovementRequest): Promise<Outcome | undefined> {
  if (!memberWithoutKey(ctx) || (request.kind !== 'move.create' && request.kind !== 'transfer.create')) return undefined
  const input = requestInput(request)
  const store = await openControlStore(ctx)
  let r: MoneyRequest
  try {
    ;[r] = await recordRequests(store, [input])
  } finally {
    await store.close()
  }
  const sentence = requestedSentence(r, store.location)
  // In machine formats the outcome is a JSON line: the words go to stderr all the same.
  if (ctx.out.machine) ctx.out.note(sentence)
  const isMove = r.kind === 'move.create'
  const resource: Record<string, unknown> = {
    id: r.ref, request: r.ref, kind: r.kind, status: 'requested', amount_in_minor_units: r.amount, currency_code: r.currency,
    [isMove ? 'from_subaccount_id' : 'from_account_id']: r.from, [isMove ? 'to_subaccount_id' : 'to_account_id']: r.destination,
    ...(input.rail ? {rail: input.rail} : {}), ...(input.scheduled_date ? {scheduled_date: input.scheduled_date} : {}),
    maker: r.maker, idempotency_key: r.idempotency_key, created_at: r.at, store: store.location,
  }
  return {kind: 'requested', id: r.ref, idempotency_key: r.idempotency_key, status: 'requested', resource, body: null, http_status: 0, partial: false, confirmed_by_retry: false, sentence}
}
