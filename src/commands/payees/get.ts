import * as Args from '@oclif/core/args'
import {ApiCommand} from '../../base-command.js'
import {PARTY_KNOWN} from '../../output/columns.js'

export default class PayeesGet extends ApiCommand<typeof PayeesGet> {
  static override areas = ['payees'] as const
  static override summary = 'Show a payee.'
  static override examples = ['<%= config.bin %> payees get PAYEE_ID']
  static override args = {id: Args.string({description: 'payee id', required: true})}

  async run(): Promise<void> {
    const api = await this.api()
    const res = await api.payees.get(this.args.id)
    if (res.warning) this.out.warn(res.warning)
    await this.out.resource(res.data, PARTY_KNOWN)
  }
}
