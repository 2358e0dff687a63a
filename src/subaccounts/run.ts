/** `subaccounts get`, `create` and `activity`: a subaccount and its ledger, read, made and shown. */
import type {CommandContext} from '../context/index.js'
import {parseAmountRange, type AmountRangeInput} from '../flags.js'
import type {GuardFlags} from '../movements/command.js'
import {confirmMutation} from '../confirm.js'
import {ACTIVITY_COLUMNS, SUBACCOUNT_COLUMNS} from '../output/columns.js'
import {listing, showAnswer, type ListOptions} from '../output/show.js'

export async function runSubaccountsGet(opts: {id: string}, ctx: CommandContext): Promise<void> {
  const api = await ctx.api(['subaccounts'])
  const res = await api.subaccounts.get(opts.id)
  ctx.names.remember(res.data.id, res.data.name, 'subaccount')
  await showAnswer(ctx.out, res, SUBACCOUNT_COLUMNS)
}

export async function runSubaccountsCreate(opts: {name: string; guard: GuardFlags}, ctx: CommandContext): Promise<void> {
  await confirmMutation(ctx, opts.guard, {action: `Create subaccount "${opts.name}"`})
  const api = await ctx.api(['subaccounts'])
  const res = await api.subaccounts.create(opts.name)
  ctx.names.remember(res.data.id, res.data.name, 'subaccount')
  await showAnswer(ctx.out, res, SUBACCOUNT_COLUMNS)
}

export interface ActivityOptions {
  id: string
  list: ListOptions
  direction?: 'credit' | 'debit'
  /** The amount bounds as given (decimals are read in the subaccount's currency). */
  amount: AmountRangeInput
  effective: {gte?: string; lte?: string}
}

export async function runSubaccountsActivity(opts: ActivityOptions, ctx: CommandContext): Promise<void> {
  const l = listing(opts.list)
  const api = await ctx.api(['subaccounts'])
  const amount = await parseAmountRange(opts.amount, () => api.subaccounts.activityAmountCurrency(opts.id))
  const filters = {
    limit: l.limit,
    order: l.order,
    direction: opts.direction,
    amount_gte: amount.gte,
    amount_lte: amount.lte,
    effective_at_gte: opts.effective.gte,
    effective_at_lte: opts.effective.lte,
  }
  await l.show(ctx.out, api.subaccounts.activity(opts.id, filters, l.paginate), ACTIVITY_COLUMNS)
}
