/**
 * The command context: everything a command uses from the world — IO streams (with their TTY
 * state), the output renderer, the prompter, the clock, the config dir, the resolved profile and
 * the API — handed to it from one place. `processContext()` builds it from the process; tests build
 * one from fakes (`test/unit/context.ts`) and call a command's `run(opts, ctx)` in-process, as gh's
 * Factory does.
 */
import type {Readable, Writable} from 'node:stream'
import type {Api, ApiArea} from '../api/index.js'
import type {AuditHook} from '../api/client.js'
import type {ResolvedContext} from '../config/resolve.js'
import type {MovementKind, MovementPorts, Prompter} from '../movements/types.js'
import type {Output} from '../output/index.js'

export interface IOStreams {
  stdout: Writable
  stderr: Writable
  stdin: Readable
  stdinIsTTY: boolean
  stdoutIsTTY: boolean
  stderrIsTTY: boolean
  env: NodeJS.ProcessEnv
}

export interface Clock {
  now(): number
  sleep(ms: number): Promise<void>
}

export interface CommandContext {
  io: IOStreams
  out: Output
  prompter: Prompter
  clock: Clock
  /** Where profiles, the audit trail and local state live (PAYOPS_CONFIG_DIR). */
  configDir: string
  /** The profile, key and base URL, with where each came from (resolved on first use). */
  readonly profile: ResolvedContext
  readonly isLive: boolean
  /** The API with the given areas loaded (the client is built once). */
  api(areas?: readonly ApiArea[]): Promise<Api>
  /** Records every mutating request (the audit trail). */
  audit(): AuditHook
  /** What the movement pipeline needs, for these kinds of movement. */
  movementPorts(kinds: readonly MovementKind[], flags: {yes?: boolean; overrideLimits?: boolean}): Promise<MovementPorts>
  /** Resolves on the first SIGINT or SIGTERM. Call it before printing anything long-running. */
  stopSignal(): Promise<void>
  /** Calls `handler` with the count on every SIGINT or SIGTERM until the returned function is called. */
  onInterrupt(handler: (count: number) => void): () => void
  /** Ends the process at once (a second Ctrl-C); tests record the code instead. */
  exitNow(code: number): void
  /** Closes what was opened (the API's connections). */
  close(): Promise<void>
}

/** The process's own streams. */
export function processIO(): IOStreams {
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    stdinIsTTY: Boolean(process.stdin.isTTY),
    stdoutIsTTY: Boolean(process.stdout.isTTY),
    stderrIsTTY: Boolean(process.stderr.isTTY),
    env: process.env,
  }
}

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
}

/** Resolves on the first SIGINT or SIGTERM of this process. */
export function processStopSignal(): Promise<void> {
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

/** Every SIGINT or SIGTERM of this process, counted, until unsubscribed. */
export function processInterrupts(handler: (count: number) => void): () => void {
  let count = 0
  const on = () => handler(++count)
  process.on('SIGINT', on)
  process.on('SIGTERM', on)
  return () => {
    process.off('SIGINT', on)
    process.off('SIGTERM', on)
  }
}

/** `payops … | head`: a reader that went away ends the process quietly, with the exit code so far. */
export function endQuietlyOnClosedPipe(): void {
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0)
  })
}

export function processExitNow(code: number): void {
  process.exit(code)
}
