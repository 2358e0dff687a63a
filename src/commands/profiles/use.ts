import * as Args from '@oclif/core/args'
import {BaseCommand} from '../../base-command.js'
import {runProfilesUse} from '../../config/commands.js'

export default class ProfilesUse extends BaseCommand<typeof ProfilesUse> {
  static override summary = 'Make a profile the active one.'
  static override examples = ['<%= config.bin %> profiles use prod']
  static override args = {name: Args.string({description: 'profile name', required: true})}

  async run(): Promise<void> {
    await runProfilesUse({name: this.args.name}, this.ctx)
  }
}
