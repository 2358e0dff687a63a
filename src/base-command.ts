/**
 * The base of every command: global flags, output selection, error -> exit code mapping, and (for
 * API commands) the resolved profile, key and client. Commands stay thin: flags -> options -> one
 * call into src/api -> render through src/output.
 */
import {Command, Flags, type Interfaces} from '@oclif/core'
import {randomUUID} from 'node:crypto'
import {ApiError, ExitCode, NotConfirmedError, PartialError, PayopsError, AuthError, UsageError, type ExitCodeValue} from './errors.js'
import {FORMATS, Output, defaultFormat, type Column, type Format} from './output/index.js'
import {colorEnabled} from './output/color.js'
import {redact, redactKey} from './api/redact.js'
import type {Api, ApiArea} from './api/index.js'
import type {AuditHook} from './api/client.js'
import type {PaginateOptions, Page} from './api/paginate.js'
import {configDir, readProfiles} from './config/index.js'
import {resolveContext, type ResolvedContext} from './config/resolve.js'
import {limitViolations, type Movement} from './guardrails.js'
import {readStdin} from './flags.js'
import {guard, type GuardOptions} from './movements/guard.js'
import {BulkReport, type ItemResult} from './api/bulk.js'
import {RESULT_COLUMNS} from './output/columns.js'
import type {MovementKind, MovementPorts, MovementRequest, Outcome, Prompter} from './movements/types.js'

export type BaseFlags<T extends typeof Command> = Interfaces.InferredFlags<(typeof BaseCommand)['baseFlags'] & T['flags']>
export type ApiFlags<T extends typeof Command> = Interfaces.InferredFlags<(typeof ApiCommand)['baseFlags'] & T['flags']>
export type CmdArgs<T extends typeof Command> = Interfaces.InferredArgs<T['args']>

const GLOBAL = 'GLOBAL'

export abstract class BaseCommand<T extends typeof Command> extends Command {
  static override baseFlags = {
    output: Flags.option({char: 'o', summary: 'Output format (default: table on a terminal, json otherwise).', options: FORMATS, helpGroup: GLOBAL})(),
    json: Flags.boolean({summary: 'Shorthand for --output json.', helpGroup: GLOBAL}),
    columns: Flags.string({summary: 'Comma-separated columns (or JSON fields) to show.', helpGroup: GLOBAL}),
    query: Flags.string({summary: 'JMESPath expression applied to the JSON result before rendering.', helpGroup: GLOBAL}),
    debug: Flags.boolean({summary: 'Trace every HTTP attempt on stderr, with keys redacted (PAYOPS_DEBUG=1).', helpGroup: GLOBAL}),
    yes: Flags.boolean({char: 'y', summary: 'Assume yes to confirmations (required for LIVE actions without a terminal).', helpGroup: GLOBAL}),
    'no-color': Flags.boolean({summary: 'Disable colour (also NO_COLOR).', helpGroup: GLOBAL}),
  }

  protected flags!: BaseFlags<T>
  protected args!: CmdArgs<T>
  private _out?: Output

  protected get debugOn(): boolean {
    const envDebug = process.env.PAYOPS_DEBUG
    return Boolean((this.flags as {debug?: boolean} | undefined)?.debug) || (envDebug !== undefined && envDebug !== '' && envDebug !== '0')
  }

