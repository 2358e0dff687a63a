/**
 * Smoke-test helpers, for what only a real process shows: a real emulator process (`payops emulator start --port 0 --json`) and real
 * `bin/run.js` processes against it. Every run's output is scanned for the emulator's keys: a key
 * in stdout or stderr fails the test that produced it.
 */
import {spawn, type ChildProcess} from 'node:child_process'
import {createInterface} from 'node:readline'
import {BIN, ROOT, cleanEnv, defaultConfigDir, tempDir} from '../support/env.js'
import {knownSecrets} from '../support/cli.js'

export {BIN, ROOT, cleanEnv, knownSecrets, tempDir}
export {lastLine, outcomeOf} from '../support/index.js'
import type {Keys} from '../support/emulator.js'
export type {Keys}

export interface Emulator {
  baseUrl: string
  keys: Keys
  proc: ChildProcess
  stop(): Promise<number | null>
  control<T = unknown>(method: string, path: string, body?: unknown): Promise<T>
}


export async function startEmulator(args: string[] = [], configDir?: string): Promise<Emulator> {
  const dir = configDir ?? tempDir().path
  const proc = spawn(process.execPath, [BIN, 'emulator', 'start', '--port', '0', '--json', ...args], {
    env: cleanEnv({PAYOPS_CONFIG_DIR: dir}),
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stderr = ''
  proc.stderr!.on('data', (d) => (stderr += d))
  const line = await new Promise<string>((resolveLine, reject) => {
    const rl = createInterface({input: proc.stdout!})
    const timer = setTimeout(() => reject(new Error(`emulator did not start: ${stderr}`)), 20_000)
    rl.once('line', (l) => {
      clearTimeout(timer)
      resolveLine(l)
    })
    proc.once('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`emulator exited with ${code}: ${stderr}`))
    })
  })
  const info = JSON.parse(line) as {base_url: string; keys: Keys}
  for (const k of Object.values(info.keys)) knownSecrets.add(k)
  const baseUrl = info.base_url
  return {
    baseUrl,
    keys: info.keys,
    proc,
    stop: () =>
      new Promise((res) => {
        if (proc.exitCode !== null) return res(proc.exitCode)
        proc.once('exit', (code) => res(code))
        proc.kill('SIGTERM')
      }),
    async control<T>(method: string, path: string, body?: unknown): Promise<T> {
      const r = await fetch(baseUrl + path, {method, headers: {'content-type': 'application/json'}, body: body === undefined ? undefined : JSON.stringify(body)})
      const text = await r.text()
      if (!r.ok) throw new Error(`control ${method} ${path}: ${r.status} ${text}`)
      return (text ? JSON.parse(text) : undefined) as T
    },
  }
}

/** Runs a process to its end with no input: its exit code (-1 when killed) and what it wrote. */
export function exec(cmd: string, args: string[], opts: {cwd?: string; env?: NodeJS.ProcessEnv} = {}): Promise<{code: number; stdout: string; stderr: string}> {
  return new Promise((resolve, reject) => {
    const proc = spawn(cmd, args, {cwd: opts.cwd, env: opts.env, stdio: ['ignore', 'pipe', 'pipe']})
    let stdout = ''
    let stderr = ''
    proc.stdout.on('data', (d) => (stdout += d))
    proc.stderr.on('data', (d) => (stderr += d))
    proc.on('error', reject)
    proc.on('close', (code) => resolve({code: code ?? -1, stdout, stderr}))
  })
}

export interface RunResult {
  code: number
  stdout: string
  stderr: string
  json<T = any>(): T
}

export interface RunOptions {
  env?: Record<string, string | undefined>
  input?: string
  configDir?: string
  /** Allow secrets in the output (only the emulator's own start-up line). */
  allowSecrets?: boolean
  timeoutMs?: number
}

export function run(args: string[], opts: RunOptions = {}): Promise<RunResult> {
  return new Promise((resolveRun, reject) => {
    const proc = spawn(process.execPath, [BIN, ...args], {
      env: cleanEnv({PAYOPS_CONFIG_DIR: opts.configDir ?? defaultConfigDir(), ...opts.env}),
      stdio: ['pipe', 'pipe', 'pipe'],
    })
    let stdout = ''
    let stderr = ''
    proc.stdout.on('data', (d) => (stdout += d))
    proc.stderr.on('data', (d) => (stderr += d))
    const timer = setTimeout(() => {
      proc.kill('SIGKILL')
      reject(new Error(`payops ${args.join(' ')} timed out\nstdout: ${stdout}\nstderr: ${stderr}`))
    }, opts.timeoutMs ?? 30_000)
    proc.on('error', reject)
    proc.on('close', (code) => {
      clearTimeout(timer)
      if (!opts.allowSecrets) {
        for (const s of knownSecrets) {
          if (stdout.includes(s) || stderr.includes(s)) {
            reject(new Error(`A secret appeared in the output of: payops ${args.join(' ')}`))
            return
          }
        }
      }
      resolveRun({
        code: code ?? -1,
        stdout,
        stderr,
        json() {
          try {
            return JSON.parse(stdout)
          } catch {
            throw new Error(`stdout is not JSON (exit ${code}):\n${stdout}\nstderr: ${stderr}`)
          }
        },
      })
    })
    proc.stdin.end(opts.input ?? '')
  })
}

/** Runs a command against the emulator with one of its keys in the environment. */
export function runAs(emu: Emulator, key: keyof Keys | string, args: string[], opts: RunOptions = {}): Promise<RunResult> {
  const apiKey = key in emu.keys ? emu.keys[key as keyof Keys] : key
  return run(args, {...opts, env: {PAYOPS_BASE_URL: emu.baseUrl, PAYOPS_API_KEY: apiKey, ...opts.env}})
}

