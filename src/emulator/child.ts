/**
 * The emulator as a child process. payops' build ships the emulator package's own command line as
 * `dist/emulator.js`; `emulator start` runs it with this Node (`payops-emulator … --json
 * --stop-on-stdin-end`) and meets it only through what any starter sees: its one JSON line on
 * stdout (base URL, keys, clock), its log lines on stderr, its exit code, and its stdin, which
 * payops holds open while it runs. Ending stdin stops the emulator as SIGTERM does; when payops is
 * gone (even killed with SIGKILL) the system ends it too, so the emulator never outlives it.
 *
 * A refusal is one line on the child's stderr and its exit code (2: before anything listens; 1: a
 * state that could not be kept): that line becomes payops' own error of the same code. The line
 * that may be it (the last one while starting or stopping) is held until the child has said more
 * or exited; every other line is passed on as it comes.
 */
import {spawn, type ChildProcess} from 'node:child_process'
import {existsSync} from 'node:fs'
import {dirname, join} from 'node:path'
import {createInterface} from 'node:readline'
import {fileURLToPath} from 'node:url'
import {PayopsError, UsageError} from '../errors.js'

export interface EmulatorKeys {
  test: string
  test_other: string
  live: string
}

/** What the emulator said when it started listening: its JSON line. */
export interface EmulatorStarted {
  baseUrl: string
  keys: EmulatorKeys
  /** Its clock at start (ISO 8601). */
  clock: string
}

export interface EmulatorProcess {
  /** Resolves once it listens; rejects with its refusal (or failure) when it exits first. */
  started: Promise<EmulatorStarted>
  /** Resolves when it has exited, whoever stopped it. */
  exited: Promise<void>
  /** Stops it (ends its stdin) and waits for it; rejects with its error when it did not stop cleanly. */
  stop(): Promise<void>
}

interface Outcome {
  code: number | null
  signal: NodeJS.Signals | null
  error?: Error
}

/** `dist/emulator.js` of this payops: beside the running bundle, under the folder that holds payops' package.json. */
export function emulatorScript(): string {
  for (let dir = dirname(fileURLToPath(import.meta.url)); dir !== dirname(dir); dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return join(dir, 'dist', 'emulator.js')
  }
  return join(dirname(fileURLToPath(import.meta.url)), 'emulator.js')
}

/** The child's lines on stderr, passed to `say` as they come, except the one that may be its error. */
class StderrLines {
  private held: string | undefined
  holding = true
  constructor(private readonly say: (line: string) => void) {}

  add(line: string): void {
    if (!this.holding) return this.say(line)
    this.release()
    this.held = line
  }

  /** Passes on the line held, if any. */
  release(): void {
    if (this.held !== undefined) this.say(this.held)
    this.held = undefined
  }

  /** The line held (the child's one-line error), no longer to be passed on. */
  take(): string | undefined {
    const line = this.held
    this.held = undefined
    return line
  }
}

/** The error a child that exited so ends the command with. */
function failure(outcome: Outcome, lines: StderrLines): PayopsError {
  if (outcome.error) return new PayopsError(`The emulator could not be run: ${outcome.error.message}`, 1)
  const line = outcome.code === 1 || outcome.code === 2 ? lines.take() : undefined
  lines.release()
  if (line !== undefined && outcome.code === 2) return new UsageError(line)
  if (line !== undefined) return Object.assign(new PayopsError(line, 1), {name: 'EmulatorError'})
  return new PayopsError(`The emulator stopped unexpectedly (${outcome.signal ?? `exit code ${outcome.code}`}).`, 1)
}

function startedFrom(line: string): EmulatorStarted {
  const info = JSON.parse(line) as {base_url: string; keys: EmulatorKeys; clock: string}
  return {baseUrl: info.base_url, keys: info.keys, clock: info.clock}
}

/**
 * Runs the emulator's command line with `args` in a child process with environment `env`; its
 * stderr lines go to `say`. Throws when this payops has no emulator (an incomplete build).
 */
export function runEmulatorProcess(args: readonly string[], env: NodeJS.ProcessEnv, say: (line: string) => void): EmulatorProcess {
  const script = emulatorScript()
  if (!existsSync(script)) throw new PayopsError(`This payops has no emulator (${script} is missing): run \`npm run build\`, or reinstall payops.`, 1)
  const child: ChildProcess = spawn(process.execPath, [script, ...args, '--json', '--stop-on-stdin-end'], {env, stdio: ['pipe', 'pipe', 'pipe']})
  const lines = new StderrLines(say)
  createInterface({input: child.stderr!, crlfDelay: Infinity}).on('line', (line) => lines.add(line))
  // Ending stdin of a child that has gone already is no error.
  child.stdin!.on('error', () => undefined)
  const outcome = new Promise<Outcome>((resolve) => {
    child.once('error', (error) => resolve({code: null, signal: null, error}))
    child.once('close', (code, signal) => resolve({code, signal}))
  })
  const firstLine = new Promise<string>((resolve) => createInterface({input: child.stdout!, crlfDelay: Infinity}).once('line', resolve))
  let listening = false
  const started = Promise.race([
    firstLine.then((line) => {
      listening = true
      lines.holding = false
      lines.release()
      return startedFrom(line)
    }),
    // Exited before its line: its refusal. (Once it listens, how it ends is stop()'s to say.)
    outcome.then((o) => {
      if (listening) return new Promise<never>(() => undefined)
      throw failure(o, lines)
    }),
  ])
  let stopping: Promise<void> | undefined
  return {
    started,
    exited: outcome.then(() => undefined),
    stop: () =>
      (stopping ??= (async () => {
        lines.holding = true
        child.stdin!.end()
        const o = await outcome
        if (o.code === 0) return lines.release()
        throw failure(o, lines)
      })()),
  }
}