  public override async init(): Promise<void> {
    await super.init()
    process.stdout.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0)
    })
    const ctor = this.ctor as typeof BaseCommand
    const {args, flags, argv} = await this.parse({
      flags: ctor.flags,
      baseFlags: (this.ctor as unknown as {baseFlags: Interfaces.FlagInput}).baseFlags,
      args: ctor.args,
      strict: ctor.strict,
    })
    this.flags = flags as BaseFlags<T>
    this.args = args as CmdArgs<T>
    this.positionals = argv.map(String)
  }

  /** Every positional argument (for commands with `strict = false`). */
  protected positionals: string[] = []

  protected get out(): Output {
    if (!this._out) {
      const f = (this.flags ?? {}) as {output?: Format; json?: boolean; columns?: string; query?: string; 'no-color'?: boolean}
      const format: Format = f.json ? 'json' : (f.output ?? guessFormatFromArgv(this.argv) ?? defaultFormat(process.stdout.isTTY))
      this._out = new Output({
        format,
        color: colorEnabled(f['no-color'] || this.argv.includes('--no-color'), process.env, process.stdout.isTTY),
        columns: f.columns ? f.columns.split(',').map((s) => s.trim()).filter(Boolean) : undefined,
        query: f.query,
      })
    }
    return this._out
  }

  /**
   * Resolves on the first SIGINT or SIGTERM (for long-running commands: the emulator, the
   * listener). Call it before printing anything, so that a signal never finds the command deaf.
   */
  protected stopSignal(): Promise<void> {
    return new Promise<void>((resolve) => {
      const stop = () => {
        process.off('SIGINT', stop)
        process.off('SIGTERM', stop)
        resolve()
      }
      process.on('SIGINT', stop)
      process.on('SIGTERM', stop)
    })
  }

  protected get interactive(): boolean {
    return Boolean(process.stdin.isTTY && process.stderr.isTTY)
  }

  /** Asks a yes/no question on the terminal; false when there is no terminal. */
  protected async ask(message: string): Promise<boolean> {
    if (!this.interactive) return false
    const {confirm} = await import('@inquirer/prompts')
    try {
      return await confirm({message, default: false}, {output: process.stderr})
    } catch {
      return false
    }
  }

  protected override async catch(err: Error & {exitCode?: number; oclif?: {exit?: number}; code?: string}): Promise<void> {
    // oclif's own exit (this.exit) and help output pass through untouched.
    if (err.code === 'EEXIT') throw err
    const {code, line, json} = classify(err)
    this.out.error(redact(line), json)
    if (this.debugOn && !(err instanceof PayopsError) && err.stack) process.stderr.write(redact(err.stack) + '\n')
    process.exitCode = code
  }
}

function guessFormatFromArgv(argv: string[]): Format | undefined {
  if (argv.includes('--json')) return 'json'
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]
    const v = a === '-o' || a === '--output' ? argv[i + 1] : a.startsWith('--output=') ? a.slice(9) : a.startsWith('-o') && a.length > 2 ? a.slice(2) : undefined
    if (v && (FORMATS as readonly string[]).includes(v)) return v as Format
  }
  return undefined
}

/** Maps any error to its exit code, a one-line message and the JSON error object. */
export function classify(err: unknown): {code: ExitCodeValue; line: string; json: Record<string, unknown>} {
  if (err instanceof ApiError) return {code: err.exitCode, line: err.describe(), json: err.toJSON()}
  if (err instanceof PayopsError) return {code: err.exitCode, line: err.message, json: err.toJSON()}
  const e = err as Error & {oclif?: {exit?: number}}
  if (e && typeof e === 'object' && e.oclif && typeof e.oclif.exit === 'number') {
    const parts = String(e.message ?? 'invalid usage')
      .split('\n')
      .map((s) => s.trim())
      .filter((s) => s && !/^See more help with/.test(s))
    const line = `${parts.join(' ').replace(/:\s+/g, ': ').replace(/\s{2,}/g, ' ')} (see --help)`
    const code = (e.oclif.exit === 2 || e.oclif.exit === 1 ? ExitCode.USAGE : e.oclif.exit) as ExitCodeValue
    return {code, line, json: {type: 'UsageError', message: line, exit_code: code}}
  }
  const message = e instanceof Error ? e.message : String(err)
  return {
    code: ExitCode.UNEXPECTED,
    line: `Unexpected error: ${message.split('\n')[0]} (run with --debug for details)`,
    json: {type: 'UnexpectedError', message, exit_code: ExitCode.UNEXPECTED},
  }
}

export interface MutationSummary {
  /** `Move 12.34 USD` */
  action: string
  amount?: string
  from?: string
  to?: string
  details?: Record<string, string | undefined>
}

/**
 * The API areas each topic's commands use, so that a command loads only their schemas; a topic
 * not listed gets every area.
 */
const AREAS_BY_TOPIC: Record<string, readonly ApiArea[]> = {
  api: ['raw'],
  subaccounts: ['subaccounts'],
  moves: ['moves', 'subaccounts'],
  payers: ['payers'],
  payees: ['payees'],
  payins: ['payins'],
  tokens: ['tokens'],
  treasury: ['treasury'],
  transfers: ['transfers', 'treasury'],
  webhooks: ['webhooks'],
}

