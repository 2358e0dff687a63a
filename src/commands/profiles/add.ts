import * as Args from '@oclif/core/args'
import * as Flags from '@oclif/core/flags'
import {BaseCommand} from '../../base-command.js'
import {keyMode, validateProfileName} from '../../config/index.js'
import {profileView} from '../../config/view.js'
import {PROFILE_COLUMNS} from '../../output/columns.js'
import {validateBaseUrl} from '../../config/validate.js'
import {UsageError} from '../../errors.js'
import {redactKey, registerSecret} from '../../api/redact.js'
import {databaseSecrets, describeStore, parseDatabaseUrl} from '../../control/url.js'
import type {Profile} from '../../config/index.js'

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
    const name = validateProfileName(this.args.name)
    const store = this.ctx.profiles()
    const existing = store.replaceable(name, this.flags.force)
    if (this.flags.team) return this.addMember(name, existing)
    if (!this.flags['base-url']) throw new UsageError('Give --base-url URL (or --team URL for a team member\'s profile without the key).')
    const baseUrl = validateBaseUrl(this.flags['base-url'])
    const apiKey = await this.readKey()
    if (keyMode(apiKey) === 'unknown') throw new UsageError(`That key does not start with live_ or test_ (${redactKey(apiKey)}); refusing to save it.`)
    // Under the profile file's lock: checked again (another run may have added it meanwhile), saved, made active.
    const makeActive = await store.change((file) => {
      const now = file.profiles[name]
      if (now && !this.flags.force) throw new UsageError(`Profile "${name}" already exists; use --force to replace it.`)
      file.profiles[name] = {...now, ...existing, api_key: apiKey, base_url: baseUrl, created_at: now?.created_at ?? existing?.created_at ?? new Date(this.ctx.clock.now()).toISOString()}
      const active = this.flags.use || !file.active
      if (active) file.active = name
      return active
    })
    this.out.note(`Saved profile "${name}" (${keyMode(apiKey).toUpperCase()} key ${redactKey(apiKey)})${makeActive ? ', now active' : ''}.`)
    await this.out.resource(profileView(name, store.require(name), makeActive), PROFILE_COLUMNS)
  }

  /** A team member's profile: the store's URL (its password registered as a secret), no key. */
  private async addMember(name: string, existing: Profile | undefined): Promise<void> {
    const store = this.ctx.profiles()
    const url = this.flags.team!.trim()
    databaseSecrets(url, registerSecret)
    const where = describeStore(parseDatabaseUrl(url, '--team'))
    const baseUrl = this.flags['base-url'] ? validateBaseUrl(this.flags['base-url']) : undefined
    const makeActive = await store.change((file) => {
      const now = file.profiles[name]
      if (now && !this.flags.force) throw new UsageError(`Profile "${name}" already exists; use --force to replace it.`)
      const {api_key: _key, base_url: _url, ...kept} = {...now, ...existing}
      file.profiles[name] = {...kept, team_database_url: url, ...(baseUrl ? {base_url: baseUrl} : {}), created_at: now?.created_at ?? existing?.created_at ?? new Date(this.ctx.clock.now()).toISOString()}
      const active = this.flags.use || !file.active
      if (active) file.active = name
      return active
    })
    this.out.note(`Saved profile "${name}": a team member's, without an API key, bound to the team store ${where}${makeActive ? ', now active' : ''}. Its money requests are recorded there and sent by no one until another member approves them and the worker carries them out; \`payops team status\` checks the login.`)
    await this.out.resource(profileView(name, store.require(name), makeActive), PROFILE_COLUMNS)
  }

  private async readKey(): Promise<string> {
    if (this.flags['key-stdin']) {
      const key = (await this.ctx.readStdin()).toString('utf8').trim()
      if (!key) throw new UsageError('--key-stdin: stdin was empty.')
      return key
    }
    if (this.flags['api-key']) return this.flags['api-key'].trim()
    if (!this.ctx.prompter.interactive) throw new UsageError('No key given: pipe it with --key-stdin (or use --api-key).')
    const key = await this.ctx.prompter.password('API key')
    if (!key.trim()) throw new UsageError('No key entered.')
    return key.trim()
  }
}
