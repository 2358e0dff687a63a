import {BaseCommand} from '../../base-command.js'
import {runProfilesList} from '../../config/commands.js'

export default class ProfilesList extends BaseCommand<typeof ProfilesList> {
  static override summary = 'List saved profiles (keys redacted).'

  static override examples = ['<%= config.bin %> profiles list', '<%= config.bin %> profiles list -o json --query "[?mode==\'live\'].name"']

  async run(): Promise<void> {
    await runProfilesList(this.ctx)
  }
}
