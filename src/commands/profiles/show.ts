import * as Args from '@oclif/core/args'
import {ApiCommand} from '../../base-command.js'
import {runProfilesShow} from '../../config/commands.js'

export default class ProfilesShow extends ApiCommand<typeof ProfilesShow> {
  static override summary = 'Show a profile, or what this command line would use and where it comes from.'
  static override description =
    'Without NAME it resolves the profile, key and base URL exactly as an API command would (flag > environment > profile) and says where each came from.'
  static override examples = [
    '<%= config.bin %> profiles show prod',
    {description: 'What this shell would use, and where each part comes from:', command: 'PAYOPS_PROFILE=prod <%= config.bin %> profiles show'},
  ]
  static override args = {name: Args.string({description: 'profile name (default: the one in effect)'})}

  async run(): Promise<void> {
    await runProfilesShow({name: this.args.name}, this.ctx)
  }
}
