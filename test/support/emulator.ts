/**
 * The emulator the command tests run against, in this test process: one shared emulator per test
 * file (started on first use, reset by every `startEmulator()` without options, closed after the
 * file), or a dedicated one for options such as faults or a state file. Each exposes its request
 * log, so that a test can prove that nothing was sent.
 */
import {afterAll} from 'vitest'
import {startEmulator as startInProcess, type RunningEmulator, type Store} from '@payops/emulator'
import {knownSecrets, startCli, type RunningCli} from './cli.js'

export interface Keys {
  test: string
  test_other: string
  live: string
}

export interface Emulator {
  baseUrl: string
  keys: Keys
  /** The emulator's data (its ledger), when it runs from the library (the shared emulator). */
  store?: Store
  /** The `emulator start` command running it, when a command started it. */
  cli?: RunningCli
  /** The API requests it received so far: how many, and the last ones. */
  requestLog(): Promise<{count: number; recent: Array<{method: string; path: string}>}>
  /** Stops a command-started emulator and resolves with its exit code (the shared one: 0, it stays up until the file ends). */
  stop(): Promise<number>
  /** Re-seeds its data and clears its faults; keys keep working. */
  reset(): Promise<void>
  control<T = any>(method: string, path: string, body?: unknown): Promise<T>
}

function wrap(baseUrl: string, keys: () => Keys, more: Pick<Emulator, 'stop'> & Partial<Emulator>): Emulator {
  for (const k of Object.values(keys())) knownSecrets.add(k)
  const emu: Emulator = {
    baseUrl,
    get keys() {
      return keys()
    },
    ...more,
    async requestLog() {
      return (await emu.control<{data: {count: number; recent: Array<{method: string; path: string}>}}>('GET', '/_emulator/requests')).data
    },
    async reset() {
      await emu.control('POST', '/_emulator/reset', {})
      await emu.control('DELETE', '/_emulator/faults')
    },
    async control<T>(method: string, path: string, body?: unknown): Promise<T> {
      const r = await fetch(baseUrl + path, {
        method,
        headers: {'content-type': 'application/json'},
        body: body === undefined ? (method === 'GET' ? undefined : '{}') : JSON.stringify(body),
      })
      const text = await r.text()
      if (!r.ok) throw new Error(`control ${method} ${path}: ${r.status} ${text}`)
      return (text ? JSON.parse(text) : undefined) as T
    },
  }
  return emu
}

let shared: Promise<Emulator> | undefined
let sharedRunning: RunningEmulator | undefined
const commands = new Set<Emulator>()

afterAll(async () => {
  await shared?.catch(() => undefined)
  await sharedRunning?.close().catch(() => undefined)
  sharedRunning = undefined
  shared = undefined
  await Promise.all([...commands].map((e) => e.stop().catch(() => undefined)))
  commands.clear()
})

/**
 * An emulator in this process. Without arguments: the file's shared emulator, reset (fresh data,
 * no faults; the keys stay). With `emulator start` flags (`--fault-rate`, `--state`,
 * `--write-profile`…) or a config dir: `payops emulator start --port 0 --json ARGS` run in-process,
 * stopped by `stop()` (Ctrl-C, resolving with its exit code) or after the file.
 */
export async function startEmulator(args: string[] = [], configDir?: string): Promise<Emulator> {
  if (args.length === 0 && configDir === undefined) {
    shared ??= startInProcess({log: () => undefined}).then((r) => {
      sharedRunning = r
      return wrap(r.baseUrl, () => r.keys as Keys, {store: r.store, stop: async () => 0})
    })
    const emu = await shared
    await emu.reset()
    return emu
  }
  return startEmulatorCommand(args, configDir)
}

/** `payops emulator start --port 0 --json ARGS`, run in-process; see startEmulator. */
export async function startEmulatorCommand(args: string[] = [], configDir?: string): Promise<Emulator> {
  const cli = startCli(['emulator', 'start', '--port', '0', '--json', ...args], {configDir, allowSecrets: true})
  let line: string
  try {
    line = await cli.line(/^\{/, 20_000)
  } catch (err) {
    const r = await cli.done
    throw new Error(`emulator did not start (exit ${r.code}): ${r.stderr}`, {cause: err})
  }
  const info = JSON.parse(line) as {base_url: string; keys: Keys}
  let stopped: Promise<number> | undefined
  const emu = wrap(info.base_url, () => info.keys, {
    cli,
    stop: () =>
      (stopped ??= (async () => {
        commands.delete(emu)
        cli.interrupt()
        return (await cli.done).code
      })()),
  })
  commands.add(emu)
  return emu
}
