/** `transfers list`, `estimate` and `rails`: account transfers and what a transfer would be, read and shown. */
import type {CommandContext} from '../context/index.js'
import {parseAmountRange, parseMoneyFlags, type AmountRangeInput, type MoneyInput} from '../flags.js'
import {ESTIMATE_COLUMNS, RAIL_OPTIONS_COLUMNS, TRANSFER_COLUMNS, TRANSFER_KNOWN} from '../output/columns.js'
import {listing, showAnswer, type ListOptions} from '../output/show.js'

const AREAS = ['transfers', 'treasury'] as const

export interface TransfersListOptions {
  list: ListOptions
  account?: string[]
  rail?: string[]
  status?: string[]
  /** The amount bounds as given (decimals are read in --currency, else the accounts' currency). */
  amount: AmountRangeInput
  currency?: string
  created: {gte?: string; lte?: string}
}

export async function runTransfersList(opts: TransfersListOptions, ctx: CommandContext): Promise<void> {
  const l = listing(opts.list)
  const api = await ctx.api(AREAS)
  const amount = await parseAmountRange(opts.amount, () => api.treasury.amountFilterCurrency(opts.account, opts.currency))
  const filters = {
    limit: l.limit,
    order: l.order,
    account_id: opts.account,
    rail: opts.rail,
    status: opts.status,
    amount_in_minor_units_gte: amount.gte,
    amount_in_minor_units_lte: amount.lte,
    created_at_gte: opts.created.gte,
    created_at_lte: opts.created.lte,
  }
  await l.show(ctx.out, api.transfers.list(filters, l.paginate), TRANSFER_COLUMNS, TRANSFER_KNOWN)
}

export async function runEstimate(opts: {from: string; to: string; money: MoneyInput}, ctx: CommandContext): Promise<void> {
  const api = await ctx.api(AREAS)
  const {minor} = await api.treasury.resolveAmount(opts.from, opts.money, (fallback) => parseMoneyFlags(opts.money, fallback), 'source account')
  await showAnswer(ctx.out, await api.transfers.estimate(opts.from, opts.to, minor), ESTIMATE_COLUMNS)
}

export async function runRails(opts: {from: string; to: string}, ctx: CommandContext): Promise<void> {
  const api = await ctx.api(AREAS)
  await showAnswer(ctx.out, await api.transfers.rails(opts.from, opts.to), RAIL_OPTIONS_COLUMNS)
}