function areasFor(commandId: string | undefined): readonly ApiArea[] | undefined {
  const topic = commandId?.split(/[: ]/)[0]
  return topic ? AREAS_BY_TOPIC[topic] : undefined
}

/** A command that talks to the API: profile, key, base URL and client, resolved once. */
export abstract class ApiCommand<T extends typeof Command> extends BaseCommand<T> {
  static override baseFlags = {
    ...BaseCommand.baseFlags,
    profile: Flags.string({char: 'p', summary: 'Profile to use (PAYOPS_PROFILE; default: the active profile).', helpGroup: GLOBAL}),
    'api-key': Flags.string({summary: 'API key (PAYOPS_API_KEY). Prefer the environment or a profile: flags show in `ps`.', helpGroup: GLOBAL}),
    'base-url': Flags.string({summary: 'API base URL (PAYOPS_BASE_URL).', helpGroup: GLOBAL}),
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

  declare protected flags: ApiFlags<T>
  /** Bulk work (following a whole list, an import) uses the undici pool; one-shot commands Node's fetch. */
  protected get transportKind(): 'fetch' | 'pool' {
    return (this.flags as {all?: boolean}).all ? 'pool' : 'fetch'
  }
  private _api?: Api
  private _ctx?: ResolvedContext

  protected get context(): ResolvedContext {
    if (!this._ctx) {
      const f = this.flags as {profile?: string; 'api-key'?: string; 'base-url'?: string}
      this._ctx = resolveContext(f, process.env, readProfiles(configDir()))
      if (this._ctx.key.source === 'flag') {
        this.out.note('Note: --api-key is visible to other users in the process list; prefer PAYOPS_API_KEY, a profile or `profiles add --key-stdin`.')
      }
      if (this._ctx.envKeyOverridesProfile) {
        this.out.note(`Note: using the API key from PAYOPS_API_KEY (${redactKey(this._ctx.apiKey)}), not the one of profile "${this._ctx.profileName}".`)
      }
      if (this.debugOn) {
        const c = this._ctx
        process.stderr.write(`[debug] profile: ${c.profileName ?? '(none)'} (${c.profileProvenance.detail}); key: ${redactKey(c.apiKey)} (${c.key.detail}); base URL: ${c.baseUrl ?? '(none)'} (${c.baseUrlProvenance.detail})\n`)
      }
    }
    return this._ctx
  }

  protected get isLive(): boolean {
    return this.context.mode === 'live'
  }

  protected async api(): Promise<Api> {
    if (!this._api) {
      const ctx = this.context
      if (!ctx.apiKey) {
        throw new AuthError(
          'No API key: set PAYOPS_API_KEY, pass --api-key, or add a profile (`payops profiles add NAME`, or `payops emulator start --write-profile NAME` for the local emulator).',
        )
      }
      if (!ctx.baseUrl) {
        throw new UsageError('No base URL: set PAYOPS_BASE_URL, pass --base-url, or save one in the profile (`payops profiles add NAME --base-url URL`).')
      }
      const f = this.flags as {timeout: number; 'max-retries': number}
      // Tables mark a LIVE profile, so that production data is never mistaken for sandbox.
      if (this.isLive && !this.out.machine) this.out.note(`${this.out.paint.live(' LIVE ')} profile ${ctx.profileName ?? '(none)'} · ${ctx.baseUrl}`)
      const {Api} = await import('./api/index.js')
      this._api = await Api.create({
        baseUrl: ctx.baseUrl,
        apiKey: ctx.apiKey,
        timeoutMs: f.timeout * 1000,
        maxRetries: f['max-retries'],
        userAgent: `payops/${this.config.version}`,
        trace: this.debugOn ? (line) => process.stderr.write(`[debug] ${line}\n`) : undefined,
        audit: this.auditHook(),
        transport: this.transportKind,
      }, areasFor(this.id))
    }
    return this._api
  }

  /** Appends intent and outcome records of every mutating request to the audit trail. */
  private auditHook(): AuditHook {
    const dir = configDir()
    const ctx = this.context
    let log: Promise<import('./audit/index.js').AuditLog> | undefined
    const open = () => (log ??= import('./audit/index.js').then((m) => new m.AuditLog(dir)))
    const base = {profile: ctx.profileName ?? null, mode: ctx.mode}
    return {
      intent: async (info) => {
        try {
          await (await open()).append({kind: 'intent', ...base, ...info})
        } catch (err) {
          // A broken trail (AuditTrailError, exit 1) passes through with its fix.
          const {AuditTrailError} = await import('./audit/index.js')
          if (err instanceof AuditTrailError) throw new AuditTrailError(`Nothing was sent: ${err.message}`)
          throw new UsageError(`Cannot write the audit trail in ${dir} (${(err as Error).message}); nothing was sent.`)
        }
      },
      outcome: async (info) => {
        try {
          await (await open()).append({kind: 'outcome', ...base, ...info})
        } catch (err) {
          this.out.warn(`could not record the outcome in the audit trail: ${(err as Error).message}`)
        }
      },
    }
  }

  public override async finally(err: Error | undefined): Promise<void> {
    await this._api?.close().catch(() => undefined)
    return super.finally(err)
  }

  /**
   * Every mutating command calls this before sending. On a LIVE key it shows the summary and asks;
   * without a terminal it refuses (exit 3) unless --yes.
   */
  protected async confirmMutation(summary: MutationSummary, opts: {evenOnTest?: boolean} = {}): Promise<void> {
    await guard([{summary, checks: [], plainConfirm: true, evenOnTest: opts.evenOnTest}], await this.guardPorts())
  }

  /** Flags of commands that move money. */
  static guardFlags = {
    'override-limits': Flags.boolean({summary: 'Proceed despite the profile\'s limits (always asks; without a terminal also needs --yes).'}),
  }

  /** How the movement guard asks on this terminal. */
  private get prompter(): Prompter {
    return {
      interactive: this.interactive,
      confirm: (message) => this.ask(message),
      input: async (message) => {
        const {input} = await import('@inquirer/prompts')
        try {
          return await input({message}, {output: process.stderr})
        } catch {
          return ''
        }
      },
      note: (text) => this.out.note(text),
    }
  }

  /** Everything the movement pipeline needs, from this command's profile, flags and terminal. */
  protected async movementPorts(kinds: readonly MovementKind[]): Promise<MovementPorts> {
    const api = await this.api()
    const {AREAS_FOR_KIND} = await import('./movements/index.js')
    await api.load([...new Set(kinds.flatMap((k) => AREAS_FOR_KIND[k]))])
    const {auditHistory} = await import('./movements/history.js')
    const f = this.flags as {yes?: boolean; 'override-limits'?: boolean}
    return {
      api,
      audit: this.auditHook(),
      history: auditHistory(configDir()),
      prompter: this.prompter,
      paint: this.out.paint,
      profile: {name: this.context.profileName ?? null, live: this.isLive, limits: this.context.profile?.limits, keyLabel: redactKey(this.context.apiKey)},
      yes: Boolean(f.yes),
      overrideLimits: Boolean(f['override-limits']),
      newKey: () => randomUUID(),
    }
  }

  /** Runs one money request through the movement pipeline (plan, guard, send, classify, record). */
  protected async movement(request: MovementRequest): Promise<Outcome> {
    const ports = await this.movementPorts([request.kind])
    const {runMovement} = await import('./movements/index.js')
    return runMovement(request, ports, (p) => {
      if (p.keyGenerated && !this.out.machine) this.out.note(this.out.paint.dim(`Idempotency-Key: ${p.idempotencyKey}  (re-run with --idempotency-key ${p.idempotencyKey} to retry safely)`))
    })
  }

  /**
   * Renders a movement's outcome: the resource on stdout, then on stderr one JSON line
   * `{"outcome":{...}}` in machine formats or the outcome's sentence on a terminal; a warning
   * goes to stderr, and a 207 ends with exit 6.
   */
  protected async renderOutcome(o: Outcome, columns: Column[], known?: Column[], resource: Record<string, unknown> = o.resource): Promise<void> {
    await this.out.resource(resource, columns, known)
    this.out.outcome({kind: o.kind, id: o.id, idempotency_key: o.idempotency_key, status: o.status}, o.sentence)
    if (o.warning || o.partial) this.out.warn(o.warning ?? 'the API reported a partial success')
    if (o.partial) throw new PartialError(`${o.sentence}`)
  }

  /**
   * Several money requests with one confirmation (moves approve ID...): each one's outcome line,
   * then a result table; exit 0 when all went through, 6 when some did not.
   */
  protected async movementBatch(requests: MovementRequest[], opts: GuardOptions, verb: string): Promise<void> {
    const ports = await this.movementPorts([...new Set(requests.map((r) => r.kind))])
    const {runMovements} = await import('./movements/index.js')
    const settled = await runMovements(requests, ports, opts)
    const results: ItemResult[] = []
    const codes: ExitCodeValue[] = []
    for (const s of settled) {
      const id = 'id' in s.request ? s.request.id : ''
      if ('outcome' in s) {
        const o = s.outcome
        this.out.outcome({kind: o.kind, id: o.id, idempotency_key: o.idempotency_key, status: o.status}, o.sentence)
        if (o.warning) this.out.warn(`${o.id}: ${o.warning}`)
        results.push({id, result: o.partial ? 'partial' : 'ok', move: o.resource, warning: o.warning, message: o.warning ?? ''})
        codes.push(o.partial ? ExitCode.PARTIAL : ExitCode.OK)
      } else {
        const e = s.error
        results.push({id, result: 'error', message: e instanceof ApiError ? e.describe() : e.message, error: e.toJSON()})
        codes.push(e.exitCode)
      }
    }
    await this.out.list(results, RESULT_COLUMNS)
    new BulkReport(results, codes).throwIfFailed(verb)
  }

  /**
   * Confirms a batch of money movements with one summary (bulk commands): the profile's limits,
   * then the LIVE or override confirmation, through the movement guard.
   */
  protected async confirmMovement(summary: MutationSummary, movements: Movement[], typed: string, opts: {evenOnTest?: boolean} = {}): Promise<void> {
    const ports = await this.guardPorts()
    await guard([{summary, checks: movements, typed, evenOnTest: opts.evenOnTest}], ports)
  }

  /** Every limit the movements break (for bulk commands that list them all). */
  protected limitReport(movements: Movement[]): string[] {
    const profile = this.context.profileName ?? '(no profile)'
    return movements.flatMap((m) => limitViolations(this.context.profile?.limits, m, profile))
  }

  private async guardPorts(): Promise<MovementPorts> {
    const f = this.flags as {yes?: boolean; 'override-limits'?: boolean}
    return {
      api: undefined as never,
      history: {byKey: () => undefined, byResource: () => undefined},
      prompter: this.prompter,
      paint: this.out.paint,
      profile: {name: this.context.profileName ?? null, live: this.isLive, limits: this.context.profile?.limits, keyLabel: redactKey(this.context.apiKey)},
      yes: Boolean(f.yes),
      overrideLimits: Boolean(f['override-limits']),
      newKey: () => randomUUID(),
    }
  }

  /** List options from the shared list flags. */
  protected listOptions(): {limit?: number; order?: 'asc' | 'desc'; paginate: PaginateOptions} {
    const f = this.flags as {limit?: number; cursor?: string; order?: 'asc' | 'desc'; all?: boolean; 'max-items'?: number}
    let last: Page<unknown> | undefined
    const paginate: PaginateOptions = {
      cursor: f.cursor,
      all: f.all || f['max-items'] !== undefined,
      maxItems: f['max-items'],
      onPage: (page) => {
        last = page
      },
    }
    this.lastPage = () => last
    return {limit: f.limit, order: f.order, paginate}
  }

  private lastPage: () => Page<unknown> | undefined = () => undefined

  /** Renders a list and, on a terminal, hints at the next cursor on stderr. */
  protected async renderList(items: AsyncIterable<Record<string, unknown>>, columns: Column[], known?: Column[]): Promise<void> {
    await this.out.list(items, columns, known)
    const f = this.flags as {all?: boolean}
    const page = this.lastPage()
    if (!f.all && page?.hasMore && page.nextCursor && !this.out.machine) {
      this.out.note(this.out.paint.dim(`More items: --cursor ${page.nextCursor} (or --all)`))
    }
  }

  /** Reads ids from argv, or one per line from stdin when the only argument is `-`. */
  protected async idsFromArgv(argv: string[]): Promise<string[]> {
    let ids = argv
    if (argv.length === 1 && argv[0] === '-') {
      ids = (await readStdin()).toString('utf8').split(/[\s,]+/)
    }
    ids = ids.map((s) => s.trim()).filter(Boolean)
    if (ids.length === 0) throw new UsageError('Give at least one id (or - to read ids from stdin).')
    return [...new Set(ids)]
  }
}

export {ExitCode}
