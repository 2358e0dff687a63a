/**
 * The emulator the command tests run against, in this test process: one shared emulator per test
 * file (started on first use, reset by every `startEmulator()` without options, closed after the
 * file), or a dedicated one for options such as faults or a state file. Each exposes its request
 * log, so that a test can prove that nothing was sent.
 */
import {afterAll} from 'vitest'
import {faultOptions} from '../../src/emulator/start-command.js'
import {startEmulator as startInProcess, type RunningEmulator} from '../../src/emulator/index.js'
import type {RequestLog} from '../../src/emulator/context.js'
import type {Store} from '../../src/emulator/store/index.js'
import {knownSecrets} from './cli.js'

export interface Keys {
  test: string
  test_other: string
  live: string
}

export interface Emulator {
  baseUrl: string
  keys: Keys
  /** The emulator's data (its ledger). */
  store: Store
  /** The API requests it received. */
  requests: RequestLog
  /** Stops a dedicated emulator (the shared one stays up until the file ends); resolves with 0. */
  stop(): Promise<number>
  /** Re-seeds its data and clears its faults; keys keep working. */
  reset(): Promise<void>
  control<T = any>(method: string, path: string, body?: unknown): Promise<T>
}

/** Emulator options as `payops emulator start` takes them. */
export function emulatorOptions(args: string[]): {statePath?: string; faults?: ReturnType<typeof faultOptions>} {
  let rate: string | undefined
  let kinds = '500,503,reset,latency'
  let seed: number | undefined
  let statePath: string | undefined
  for (let i = 0; i < args.length; i++) {
    const [flag, inline] = args[i].split('=', 2)
    const value = () => inline ?? args[++i]
    if (flag === '--fault-rate') rate = value()
    else if (flag === '--fault-kinds') kinds = value()
    else if (flag === '--seed') seed = Number(value())
    else if (flag === '--state') statePath = value()
    else throw new Error(`startEmulator: ${args[i]} is not an option of the in-process emulator; start \`emulator start\` with startCli instead`)
  }
  return {statePath, faults: faultOptions(rate, kinds, seed)}
}

function wrap(running: RunningEmulator, shared: boolean): Emulator {
  const keys = running.keys as Keys
  for (const k of Object.values(keys)) knownSecrets.add(k)
  const emu: Emulator = {
    baseUrl: running.baseUrl,
    get keys() {
      return running.keys as Keys
    },
    store: running.store,
    requests: running.requests,
    async stop() {
      if (!shared) await running.close()
      return 0
    },
    async reset() {
      await emu.control('POST', '/_emulator/reset', {})
      await emu.control('DELETE', '/_emulator/faults')
    },
    async control<T>(method: string, path: string, body?: unknown): Promise<T> {
      const r = await fetch(running.baseUrl + path, {
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
const dedicated = new Set<RunningEmulator>()

let sharedRunning: RunningEmulator | undefined

afterAll(async () => {
  await shared?.catch(() => undefined)
  await sharedRunning?.close().catch(() => undefined)
  sharedRunning = undefined
  shared = undefined
  await Promise.all([...dedicated].map((d) => d.close().catch(() => undefined)))
  dedicated.clear()
})

/**
 * An emulator in this process. Without options: the file's shared emulator, reset (fresh data, no
 * faults; the keys stay). With options (`--fault-rate`, `--fault-kinds`, `--seed`, `--state`): a
 * dedicated one, closed by `stop()` or after the file.
 */
export async function startEmulator(args: string[] = []): Promise<Emulator> {
  const quiet = (line: string) => void line
  if (args.length === 0) {
    shared ??= startInProcess({log: quiet}).then((r) => {
      sharedRunning = r
      return wrap(r, true)
    })
    const emu = await shared
    await emu.reset()
    return emu
  }
  const running = await startInProcess({...emulatorOptions(args), log: quiet})
  dedicated.add(running)
  const emu = wrap(running, false)
  const stop = emu.stop
  emu.stop = async () => {
    dedicated.delete(running)
    return stop()
  }
  return emu
}
