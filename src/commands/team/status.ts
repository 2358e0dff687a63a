import {ApiCommand} from '../../base-command.js'
import {runTeamStatus} from '../../control/team.js'

export default class TeamStatus extends ApiCommand<typeof TeamStatus> {
  static override summary = 'Where this run\'s controls live, and who you are there.'
  static override description = `The team store (PAYOPS_TEAM_DATABASE_URL, else the profile's \`team\` setting) as
HOST:PORT/DATABASE, its schema, the database role your records are stamped with,
the team roles it holds and the entity it serves; without a team store, the local
SQLite store. A team store that cannot be reached is exit 7, naming it.`
  static override examples = ['<%= config.bin %> team status', '<%= config.bin %> team status --profile prod -o json']

  async run(): Promise<void> {
    await runTeamStatus(this.ctx)
  }
}
