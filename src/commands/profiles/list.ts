import {BaseCommand} from '../../base-command.js'
import {profileView} from '../../config/view.js'
import {PROFILE_COLUMNS} from '../../output/columns.js'

export default class ProfilesList extends BaseCommand<typeof ProfilesList> {
  static override summary = 'List saved profiles (keys redacted).'

  static override examples = ['<%= config.bin %> profiles list', '<%= config.bin %> profiles list -o json --query "[?mode==\'live\'].name"']

  async run(): Promise<void> {
    const file = this.ctx.profiles().read()
    const rows = Object.entries(file.profiles).map(([name, p]) => profileView(name, p, name === file.active))
    await this.out.list(rows, PROFILE_COLUMNS)
  }
}
