import * as Flags from '@oclif/core/flags'
import {ApiCommand} from '../../base-command.js'
import {PARTY_TYPES} from '../../api/schemas/parties.js'
import {runTokensCreate} from '../../tokens/run.js'

export default class TokensCreate extends ApiCommand<typeof TokensCreate> {
  static override areas = ['tokens'] as const
  static override summary = 'Mint a short-lived session token for a frontend acting for one payee or payer.'
  static override description =
    '--payee calls POST /api/session-tokens; --party with --party-type calls POST /api/session-tokens/party (which supersedes it). Shows the token, its expiry (absolute time) and its scopes; with -o json also the decoded JWT claims under "claims" (decoded, not verified). The token is a credential: it is never written to --debug traces.'
  static override examples = [
    '<%= config.bin %> tokens create --payee PAYEE_ID',
    '<%= config.bin %> tokens create --party PAYER_ID --party-type payer -o json --query token',
  ]
  static override flags = {
    payee: Flags.string({summary: 'Payee id (POST /api/session-tokens).', aliases: ['payee-id'], exactlyOne: ['payee', 'party']}),
    party: Flags.string({summary: 'Party id (POST /api/session-tokens/party); needs --party-type.', aliases: ['party-id'], exactlyOne: ['payee', 'party'], dependsOn: ['party-type']}),
    'party-type': Flags.option({summary: 'Kind of party named by --party.', options: PARTY_TYPES, dependsOn: ['party']})(),
  }

  async run(): Promise<void> {
    const f = this.flags
    const party = f.payee === undefined ? {id: f.party!, type: f['party-type']!} : {payee: f.payee}
    await runTokensCreate({party, guard: this.guardInput}, this.ctx)
  }
}
