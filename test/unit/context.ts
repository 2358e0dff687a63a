/**
 * A command context made of fakes, for in-process tests of a command's `run(opts, ctx)`: captured
 * stdout and stderr, a scripted prompter, a controllable clock and stop signal, a fake API.
 */
import {PassThrough} from 'node:stream'
import {join} from 'node:path'
import type {Api, ApiArea} from '../../src/api/index.js'
import type {AuditInfo, AuditOutcome} from '../../src/api/client.js'
import type {Limits} from '../../src/config/index.js'
import type {ResolvedContext} from '../../src/config/resolve.js'
import type {CommandContext} from '../../src/context/index.js'
import type {Prompter} from '../../src/context/index.js'
import {Output, type Format} from '../../src/output/index.js'
import {exportAudit, readAudit, readAuditHead, TRAIL_FILE, verifyAudit, verifyExport} from '../../src/audit/index.js'
import {ProfileStore} from '../../src/config/index.js'
import {defaultConfigDir} from '../support/env.js'
import {readAll} from '../../src/files.js'

/** The parts of the API a test provides: any area, any of its methods. */
export type ApiDouble = {[K in ApiArea]?: Partial<Api[K]>} & {client?: Partial<Api['client']>}

/**
 * A typed API double: the areas and methods given, and a clear failure for anything else the
 * code under test reaches for (so a test never passes by touching an API it did not expect).
 */
export function apiDouble(parts: ApiDouble): Api {
  const missing = (what: string) => {
    throw new Error(`The test's API double has no ${what}.`)
  }
  return new Proxy({} as Api, {
    get(_target, area) {
      if (typeof area !== 'string' || area === 'then') return undefined
      if (area === 'load') return async () => undefined
      if (area === 'close') return async () => undefined
      const part = (parts as Record<string, object | undefined>)[area]
      if (area === 'client' && part) return part
      if (!part) return missing(`"${area}" area`)
      return new Proxy(part, {
        get(target, method) {
          if (typeof method !== 'string' || method in target) return (target as Record<string | symbol, unknown>)[method]
          return missing(`method "${area}.${method}"`)
        },
      })
    },
  })
}

export interface TestContextOptions {
  api?: ApiDouble
  format?: Format
  live?: boolean
  limits?: Limits
  /** stdin and stderr are terminals (the prompter asks). */
  interactive?: boolean
  /** Answers the prompter gives, in order (confirm: 'y' is yes). */
  answers?: string[]
  stdin?: string
  configDir?: string
  columns?: string[]
  query?: string
  /** What the checkbox prompt picks (default: everything offered). */
  select?: (choices: Array<{value: string; name: string}>) => string[]
  stdoutIsTTY?: boolean
  /** stdin is a terminal (default: as `interactive`). */
  stdinIsTTY?: boolean
  env?: NodeJS.ProcessEnv
}

export interface TestContext {
  ctx: CommandContext
  stdout(): string
  stderr(): string
  asked: string[]
  audit: Array<{kind: 'intent' | 'outcome'; info: AuditInfo | AuditOutcome}>
  /** Delivers a stop signal (Ctrl-C). */
  stop(): void
  /** Milliseconds the fake clock slept in total. */
  slept(): number
  /** Codes passed to exitNow (a second Ctrl-C). */
  exits: number[]
}

export function testContext(o: TestContextOptions = {}): TestContext {
  const out = new PassThrough()
  const err = new PassThrough()
  let stdoutText = ''
  let stderrText = ''
  out.on('data', (d) => (stdoutText += d))
  err.on('data', (d) => (stderrText += d))
  const stdin = new PassThrough()
  stdin.end(o.stdin ?? '')
  const answers = [...(o.answers ?? [])]
  const asked: string[] = []
  const audit: TestContext['audit'] = []
  const output = new Output({format: o.format ?? 'json', color: false, stdout: out, stderr: err, columns: o.columns, query: o.query})
  const prompter: Prompter = {
    interactive: o.interactive ?? false,
    confirm: async (m) => {
      asked.push(m)
      return answers.shift() === 'y'
    },
    input: async (m) => {
      asked.push(m)
      return answers.shift() ?? ''
    },
    password: async (m) => {
      asked.push(m)
      return answers.shift() ?? ''
    },
    note: (t) => output.note(t),
    select: async (m, choices) => {
      asked.push(m)
      const pick = o.select ?? ((c: Array<{value: string}>) => c.map((x) => x.value))
      return pick(choices)
    },
  }
  let now = Date.parse('2026-11-23T12:00:00Z')
  let slept = 0
  let stop: () => void = () => undefined
  let interrupt: ((count: number) => void) | undefined
  let interrupts = 0
  const exits: number[] = []
  const stopped = new Promise<void>((resolve) => (stop = resolve))
  const profile: ResolvedContext = {
    profileName: 'test-profile',
    profileProvenance: {source: 'profile', detail: 'active profile'},
    profile: {api_key: o.live ? 'live_fake_key_0000' : 'test_fake_key_0000', base_url: 'http://127.0.0.1:9', limits: o.limits},
    apiKey: o.live ? 'live_fake_key_0000' : 'test_fake_key_0000',
    key: {source: 'profile', detail: 'profile "test-profile"'},
    baseUrl: 'http://127.0.0.1:9',
    baseUrlProvenance: {source: 'profile', detail: 'profile "test-profile"'},
    network: {env: {}},
    mode: o.live ? 'live' : 'test',
    envKeyOverridesProfile: false,
    limitSets: o.limits ? [{profile: 'test-profile', limits: o.limits}] : [],
  }
  const auditHook = {
    intent: async (info: AuditInfo) => void audit.push({kind: 'intent', info}),
    outcome: async (info: AuditOutcome) => void audit.push({kind: 'outcome', info}),
  }
  const api = apiDouble(o.api ?? {})
  // A config dir of this test file's own (removed after it): whatever a command writes there stays in the temp dir.
  const configDir = o.configDir ?? defaultConfigDir()
  const ctx: CommandContext = {
    readStdin: () => readAll(stdin),
    profiles: () => new ProfileStore(configDir),
    auditTrail: async () => ({
      dir: configDir,
      location: join(configDir, TRAIL_FILE),
      records: () => readAudit(configDir),
      export: (write) => exportAudit(configDir, write),
      verifyFile: (file, v) => verifyExport(file, v),
      head: () => readAuditHead(configDir),
      verify: (v) => verifyAudit(configDir, v),
    }),
    io: {stdout: out, stderr: err, stdin, stdinIsTTY: o.stdinIsTTY ?? Boolean(o.interactive), stdoutIsTTY: Boolean(o.stdoutIsTTY), stderrIsTTY: Boolean(o.interactive), env: o.env ?? {}},
    out: output,
    prompter,
    clock: {
      now: () => now,
      sleep: async (ms) => {
        now += ms
        slept += ms
      },
    },
    configDir,
    names: (() => {
      const book = new Map<string, string>()
      return {get: (id: string) => book.get(id), remember: (id: string | null | undefined, name: string | null | undefined) => void (id && name && book.set(id, name))}
    })(),
    profile,
    isLive: Boolean(o.live),
    api: async () => api,
    audit: () => auditHook,
    stopSignal: () => stopped,
    onInterrupt: (handler) => {
      interrupt = handler
      return () => (interrupt = undefined)
    },
    exitNow: (code) => exits.push(code),
    close: async () => undefined,
  }
  return {
    ctx,
    stdout: () => stdoutText,
    stderr: () => stderrText,
    asked,
    audit,
    stop: () => {
      stop()
      interrupt?.(++interrupts)
    },
    slept: () => slept,
    exits,
  }
}
