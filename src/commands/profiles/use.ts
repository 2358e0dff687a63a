import * as Args from '@oclif/core/args'
import {BaseCommand} from '../../base-command.js'

export default class ProfilesUse extends BaseCommand<typeof ProfilesUse> {
  static override summary = 'Make a profile the active one.'
  static override examples = ['<%= config.bin %> profiles use prod']
  static override args = {name: Args.string({description: 'profile name', required: true})}

  async run(): Promise<void> {
    await this.ctx.profiles().use(this.args.name)
    this.out.note(`Active profile: ${this.args.name}`)
  }
}
