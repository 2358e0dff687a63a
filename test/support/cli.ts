/**
 * Commands run in-process: `runCli(argv, options)` hands a command line to the built CLI
 * (dist/entry.js, the bundle bin/run.js loads) with a host of its own — captured stdout and
 * stderr, the environment, stdin, the terminal's state and width, a clock, Ctrl-C on demand — and
 * runs it through the same dispatch a real process takes (global flags anywhere, the typo hook,
 * oclif's parser and error handler, the exit-code mapping). Only what needs a real process (kill
 * -9, a pseudo-terminal, `ps`, the packed install, EPIPE) runs one, in test/smoke.
 *
 * Every run's output is scanned for the emulator's keys and any secret registered with
 * `knownSecrets`: a secret in stdout or stderr fails the run that printed it.
 */
import {PassThrough, type Writable} from 'node:stream'
import {join} from 'node:path'
import {pathToFileURL} from 'node:url'
import type {Clock, Host, HostPrompter} from '../../src/context/host.js'
import {ROOT, cleanEnv, defaultConfigDir} from './env.js'

type Entry = typeof import('../../src/entry.js')

const BIN_URL = pathToFileURL(join(ROOT, 'bin/run.js')).href
const entry: Entry = await import(pathToFileURL(join(ROOT, 'dist/entry.js')).href)

/** Secrets that must never appear in any CLI output. */
export const knownSecrets = new Set<string>()

/**
 * oclif's own writes (help, its error handler's console.error) go to the process's streams: within
 * an in-process run they are handed to that run's host. Installed once per test process.
 */
function routeProcessWrites(stream: NodeJS.WriteStream, pick: (h: Host) => Writable): void {
  const original = stream.write.bind(stream) as (...args: unknown[]) => boolean
  stream.write = ((...args: unknown[]) => {
    const guest = entry.guestHost()
    if (!guest) return original(...args)
    return (pick(guest).write as (...a: unknown[]) => boolean)(...args)
  }) as typeof stream.write
}
const routed = globalThis as {__payopsRouted?: boolean}
if (!routed.__payopsRouted) {
  routed.__payopsRouted = true
  routeProcessWrites(process.stdout, (h) => h.io.stdout)
  routeProcessWrites(process.stderr, (h) => h.io.stderr)
}

/** A terminal's state: all three streams, or each one. */
export type TtyOption = boolean | {stdin?: boolean; stdout?: boolean; stderr?: boolean}

export interface CliOptions {
  /** Added to a clean environment (nothing of the operator's PAYOPS_*). */
  env?: Record<string, string | undefined>
  /** What stdin holds (ended after it); default empty. */
  stdin?: string | Buffer
  /** PAYOPS_CONFIG_DIR (default: one per test file, removed after it). */
  configDir?: string
  tty?: TtyOption
  /** The terminal's width (with a TTY stdout). */
  columns?: number
  /** Answers to prompts, in order: for confirm 'y' is yes; for select, the values joined by ','. */
  answers?: string[]
  /** The clock the command sees (default: the system clock). */
  clock?: Clock
  /** Allow secrets in the output (only the emulator's own start-up line). */
  allowSecrets?: boolean
}

export interface RunResult {
  code: number
  stdout: string
  stderr: string
  /** Prompts the command asked, in order. */
  asked: string[]
  json<T = any>(): T
}

/** A command still running (a listener, the emulator): its output so far, Ctrl-C, its end. */
export interface RunningCli {
  stdout(): string
  stderr(): string
  /** Resolves with the first line of stdout that matches (or the first line). */
  line(match?: RegExp, timeoutMs?: number): Promise<string>
  /** Delivers SIGINT (Ctrl-C) to the command. */
  interrupt(): void
  /** Exit codes passed to exitNow (a second Ctrl-C). */
  exits: number[]
  done: Promise<RunResult>
}

function scriptedPrompter(answers: string[], asked: string[]): HostPrompter {
  const next = (m: string) => {
    asked.push(m)
    return answers.shift() ?? ''
  }
  return {
    confirm: async (m) => /^y(es)?$/i.test(next(m)),
    input: async (m) => next(m),
    password: async (m) => next(m),
    select: async (m, choices) => {
      const picked = next(m)
      return picked === '*' ? choices.map((c) => c.value) : picked.split(',').filter(Boolean)
    },
  }
}

