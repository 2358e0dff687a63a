/**
 * The oclif glue of every command: global flags, parsing, and the command context (IO, output,
 * prompter, clock, profile, API) built once from them; errors become one line and an exit code.
 * What a command does lives in its area; commands stay thin: flags -> options -> one call -> render.
 */
import {Command} from '@oclif/core/command'
import * as Flags from '@oclif/core/flags'
import type {Interfaces} from '@oclif/core'
import type {ApiArea} from './api/index.js'
import {redact} from './api/redact.js'
import {classify} from './classify.js'
import {processContext} from './context/factory.js'
import type {CommandContext} from './context/index.js'
import {host} from './context/host.js'
import {PayopsError, UsageError} from './errors.js'
import type {Summary} from './movements/types.js'
import {FORMATS, type Output} from './output/index.js'
import type {ListOptions} from './output/show.js'
import type {GuardFlags} from './movements/command.js'
import {terminalLines} from './output/safe.js'
import {oneValueEach} from './flags.js'
import {outputFor, type OutputFlags} from './output/select.js'

export type BaseFlags<T extends typeof Command> = Interfaces.InferredFlags<(typeof BaseCommand)['baseFlags'] & T['flags']>
export type ApiFlags<T extends typeof Command> = Interfaces.InferredFlags<(typeof ApiCommand)['baseFlags'] & T['flags']>
export type CmdArgs<T extends typeof Command> = Interfaces.InferredArgs<T['args']>
export type MutationSummary = Summary
export {classify}

const GLOBAL = 'GLOBAL'

export abstract class BaseCommand<T extends typeof Command> extends Command {
  static override baseFlags = {
    output: Flags.option({char: 'o', summary: 'Output format (default: table on a terminal, json otherwise).', options: FORMATS, helpGroup: GLOBAL})(),
    json: Flags.boolean({summary: 'Shorthand for --output json.', helpGroup: GLOBAL}),
    columns: Flags.string({summary: 'Comma-separated columns (or JSON fields) to show.', helpGroup: GLOBAL}),
    query: Flags.string({summary: 'JMESPath expression applied to the JSON result before rendering.', helpGroup: GLOBAL}),
    'no-color': Flags.boolean({summary: 'Disable colour (also NO_COLOR).', helpGroup: GLOBAL}),
    wide: Flags.boolean({summary: 'Tables at full width (by default they fit the terminal, long cells cut with …).', helpGroup: GLOBAL}),
  }

  /** Flags of commands that act on the API (offline commands do not list them). */
  static actionFlags = {
    debug: Flags.boolean({summary: 'Trace every HTTP attempt on stderr, keys and credential headers redacted (PAYOPS_DEBUG=1).', helpGroup: GLOBAL}),
    yes: Flags.boolean({char: 'y', summary: 'Assume yes to confirmations (required for LIVE actions without a terminal).', helpGroup: GLOBAL}),
  }

  /** The API areas this command uses; only their schemas are loaded. */
  static areas: readonly ApiArea[] = []

  /**
   * The last argument takes every word that follows it (`profiles set NAME KEY VALUE...`): parsed
   * as oclif's `strict = false`, which help would show as `NAME... KEY...`; the command's `usage`
   * says it instead.
   */
  static restArgs = false

  protected flags!: BaseFlags<T>
  protected args!: CmdArgs<T>
  /** Every positional argument (for commands with `strict = false`). */
  protected positionals: string[] = []
  private _out?: Output
  private _ctx?: CommandContext

  protected get debugOn(): boolean {
    const envDebug = host().io.env.PAYOPS_DEBUG
    return Boolean((this.flags as {debug?: boolean} | undefined)?.debug) || (envDebug !== undefined && envDebug !== '' && envDebug !== '0')
  }

  public override async init(): Promise<void> {
    await super.init()
    host().endQuietlyOnClosedPipe()
    const ctor = this.ctor as typeof BaseCommand
    const {args, flags, argv} = await this.parse({
      flags: oneValueEach(ctor.flags),
      baseFlags: oneValueEach((this.ctor as unknown as {baseFlags: Interfaces.FlagInput}).baseFlags),
      args: ctor.args,
      strict: ctor.strict && !ctor.restArgs,
    })
    this.flags = flags as BaseFlags<T>
    this.args = args as CmdArgs<T>
    this.positionals = argv.map(String)
  }

  protected get out(): Output {
    return (this._out ??= outputFor(this.flags as OutputFlags | undefined, this.argv, host().io, (id) => this.ctx.names.get(id)))
  }

