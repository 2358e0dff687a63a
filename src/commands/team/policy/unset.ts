import * as Args from '@oclif/core/args'
import {ApiCommand} from '../../../base-command.js'
import {runPolicyUnset} from '../../../control/team.js'
import {POLICY_KEYS} from '../../../control/types.js'

export default class TeamPolicyUnset extends ApiCommand<typeof TeamPolicyUnset> {
  static override summary = 'Remove a policy of the team store, or some of its values (payops_admin only).'
  static override description = `As \`profiles unset\` takes them: max-amount|daily-max [CURRENCY...],
allowed-destinations [ID,...], approval-policy. Without values the whole policy
goes. The removal is recorded with the database role that made it.`
  static override examples = ['<%= config.bin %> team policy unset daily-max USD', '<%= config.bin %> team policy unset approval-policy']
  static override usage = 'team policy unset KEY [VALUE...]'
  static override restArgs = true
  static override args = {
    key: Args.string({description: 'policy', required: true, options: [...POLICY_KEYS]}),
    value: Args.string({description: 'only these currencies or ids (default: the whole policy)'}),
  }

  async run(): Promise<void> {
    await runPolicyUnset({key: this.args.key, values: this.positionals.slice(1)}, this.ctx)
  }
}
