/**
 * The command context: everything a command uses from the world — IO streams (with their TTY
 * state), the output renderer, the prompter, the clock, the config dir, the resolved profile and
 * the API — handed to it from one place. `processContext()` builds it from the process; tests build
 * one from fakes (`test/unit/context.ts`) and call a command's `run(opts, ctx)` in-process, as gh's
 * Factory does.
 */
import type {Api, ApiArea} from '../api/index.js'
import type {AuditHook} from '../api/client.js'
import type {ResolvedContext} from '../config/resolve.js'
import type {Output} from '../output/index.js'
import type {AuditHead, AuditRecord, HeadState, VerifyOptions, VerifyResult} from '../audit/index.js'
import type {ProfileStore} from '../config/index.js'
import type {NameKind} from '../config/name-kind.js'

/** How a command asks the operator (a terminal's prompts); a fake in tests. */
export interface Prompter {
  /** A terminal to ask on (stdin and stderr are TTYs). */
  readonly interactive: boolean
  confirm(message: string): Promise<boolean>
  input(message: string): Promise<string>
  /** A secret (an API key), not echoed; '' without a terminal. */
  password(message: string): Promise<string>
  /** Picks any number of choices (a checkbox list); the values chosen. */
  select?(message: string, choices: Array<{value: string; name: string}>): Promise<string[]>
  /** A line on stderr, or lines given as an array (text from outside in them is escaped). */
  note(text: string | readonly string[]): void
}

export type {Clock, IOStreams} from './host.js'
import type {Clock, IOStreams} from './host.js'

/** Names of ids payops has seen (subaccount names, treasury labels), kept in the config dir. */
export interface Names {
  get(id: string): string | undefined
  /** `kind`: what the id is, where the caller knows it (shell completion offers ids by kind). */
  remember(id: string | null | undefined, name: string | null | undefined, kind?: NameKind): void
}

/** The audit trail of this config dir, for reading (the API's audit hook appends). */
export interface AuditReader {
  readonly dir: string
  /** Where its records are kept (the store's file). */
  readonly location: string
  records(): AuditRecord[]
  head(): HeadState
  /** The store's own chain, checked against its head. */
  verify(opts?: VerifyOptions): VerifyResult
  /** An exported file (`audit export --format jsonl`), checked. */
  verifyFile(file: string, opts?: VerifyOptions): VerifyResult
  /** The chain as JSON lines and its head line, a piece at a time; returns the head. */
  export(write: (text: string) => void): AuditHead
}

export interface CommandContext {
  io: IOStreams
  /** Everything on stdin. */
  readStdin(): Promise<Buffer>
  /** The profile file of this config dir. */
  profiles(): ProfileStore
  /** The audit trail of this config dir. */
  auditTrail(): Promise<AuditReader>
  out: Output
  prompter: Prompter
  clock: Clock
  /** Where profiles, the audit trail and local state live (PAYOPS_CONFIG_DIR). */
  configDir: string
  names: Names
  /** The profile, key and base URL, with where each came from (resolved on first use). */
  readonly profile: ResolvedContext
  readonly isLive: boolean
  /** The API with the given areas loaded (the client is built once). */
  api(areas?: readonly ApiArea[]): Promise<Api>
  /** Records every mutating request (the audit trail). */
  audit(): AuditHook
  /** Resolves on the first SIGINT or SIGTERM. Call it before printing anything long-running. */
  stopSignal(): Promise<void>
  /** Calls `handler` with the count on every SIGINT or SIGTERM until the returned function is called. */
  onInterrupt(handler: (count: number) => void): () => void
  /** Ends the process at once (a second Ctrl-C); tests record the code instead. */
  exitNow(code: number): void
  /** Closes what was opened (the API's connections). */
  close(): Promise<void>
}

