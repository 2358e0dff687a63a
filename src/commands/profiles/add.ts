import * as Args from '@oclif/core/args'
import * as Flags from '@oclif/core/flags'
import {BaseCommand} from '../../base-command.js'
import {runProfilesAdd} from '../../config/commands.js'

export default class ProfilesAdd extends BaseCommand<typeof ProfilesAdd> {
  static override summary = 'Save a profile: a key and base URL, or (--team) a team member\'s without a key.'
  static override description =
    'The key is read from stdin with --key-stdin, or asked for on a terminal (hidden). --api-key also works but is visible in the process list. The profile file is written with mode 0600; keys are only ever shown redacted.\n\n' +
    'With --team URL the profile is a team member\'s without an API key (--base-url optional): its money commands (`moves create`, `transfers create`, `moves import`) record requests in that team store and send nothing; another member approves them (`approvals review req-N`) and `team worker`, where the key lives, carries them out.'
  static override examples = [
    'printf %s "$KEY" | <%= config.bin %> profiles add prod --base-url https://api.example.com --key-stdin',
    '<%= config.bin %> profiles add sandbox --base-url http://127.0.0.1:4010 --use',
    '<%= config.bin %> profiles add ana --team postgres://ana@db.corp.example/payops --use',
  ]
  static override args = {name: Args.string({description: 'profile name', required: true})}
  static override flags = {
    'base-url': Flags.string({summary: 'API base URL (https://, or http:// to loopback); optional with --team.'}),
    'key-stdin': Flags.boolean({summary: 'Read the API key from stdin.', exclusive: ['team']}),
    'api-key': Flags.string({summary: 'The API key (visible in `ps`; prefer --key-stdin or the prompt).', exclusive: ['team']}),
    team: Flags.string({summary: 'A team store (postgres://[USER@]HOST[:PORT]/DATABASE): a member\'s profile without an API key, whose money requests go there.'}),
    use: Flags.boolean({summary: 'Make it the active profile.'}),
    force: Flags.boolean({summary: 'Replace an existing profile of that name.'}),
  }

  async run(): Promise<void> {
    const f = this.flags
    await runProfilesAdd({name: this.args.name, baseUrl: f['base-url'], keyStdin: f['key-stdin'], apiKey: f['api-key'], team: f.team, use: f.use, force: f.force}, this.ctx)
  }
}