  /** The command context: IO, output, prompter, clock, profile and API, built once. */
  protected get ctx(): CommandContext {
    return (this._ctx ??= processContext({
      out: this.out,
      flags: this.flags as Record<string, never>,
      debug: this.debugOn,
      userAgent: `payops/${this.config.version}`,
      transport: () => this.transportKind,
    }))
  }

  /** Bulk work (following a whole list, an import) uses the undici pool; one-shot commands Node's own HTTP client. */
  protected get transportKind(): 'http' | 'pool' {
    return (this.flags as {all?: boolean} | undefined)?.all ? 'pool' : 'http'
  }

  protected override async catch(err: Error & {exitCode?: number; oclif?: {exit?: number}; code?: string}): Promise<void> {
    // oclif's own exit (this.exit) and help output pass through untouched.
    if (err.code === 'EEXIT') throw err
    const {code, line, json} = classify(err)
    this.out.error(redact(line), json)
    // The stack's lines as lines; a message from outside in it escaped like any other text.
    if (this.debugOn && !(err instanceof PayopsError) && err.stack) host().io.stderr.write(terminalLines(redact(err.stack).split('\n')))
    host().exitCode = code
  }

  public override async finally(err: Error | undefined): Promise<void> {
    await this._ctx?.close()
    return super.finally(err)
  }
}

/** A command that talks to the API: the connection flags, lists, guards and ids. */
export abstract class ApiCommand<T extends typeof Command> extends BaseCommand<T> {
  static override baseFlags = {
    ...BaseCommand.baseFlags,
    ...BaseCommand.actionFlags,
    profile: Flags.string({char: 'p', summary: 'Profile to use (PAYOPS_PROFILE; default: the active profile).', helpGroup: GLOBAL}),
    'api-key': Flags.string({summary: 'API key (PAYOPS_API_KEY). Prefer the environment or a profile: flags show in `ps`.', helpGroup: GLOBAL}),
    'base-url': Flags.string({summary: 'API base URL (PAYOPS_BASE_URL).', helpGroup: GLOBAL}),
    proxy: Flags.string({summary: 'Proxy for every request, http://[USER:PASSWORD@]HOST:PORT or none (default: the profile\'s proxy, else HTTPS_PROXY/HTTP_PROXY; NO_PROXY applies).', helpGroup: GLOBAL}),
    timeout: Flags.integer({summary: 'Seconds allowed for each API call, retries included.', default: 30, min: 1, helpGroup: GLOBAL}),
    'max-retries': Flags.integer({summary: 'Retries of failed idempotent requests.', default: 2, min: 0, max: 10, helpGroup: GLOBAL}),
  }

  static listFlags = {
    limit: Flags.integer({summary: 'Items per page (1 to 500).', min: 1, max: 500}),
    cursor: Flags.string({summary: 'Start from this cursor (the next_cursor of a previous page).'}),
    order: Flags.option({summary: 'Sort order by creation time.', options: ['asc', 'desc'] as const})(),
    all: Flags.boolean({summary: 'Follow next_cursor to the end, streaming.'}),
    'max-items': Flags.integer({summary: 'Stop after this many items in total.', min: 1}),
  }

  /** Flags of commands that move money. */
  static guardFlags = {
    'override-limits': Flags.boolean({summary: 'Proceed despite the profile\'s limits, never a team store\'s policies (always asks; without a terminal also needs --yes).'}),
  }

  declare protected flags: ApiFlags<T>

  /** The API with this command's areas loaded. */
  protected api() {
    return this.ctx.api((this.ctor as typeof BaseCommand).areas)
  }

  protected get isLive(): boolean {
    return this.ctx.isLive
  }

  /** The shared list flags as typed list options (an area's `listing` pages and shows with them). */
  protected get listInput(): ListOptions {
    const f = this.flags as {limit?: number; cursor?: string; order?: 'asc' | 'desc'; all?: boolean; 'max-items'?: number}
    return {limit: f.limit, cursor: f.cursor, order: f.order, all: f.all, maxItems: f['max-items']}
  }

  /** The guard's flags (--yes, --override-limits) as the movement pipeline and confirmations take them. */
  protected get guardInput(): GuardFlags {
    const f = this.flags as {yes?: boolean; 'override-limits'?: boolean}
    return {yes: f.yes, 'override-limits': f['override-limits']}
  }

  /** Reads ids from argv, or one per line from stdin when the only argument is `-`. */
  protected async idsFromArgv(argv: string[]): Promise<string[]> {
    let ids = argv
    if (argv.length === 1 && argv[0] === '-') ids = (await this.ctx.readStdin()).toString('utf8').split(/[\s,]+/)
    ids = ids.map((s) => s.trim()).filter(Boolean)
    if (ids.length === 0) throw new UsageError('Give at least one id (or - to read ids from stdin).')
    return [...new Set(ids)]
  }
}
