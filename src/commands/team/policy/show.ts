import {ApiCommand} from '../../../base-command.js'
import {runPolicyShow} from '../../../control/team.js'

export default class TeamPolicyShow extends ApiCommand<typeof TeamPolicyShow> {
  static override summary = 'Show the team store\'s policies, with who set each and when.'
  static override examples = ['<%= config.bin %> team policy show', '<%= config.bin %> team policy show -o json']

  async run(): Promise<void> {
    await runPolicyShow(this.ctx)
  }
}
