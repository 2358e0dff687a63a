import * as Flags from '@oclif/core/flags'
import {ApiCommand} from '../../base-command.js'
import {runTeamInit} from '../../control/team.js'

export default class TeamInit extends ApiCommand<typeof TeamInit> {
  static override summary = 'Create or bring up to date a team store (PostgreSQL) for one entity.'
  static override description = `Run once by the database's administrator, under a profile with the entity's key.
Creates the schema \`payops\` (or applies the versions it lacks), the group roles
payops_member, payops_worker and payops_admin (NOLOGIN: grant them to login
roles), and binds the store to the key's entity by its SHA-256 fingerprint (never
the key). Safe to run again and safe when two run at once. A password comes from
the URL, PGPASSWORD or ~/.pgpass and is never printed.`
  static override examples = [
    '<%= config.bin %> team init --database-url postgres://admin@db.corp.example/payops --profile prod',
    'PGPASSWORD=… <%= config.bin %> team init --database-url postgres://admin@db.corp.example:5433/payops',
  ]
  static override flags = {
    'database-url': Flags.string({summary: 'The store: postgres://[USER@]HOST[:PORT]/DATABASE (default: PAYOPS_TEAM_DATABASE_URL, or the profile\'s team store).'}),
  }

  async run(): Promise<void> {
    await runTeamInit({databaseUrl: this.flags['database-url']}, this.ctx)
  }
}