/** Starts a command line in-process; see runCli. */
export function startCli(argv: string[], opts: CliOptions = {}): RunningCli {
  const tty = typeof opts.tty === 'object' ? opts.tty : {stdin: opts.tty, stdout: opts.tty, stderr: opts.tty}
  const stdout = new PassThrough()
  const stderr = new PassThrough()
  const stdin = new PassThrough()
  stdin.end(opts.stdin ?? '')
  let out = ''
  let err = ''
  const waiters: Array<() => void> = []
  stdout.on('data', (d) => {
    out += d
    for (const w of waiters.splice(0)) w()
  })
  stderr.on('data', (d) => (err += d))
  const handlers = new Set<(count: number) => void>()
  let interrupts = 0
  const exits: number[] = []
  const asked: string[] = []
  const host: Host = {
    io: {
      stdout,
      stderr,
      stdin,
      stdinIsTTY: Boolean(tty.stdin),
      stdoutIsTTY: Boolean(tty.stdout),
      stderrIsTTY: Boolean(tty.stderr),
      columns: tty.stdout ? (opts.columns ?? 80) : undefined,
      env: cleanEnv({PAYOPS_CONFIG_DIR: opts.configDir ?? defaultConfigDir(), ...opts.env}),
    },
    clock: opts.clock ?? {now: () => Date.now(), sleep: (ms) => new Promise((r) => setTimeout(r, ms))},
    argv,
    exitCode: undefined,
    exitNow(code) {
      exits.push(code)
      this.exitCode = code
    },
    onInterrupt(handler) {
      handlers.add(handler)
      return () => handlers.delete(handler)
    },
    endQuietlyOnClosedPipe() {},
    prompter: scriptedPrompter([...(opts.answers ?? [])], asked),
  }
  const done = entry.runInHost(host, BIN_URL).then(
    () => finish(),
    (error: Error) => {
      // Nothing escapes a real run: oclif's handler prints and exits. Here, a thrown error is a defect.
      throw new Error(`payops ${argv.join(' ')} threw: ${error.stack}`)
    },
  )
  function finish(): RunResult {
    const code = host.exitCode ?? 0
    if (!opts.allowSecrets) {
      for (const s of knownSecrets) {
        if (s && (out.includes(s) || err.includes(s))) throw new Error(`A secret appeared in the output of: payops ${argv.join(' ')}`)
      }
    }
    return {
      code,
      stdout: out,
      stderr: err,
      asked,
      json() {
        try {
          return JSON.parse(out)
        } catch {
          throw new Error(`stdout is not JSON (exit ${code}):\n${out}\nstderr: ${err}`)
        }
      },
    }
  }
  return {
    stdout: () => out,
    stderr: () => err,
    exits,
    line(match, timeoutMs = 10_000) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no matching line from payops ${argv.join(' ')}\nstdout: ${out}\nstderr: ${err}`)), timeoutMs)
        const look = () => {
          const found = out.split('\n').slice(0, -1).find((l) => !match || match.test(l))
          if (found !== undefined) {
            clearTimeout(timer)
            resolve(found)
          } else waiters.push(look)
        }
        look()
        done.then(
          () => {
            if (!out.split('\n').slice(0, -1).some((l) => !match || match.test(l))) {
              clearTimeout(timer)
              reject(new Error(`payops ${argv.join(' ')} ended without a matching line\nstdout: ${out}\nstderr: ${err}`))
            }
          },
          (e) => {
            clearTimeout(timer)
            reject(e)
          },
        )
      })
    },
    interrupt() {
      interrupts++
      for (const h of [...handlers]) h(interrupts)
    },
    done,
  }
}

/**
 * Runs a command line in-process, as `payops ARGV` would run in a process with these streams,
 * environment and terminal, and resolves with its exit code and output.
 */
export function runCli(argv: string[], opts: CliOptions = {}): Promise<RunResult> {
  return startCli(argv, opts).done
}

/** A fake clock: sleeping moves it on at once; nothing waits for the wall clock. */
export function fakeClock(start = Date.parse('2026-11-23T12:00:00Z')): Clock & {slept(): number} {
  let now = start
  let slept = 0
  return {
    now: () => now,
    sleep: async (ms) => {
      now += ms
      slept += ms
      await new Promise((r) => setImmediate(r))
    },
    slept: () => slept,
  }
}

/**
 * A clock the test steps: every sleep of the command (the wait between two polls) lasts until the
 * test calls `wake()`; time then moves on by the sleep. Nothing waits for the wall clock.
 */
export function steppedClock(start = Date.parse('2026-11-23T12:00:00Z')) {
  let now = start
  const sleeping: Array<() => void> = []
  const watchers: Array<() => void> = []
  return {
    now: () => now,
    sleep: (ms: number) =>
      new Promise<void>((resolve) => {
        sleeping.push(() => {
          now += ms
          resolve()
        })
        for (const w of watchers.splice(0)) w()
      }),
    /** Resolves once the command sleeps (it has polled, or been answered, and waits to poll again). */
    asleep: () => new Promise<void>((resolve) => (sleeping.length ? resolve() : watchers.push(resolve))),
    /** Ends the command's sleep: it polls next. */
    wake: () => sleeping.shift()!(),
  }
}

/** Polls `check` every 20 ms until it holds; throws naming `what` after `ms`. */
export async function until(check: () => boolean, what: () => string, ms = 10_000): Promise<void> {
  const end = Date.now() + ms
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what()}`)
    await new Promise((r) => setTimeout(r, 20))
  }
}

/** The address a started `webhooks listen` prints once it listens (or the error it exited with). */
export async function listeningUrl(cli: RunningCli): Promise<string> {
  let ended = false
  cli.done.then(
    () => (ended = true),
    () => (ended = true),
  )
  const listening = () => /Listening on (\S+)/.exec(cli.stderr())
  await until(() => Boolean(listening()) || ended, () => `listener start: ${cli.stderr()}`)
  if (!listening()) {
    const r = await cli.done
    throw new Error(`listener exited ${r.code}: ${r.stderr}`)
  }
  return listening()![1]
}
