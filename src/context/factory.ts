/**
 * Builds the command context of a real run from the command's flags and the process: the profile
 * resolved once (flag > environment > profile, with the notes that make a stray key visible), the
 * API client with its audit hook, the terminal prompter and the movement pipeline's ports.
 */
import type {Api, ApiArea} from '../api/index.js'
import type {AuditHook} from '../api/client.js'
import {keyIdOf, markedHeaders, redact, redactKey, redactUrl} from '../api/redact.js'
import {currentOperator} from '../config/identity.js'
import {configDir as defaultConfigDir, readProfiles} from '../config/index.js'
import {NameBook} from '../config/names.js'
import {resolveContext, type ResolvedContext} from '../config/resolve.js'
import {AuthError, UsageError} from '../errors.js'
import type {Output} from '../output/index.js'
import {terminalLines} from '../output/safe.js'
import {TRAIL_FILE} from '../audit/schema.js'
import {ProfileStore} from '../config/index.js'
import {readAll} from '../files.js'
import {join} from 'node:path'
import {host as currentHost, stopSignal} from './host.js'
import type {AuditReader, CommandContext, IOStreams} from './index.js'
import {terminalPrompter} from './prompter.js'
import {bindNetwork, redactProxyUrl} from '../net.js'

export interface ConnectionFlags {
  profile?: string
  'api-key'?: string
  'base-url'?: string
  proxy?: string
  timeout?: number
  'max-retries'?: number
}

export interface FactoryOptions {
  out: Output
  flags: ConnectionFlags
  io?: IOStreams
  debug?: boolean
  userAgent: string
  /** `http` for one-shot commands, `pool` for bulk ones. */
  transport?: () => 'http' | 'pool'
}

export function processContext(opts: FactoryOptions): CommandContext {
  const host = currentHost()
  const io = opts.io ?? host.io
  const out = opts.out
  const dir = defaultConfigDir(io.env)
  const trace = opts.debug ? (line: string) => io.stderr.write(terminalLines(`[debug] ${redact(line)}`)) : undefined
  let resolved: ResolvedContext | undefined
  let api: Promise<Api> | undefined
  const names = new NameBook(dir)

  const profile = (): ResolvedContext => (resolved ??= noteResolved(resolveContext(opts.flags, io.env, readProfiles(dir)), out, trace))

  // The trail's hook (its code, the operator, the key's id) is made on the first mutating request: a read needs none of it.
  let hook: Promise<AuditHook> | undefined
  const made = (): Promise<AuditHook> =>
    (hook ??= import('../audit/hook.js').then(({auditHook}) => {
      const r = profile()
      return auditHook(dir, {profile: r.profileName ?? null, mode: r.mode, key_id: keyIdOf(r.apiKey), ...currentOperator(r.profile?.operator_name)}, (line) => out.warn(line))
    }))
  const lazyAudit: AuditHook = {intent: async (info, check) => (await made()).intent(info, check), outcome: async (info, o) => (await made()).outcome(info, o), drain: async () => (await hook)?.drain?.()}
  // With a team store, the team's book of names is taken in for what is shown to a person (awaited at the end).
  const build = (): Promise<Api> => buildApi(profile(), opts, io, trace, lazyAudit, () => void (opts.out.machine || names.joinTeam(ctx)))

  // Requests made outside the API client (webhook forwarding, trigger, watch --post) take the same
  // way out: the run's proxy and CAs, its environment's alone when its profile cannot be resolved.
  bindNetwork(host, () => {
    try {
      return profile().network
    } catch {
      return {env: io.env}
    }
  })

  let profiles: ProfileStore | undefined
  const ctx: CommandContext = {
    io,
    readStdin: () => readAll(io.stdin),
    profiles: () => (profiles ??= new ProfileStore(dir)),
    auditTrail: () => auditReader(dir),
    out,
    prompter: terminalPrompter(io, (text) => out.note(text), host.prompter),
    clock: host.clock,
    configDir: dir,
    names,
    get profile() {
      return profile()
    },
    get isLive() {
      return profile().mode === 'live'
    },
    async api(areas: readonly ApiArea[] = []) {
      const a = await (api ??= build())
      await a.load(areas)
      if (!out.machine) await names.joinTeam(ctx)
      return a
    },
    audit: () => lazyAudit,
    stopSignal: () => stopSignal(host),
    onInterrupt: (handler) => host.onInterrupt(handler),
    exitNow: (code) => host.exitNow(code),
    async close() {
      // What this command learnt, into the book (this machine's, then the team's); a failure loses nothing.
      await names.close(ctx).catch(() => undefined)
      if (api) await (await api.catch(() => undefined))?.close().catch(() => undefined)
      // Every audit record committed and the trail's store closed before the command ends.
      await lazyAudit.drain?.().catch(() => undefined)
    },
  }
  return ctx
}

