/**
 * The host a command runs in: the process's streams, environment, terminal, clock, signals and
 * exit code. This module is the one place of payops that touches `process` for them (lint forbids
 * the rest). A real run uses the process itself; `runWithHost` runs a command line against another
 * host (in-process tests: captured streams, a given environment and terminal, a fake clock, Ctrl-C
 * delivered by hand), through exactly the dispatch a real process takes. Runs with different hosts
 * may overlap: each async chain sees its own host.
 */
import {AsyncLocalStorage} from 'node:async_hooks'
import {isatty} from 'node:tty'
import type {Readable, Writable} from 'node:stream'

export interface IOStreams {
  stdout: Writable
  stderr: Writable
  stdin: Readable
  stdinIsTTY: boolean
  stdoutIsTTY: boolean
  stderrIsTTY: boolean
  /** The terminal's width in columns, when stdout is one. */
  columns?: number
  env: NodeJS.ProcessEnv
}

export interface Clock {
  now(): number
  sleep(ms: number): Promise<void>
}

/** A terminal prompter made by the host (tests script the answers); see context/prompter.ts. */
export interface HostPrompter {
  confirm(message: string): Promise<boolean>
  input(message: string): Promise<string>
  /** A secret (an API key): not echoed. */
  password(message: string): Promise<string>
  select(message: string, choices: Array<{value: string; name: string}>): Promise<string[]>
}

export interface Host {
  io: IOStreams
  clock: Clock
  /** The command line after the program's name. */
  argv: string[]
  /** The exit code so far (undefined: 0). */
  exitCode: number | undefined
  /** Ends the run at once with this code (a second Ctrl-C). */
  exitNow(code: number): void
  /** Calls `handler` with the count on every SIGINT or SIGTERM until the returned function is called. */
  onInterrupt(handler: (count: number) => void): () => void
  /** `payops … | head`: a reader that went away ends the run quietly with the exit code so far. */
  endQuietlyOnClosedPipe(): void
  /** Prompts answered by the host instead of a terminal (tests); undefined: the terminal's. */
  prompter?: HostPrompter
}

/** NODE_EXTRA_CA_CERTS as the process started: Node has applied it to its own TLS already. */
export const STARTUP_EXTRA_CA_CERTS: string | undefined = process.env.NODE_EXTRA_CA_CERTS?.trim() || undefined

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
}

let pipeWatched = false

/**
 * A write past the process's file-size limit (`ulimit -f`) fails with EFBIG, as one on a full disk
 * fails with ENOSPC, and the audit trail's store rolls that transaction back: without a listener
 * of payops' own, SIGXFSZ would end the process in the middle of the write (and the lock
 * library's exit handler re-raises it when it is the only listener).
 */
if (process.platform !== 'win32') process.on('SIGXFSZ', () => undefined)

/** The process itself. */
export const processHost: Host = {
  get io(): IOStreams {
    return {
      stdout: process.stdout,
      stderr: process.stderr,
      // process.stdin makes its stream when first read (a few ms): only a command that reads stdin pays for it.
      get stdin() {
        return process.stdin
      },
      stdinIsTTY: isatty(0),
      stdoutIsTTY: Boolean(process.stdout.isTTY),
      stderrIsTTY: Boolean(process.stderr.isTTY),
      columns: process.stdout.columns,
      env: process.env,
    }
  },
  clock: systemClock,
  get argv() {
    return process.argv.slice(2)
  },
  get exitCode() {
    const code = process.exitCode
    return code === undefined || code === null ? undefined : Number(code)
  },
  set exitCode(code: number | undefined) {
    process.exitCode = code
  },
  exitNow(code) {
    process.exit(code)
  },
  onInterrupt(handler) {
    let count = 0
    const on = () => handler(++count)
    process.on('SIGINT', on)
    process.on('SIGTERM', on)
    return () => {
      process.off('SIGINT', on)
      process.off('SIGTERM', on)
    }
  },
  endQuietlyOnClosedPipe() {
    if (pipeWatched) return
    pipeWatched = true
    process.stdout.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0)
    })
  },
}

const current = new AsyncLocalStorage<Host>()

/** The host of the run this code belongs to: the process, unless `runWithHost` gave another. */
export function host(): Host {
  return current.getStore() ?? processHost
}

/** The host of an in-process run, if this code belongs to one (undefined in a real process). */
export function guestHost(): Host | undefined {
  return current.getStore()
}

/** Runs `fn` (and everything it starts) with `h` as its host. */
export function runWithHost<T>(h: Host, fn: () => Promise<T>): Promise<T> {
  return current.run(h, fn)
}

/** Resolves on the first SIGINT or SIGTERM the host receives. */
export function stopSignal(h: Host = host()): Promise<void> {
  return new Promise<void>((resolve) => {
    // Kept installed: were it removed on the first signal, a library's exit hook left as the only
    // listener (proper-lockfile's, once the audit trail was locked) would re-send the signal and
    // kill the process before the command stopped. A second Ctrl-C ends it at once.
    h.onInterrupt((count) => (count === 1 ? resolve() : h.exitNow(130)))
  })
}
