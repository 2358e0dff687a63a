import * as Args from '@oclif/core/args'
import {BaseCommand} from '../../base-command.js'
import {runProfilesRemove} from '../../config/commands.js'

export default class ProfilesRemove extends BaseCommand<typeof ProfilesRemove> {
  static override summary = 'Delete a saved profile.'
  static override examples = ['<%= config.bin %> profiles remove old-sandbox']
  static override args = {name: Args.string({description: 'profile name', required: true})}

  async run(): Promise<void> {
    await runProfilesRemove({name: this.args.name}, this.ctx)
  }
}