/** The trail's reader, its code loaded when an audit command asks for it. */
async function auditReader(dir: string): Promise<AuditReader> {
  const {exportAudit, readAudit, readAuditHead, verifyAudit, verifyExport} = await import('../audit/index.js')
  return {
    dir,
    location: join(dir, TRAIL_FILE),
    records: () => readAudit(dir),
    export: (write) => exportAudit(dir, write),
    verifyFile: (file, o) => verifyExport(file, o),
    head: () => readAuditHead(dir),
    verify: (o) => verifyAudit(dir, o),
  }
}

/** The notes that make a stray key or a visible credential seen, and the debug trace of what was resolved. */
function noteResolved(r: ResolvedContext, out: Output, trace: ((line: string) => void) | undefined): ResolvedContext {
  if (r.key.source === 'flag') {
    out.note('Note: --api-key is visible to other users in the process list; prefer PAYOPS_API_KEY, a profile or `profiles add --key-stdin`.')
  }
  if (r.network.proxySource === '--proxy' && /\/\/[^/@]*@/.test(r.network.proxy ?? '')) {
    out.note('Note: credentials in --proxy are visible to other users in the process list; prefer HTTPS_PROXY or `payops profiles set NAME proxy URL`.')
  }
  if (r.envKeyOverridesProfile) out.note(`Note: using the API key from PAYOPS_API_KEY (${redactKey(r.apiKey)}), not the one of profile "${r.profileName}".`)
  trace?.(`profile: ${r.profileName ?? '(none)'} (${r.profileProvenance.detail}); key: ${redactKey(r.apiKey)} (${r.key.detail}); base URL: ${redactUrl(r.baseUrl)} (${r.baseUrlProvenance.detail})${r.network.proxy ? `; proxy: ${redactProxyUrl(r.network.proxy)} (${r.network.proxySource})` : ''}${r.network.caFile ? `; ca-file: ${r.network.caFile}` : ''}`)
  return r
}

/** The API client of the resolved profile (no key, no base URL: the one-line error that says how to give one). */
async function buildApi(r: ResolvedContext, opts: FactoryOptions, io: IOStreams, trace: ((line: string) => void) | undefined, audit: AuditHook, built: () => void): Promise<Api> {
  const out = opts.out
  const host = currentHost()
  if (!r.apiKey && r.profile?.team_database_url) {
    throw new AuthError(`No API key: profile "${r.profileName}" is a team member's without the key, and this command needs it. Money requests (\`moves create\`, \`transfers create\`, \`moves import\`) are recorded in the team store for a checker and the worker; \`approvals review req-N\` and \`approvals show\` work without the key.`)
  }
  if (!r.apiKey) {
    throw new AuthError(
      'No API key: set PAYOPS_API_KEY, pass --api-key, or add a profile (`payops profiles add NAME`, or `payops emulator start --write-profile NAME` for the local emulator).',
    )
  }
  if (!r.baseUrl) throw new UsageError('No base URL: set PAYOPS_BASE_URL, pass --base-url, or save one in the profile (`payops profiles add NAME --base-url URL`).')
  // Tables mark a LIVE profile, so that production data is never mistaken for sandbox.
  if (r.mode === 'live' && !out.machine) out.note(`${out.paint.live(' LIVE ')} profile ${r.profileName ?? '(none)'} · ${redactUrl(r.baseUrl)}`)
  const {Api} = await import('../api/index.js')
  built()
  return Api.create(
    {
      baseUrl: r.baseUrl,
      apiKey: r.apiKey,
      timeoutMs: (opts.flags.timeout ?? 30) * 1000,
      maxRetries: opts.flags['max-retries'] ?? 2,
      userAgent: opts.userAgent,
      trace,
      redactHeaders: markedHeaders(io.env),
      audit,
      transport: opts.transport?.() ?? 'http',
      sleep: host.clock.sleep,
      network: r.network,
    },
    [],
  )
}
