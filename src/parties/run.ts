/** `payees get`, `payees list` and `payers list`: the parties of the entity, read and shown. */
import type {CommandContext} from '../context/index.js'
import {PARTY_COLUMNS, PARTY_KNOWN} from '../output/columns.js'
import {listing, showAnswer, type ListOptions} from '../output/show.js'
import type {parsePartyFilters} from '../flags.js'

/** The filters of a party list, parsed (see parsePartyFilters). */
export type PartyFilters = ReturnType<typeof parsePartyFilters>

export async function runPayeesGet(opts: {id: string}, ctx: CommandContext): Promise<void> {
  const api = await ctx.api(['payees'])
  await showAnswer(ctx.out, await api.payees.get(opts.id), PARTY_KNOWN)
}

export async function runPayeesList(opts: {list: ListOptions; filters: PartyFilters}, ctx: CommandContext): Promise<void> {
  const l = listing(opts.list)
  const api = await ctx.api(['payees'])
  await l.show(ctx.out, api.payees.list({limit: l.limit, order: l.order, ...opts.filters}, l.paginate), PARTY_COLUMNS, PARTY_KNOWN)
}

export async function runPayersList(opts: {list: ListOptions; filters: PartyFilters}, ctx: CommandContext): Promise<void> {
  const l = listing(opts.list)
  const api = await ctx.api(['payers'])
  await l.show(ctx.out, api.payers.list({limit: l.limit, order: l.order, ...opts.filters}, l.paginate), PARTY_COLUMNS, PARTY_KNOWN)
}
