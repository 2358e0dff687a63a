/** `treasury accounts list`, `balance` and `update-label`, `treasury transactions list` and `get`. */
import {BALANCE_COLUMNS, BALANCE_KNOWN} from '../books/columns.js'
import {remembering} from '../config/names.js'
import type {CommandContext} from '../context/index.js'
import type {GuardFlags} from '../movements/command.js'
import {confirmMutation} from '../confirm.js'
import {BANK_TRANSACTION_COLUMNS, TREASURY_ACCOUNT_COLUMNS, TREASURY_ACCOUNT_KNOWN} from '../output/columns.js'
import {listing, showAnswer, type ListOptions} from '../output/show.js'

export async function runAccountsList(opts: {list: ListOptions}, ctx: CommandContext): Promise<void> {
  const l = listing(opts.list)
  const api = await ctx.api(['treasury'])
  const accounts = remembering(api.treasury.accounts({limit: l.limit, order: l.order}, l.paginate), ctx.names, (a) => [a.id, a.label], 'treasury-account')
  await l.show(ctx.out, accounts, TREASURY_ACCOUNT_COLUMNS, TREASURY_ACCOUNT_KNOWN)
}

export async function runAccountBalance(opts: {id: string}, ctx: CommandContext): Promise<void> {
  const api = await ctx.api(['treasury'])
  const res = await api.treasury.balance(opts.id)
  // The spec shows no balance fields: the account asked for is known; what the answer leaves out stays empty.
  await showAnswer(ctx.out, {warning: res.warning, data: {account_id: opts.id, ...res.data}}, BALANCE_COLUMNS, BALANCE_KNOWN)
}

export async function runUpdateLabel(opts: {id: string; label: string; guard: GuardFlags}, ctx: CommandContext): Promise<void> {
  await confirmMutation(ctx, opts.guard, {action: `Relabel treasury account ${opts.id}`, details: {label: opts.label}})
  const api = await ctx.api(['treasury'])
  const res = await api.treasury.updateLabel(opts.id, opts.label)
  ctx.names.remember(res.data.id, res.data.label, 'treasury-account')
  await showAnswer(ctx.out, res, TREASURY_ACCOUNT_COLUMNS, TREASURY_ACCOUNT_KNOWN)
}

export async function runTransactionsList(opts: {account: string; list: ListOptions; dates: {gte?: string; lte?: string}}, ctx: CommandContext): Promise<void> {
  const l = listing(opts.list)
  const filters = {limit: l.limit, order: l.order, transaction_date_gte: opts.dates.gte, transaction_date_lte: opts.dates.lte}
  const api = await ctx.api(['treasury'])
  await l.show(ctx.out, api.treasury.transactions(opts.account, filters, l.paginate), BANK_TRANSACTION_COLUMNS)
}

export async function runTransactionGet(opts: {account: string; id: string}, ctx: CommandContext): Promise<void> {
  const api = await ctx.api(['treasury'])
  await showAnswer(ctx.out, await api.treasury.transaction(opts.account, opts.id), BANK_TRANSACTION_COLUMNS)
}
