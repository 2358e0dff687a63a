import * as Args from '@oclif/core/args'
import * as Flags from '@oclif/core/flags'
import {ApiCommand} from '../../../base-command.js'
import {runPolicySet} from '../../../control/team.js'
import {POLICY_KEYS} from '../../../control/types.js'

export default class TeamPolicySet extends ApiCommand<typeof TeamPolicySet> {
  static override summary = 'Set a policy of the team store (payops_admin only).'
  static override description = `Keys (as \`profiles set\` takes them):
  max-amount AMOUNT CURRENCY     the most a single movement may be
  daily-max AMOUNT CURRENCY      the most moved per UTC day under the entity
  allowed-destinations ID,...    the only destinations (replaces; --add adds)
  approval-policy maker-checker  movements (over --threshold) held for a checker
Each change is recorded with the database role that made it. The store itself
refuses an intent over max-amount, daily-max or allowed-destinations.`
  static override examples = [
    '<%= config.bin %> team policy set daily-max 50000.00 USD',
    '<%= config.bin %> team policy set max-amount 5000.00 USD',
    '<%= config.bin %> team policy set allowed-destinations SUB_C --add',
    '<%= config.bin %> team policy set approval-policy maker-checker --threshold 10000.00 USD',
  ]
  static override flags = {
    add: Flags.boolean({summary: 'With allowed-destinations: add the ids to the list instead of replacing it.'}),
    threshold: Flags.string({summary: 'With approval-policy: the amount above which it applies, then its currency.'}),
  }
  static override usage = 'team policy set KEY VALUE... [--add] [--threshold AMOUNT CURRENCY]'
  static override restArgs = true
  static override args = {
    key: Args.string({description: 'policy', required: true, options: [...POLICY_KEYS]}),
    value: Args.string({description: 'the value: one or more words, as the key takes them (see Keys)'}),
  }

  async run(): Promise<void> {
    await runPolicySet({key: this.args.key, values: this.positionals.slice(1), add: this.flags.add, threshold: this.flags.threshold}, this.ctx)
  }
}
