import * as Args from '@oclif/core/args'
import {BaseCommand} from '../../base-command.js'
import {runProfilesUnset} from '../../config/commands.js'
import {SETTING_KEYS} from '../../config/settings.js'

export default class ProfilesUnset extends BaseCommand<typeof ProfilesUnset> {
  static override summary = 'Remove a limit or setting of a profile, or only some of its values.'
  static override description =
    'Keys and their values: max-amount|daily-max [CURRENCY...], allowed-destinations [ID,...], approval-policy, operator-name, watch [RULE [ID]], proxy, ca-file, team. Without values it removes the whole limit; with currencies (max-amount, daily-max) or ids (allowed-destinations) only those. Removing what the profile does not have is exit 2, naming what it has; nothing is changed.'
  static override examples = ['<%= config.bin %> profiles unset prod max-amount USD', '<%= config.bin %> profiles unset prod allowed-destinations SUB_A', '<%= config.bin %> profiles unset prod allowed-destinations']
  static override usage = 'profiles unset NAME KEY [VALUE...]'
  static override restArgs = true
  static override args = {
    name: Args.string({description: 'profile name', required: true}),
    key: Args.string({description: 'setting', required: true, options: SETTING_KEYS.filter((k) => k !== 'base-url')}),
    value: Args.string({description: 'only these currencies, ids or rule (default: the whole setting)'}),
  }

  async run(): Promise<void> {
    await runProfilesUnset({name: this.args.name, key: this.args.key, values: this.positionals.slice(2)}, this.ctx)
  }
}
