import * as Args from '@oclif/core/args'
import * as Flags from '@oclif/core/flags'
import {BaseCommand} from '../../base-command.js'
import {runProfilesSet} from '../../config/commands.js'
import {SETTING_KEYS} from '../../config/settings.js'
import {MAKER_CHECKER_SCOPE} from '../../movements/maker-checker.js'

export default class ProfilesSet extends BaseCommand<typeof ProfilesSet> {
  static override summary = 'Set a limit or setting of a profile.'
  static override description = `Keys:
  max-amount AMOUNT CURRENCY     refuse any single movement over AMOUNT in CURRENCY (repeat per
                                 currency; then other currencies are refused too)
  daily-max AMOUNT CURRENCY      refuse what would take today's total (UTC) under this profile's
                                 key past AMOUNT; every command and \`api\` count
  allowed-destinations ID,...    refuse movements to other destinations (replaces; --add adds)
  approval-policy maker-checker  create moves and transfers (over --threshold AMOUNT CURRENCY, or
                                 all) held, to be approved by someone else
  operator-name "First Last"     who uses this profile: written into every audit record
  watch RULE ARGS...             a rule for \`payops watch\` (min-balance, transfer-failed,
                                 transfer-stuck, approval-waiting, reconcile-exceptions)
  base-url URL                   change the base URL
  proxy URL|none                 requests through this proxy (above HTTPS_PROXY; NO_PROXY applies)
  ca-file FILE.pem               also trust these CAs (a TLS-inspecting proxy)
  team postgres://HOST/DB        the team store of its controls (see \`payops team\`)
Breaking a limit is refused before sending (exit 3) unless --override-limits.
${MAKER_CHECKER_SCOPE}`
  static override examples = [
    '<%= config.bin %> profiles set prod max-amount 5000.00 USD',
    '<%= config.bin %> profiles set prod daily-max 50000.00 USD',
    '<%= config.bin %> profiles set prod allowed-destinations SUB_A,SUB_B',
    '<%= config.bin %> profiles set prod allowed-destinations SUB_C --add',
    '<%= config.bin %> profiles set prod approval-policy maker-checker --threshold 10000.00 USD',
    '<%= config.bin %> profiles set prod operator-name "Ana Ruiz"',
    '<%= config.bin %> profiles set prod watch min-balance SUB_A 1000.00 USD',
    '<%= config.bin %> profiles set prod watch transfer-stuck 24',
    '<%= config.bin %> profiles set prod proxy http://proxy.corp.example:3128',
    '<%= config.bin %> profiles set prod ca-file ~/corp-root-ca.pem',
    '<%= config.bin %> profiles set prod team postgres://ana@db.corp.example/payops',
  ]
  static override flags = {
    add: Flags.boolean({summary: 'With allowed-destinations: add the ids to the existing list instead of replacing it.'}),
    threshold: Flags.string({summary: 'With approval-policy: the amount above which it applies, then its currency (`--threshold 10000.00 USD`).'}),
  }
  static override usage = 'profiles set NAME KEY VALUE... [--add] [--threshold AMOUNT CURRENCY]'
  static override restArgs = true
  static override args = {
    name: Args.string({description: 'profile name', required: true}),
    key: Args.string({description: 'setting', required: true, options: [...SETTING_KEYS]}),
    value: Args.string({description: 'the value: one or more words, as the key takes them (see Keys)'}),
  }

  async run(): Promise<void> {
    await runProfilesSet({name: this.args.name, key: this.args.key, values: this.positionals.slice(2), add: this.flags.add, threshold: this.flags.threshold}, this.ctx)
  }
}
