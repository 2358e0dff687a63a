import * as Args from '@oclif/core/args'
import {ApiCommand} from '../../base-command.js'
import {profileView} from '../../config/view.js'
import {formatLimits} from '../../output/columns.js'
import {redactKey, redactUrl} from '../../api/redact.js'
import {redactProxyUrl} from '../../net.js'
import {redactDatabaseUrl} from '../../control/url.js'
import type {Column} from '../../output/index.js'

const SHOW_COLUMNS: Column[] = [
  {key: 'name'},
  {key: 'mode', get: (r) => String(r.mode).toUpperCase()},
  {key: 'api_key', header: 'key'},
  {key: 'api_key_source', header: 'key from'},
  {key: 'base_url', header: 'base url'},
  {key: 'base_url_source', header: 'base url from'},
  {key: 'proxy', get: (r) => (r.proxy === null || r.proxy === undefined ? '' : String(r.proxy))},
  {key: 'proxy_source', header: 'proxy from'},
  {key: 'ca_file', header: 'ca file', get: (r) => (r.ca_file === null || r.ca_file === undefined ? '' : String(r.ca_file))},
  {key: 'limits', get: (r) => formatLimits(r.limits as Parameters<typeof formatLimits>[0], {ids: true})},
  {key: 'team', header: 'team store', get: (r) => (r.team === null || r.team === undefined ? '' : String(r.team))},
]

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
    if (this.args.name) {
      const store = this.ctx.profiles()
      const profile = store.require(this.args.name)
      const view = profileView(this.args.name, profile, store.read().active === this.args.name)
      await this.out.resource(
        {...view, api_key_source: `profile "${this.args.name}"`, base_url_source: `profile "${this.args.name}"`, proxy_source: view.proxy ? `profile "${this.args.name}"` : null},
        SHOW_COLUMNS,
      )
      return
    }
    const c = this.ctx.profile
    const net = c.network
    const env = net.env
    const envProxy = ['https_proxy', 'HTTPS_PROXY', 'http_proxy', 'HTTP_PROXY'].find((k) => env[k]?.trim())
    await this.out.resource(
      {
        name: c.profileName ?? null,
        profile_source: c.profileProvenance.detail,
        mode: c.mode,
        api_key: redactKey(c.apiKey),
        api_key_source: c.key.detail,
        base_url: c.baseUrl ? redactUrl(c.baseUrl) : null,
        base_url_source: c.baseUrlProvenance.detail,
        proxy: redactProxyUrl(net.proxy ?? (envProxy ? env[envProxy] : undefined)) ?? null,
        proxy_source: net.proxySource ?? envProxy ?? null,
        no_proxy: env.no_proxy?.trim() || env.NO_PROXY?.trim() || null,
        ca_file: net.caFile ?? null,
        limits: c.profile?.limits ?? null,
        team: redactDatabaseUrl(env.PAYOPS_TEAM_DATABASE_URL?.trim() || c.profile?.team_database_url) ?? null,
        team_source: env.PAYOPS_TEAM_DATABASE_URL?.trim() ? 'PAYOPS_TEAM_DATABASE_URL' : c.profile?.team_database_url ? `profile "${c.profileName}"` : null,
      },
      SHOW_COLUMNS,
    )
  }
}
