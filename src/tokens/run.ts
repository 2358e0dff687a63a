/** `tokens create`: a session token for a payee or another party, minted and shown with its expiry. */
import type {PartyType} from '../api/schemas/parties.js'
import {describeToken, validateTokenRequest} from '../api/tokens.js'
import type {CommandContext} from '../context/index.js'
import type {GuardFlags} from '../movements/command.js'
import {confirmMutation} from '../confirm.js'
import {TOKEN_COLUMNS, TOKEN_KNOWN} from '../output/columns.js'
import {showAnswer} from '../output/show.js'

export interface TokenOptions {
  /** A payee (the payee endpoint), or a party of the given type. */
  party: {payee: string} | {id: string; type: PartyType}
  guard: GuardFlags
}

export async function runTokensCreate(opts: TokenOptions, ctx: CommandContext): Promise<void> {
  const p = opts.party
  const partyType = 'payee' in p ? 'payee' : p.type
  const partyId = 'payee' in p ? p.payee : p.id
  validateTokenRequest(partyId, 'payee' in p ? 'payee-endpoint' : p.type)
  await confirmMutation(ctx, opts.guard, {action: `Mint a session token for ${partyType} ${partyId}`})
  const api = await ctx.api(['tokens'])
  const res = 'payee' in p ? await api.tokens.forPayee(partyId) : await api.tokens.forParty(partyId, p.type)
  await showAnswer(ctx.out, {warning: res.warning, data: describeToken(res.data, ctx.clock.now())}, TOKEN_COLUMNS, TOKEN_KNOWN)
}
