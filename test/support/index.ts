/**
 * What command tests import: in-process runs (runCli, and `run`/`runAs` in the shape the tests
 * have always used), the in-process emulator, temporary folders, and the checks shared by many
 * tests (the outcome line, "nothing was sent").
 */
import {expect} from 'vitest'
import {readAudit} from '../../src/audit/index.js'
import {knownSecrets, runCli, startCli, fakeClock, type CliOptions, type RunResult, type RunningCli, type TtyOption} from './cli.js'
import type {Emulator, Keys} from './emulator.js'

export {knownSecrets, runCli, startCli, fakeClock, type CliOptions, type RunResult, type RunningCli, type TtyOption}
export {startEmulator, startEmulatorCommand, type Emulator, type Keys} from './emulator.js'
export {BIN, ROOT, cleanEnv, defaultConfigDir, tempDir} from './env.js'

export interface RunOptions extends Omit<CliOptions, 'stdin'> {
  /** What stdin holds. */
  input?: string
}

/** Runs `payops ARGS` in-process. */
export function run(args: string[], opts: RunOptions = {}): Promise<RunResult> {
  const {input, ...rest} = opts
  return runCli(args, {...rest, stdin: input})
}

/** Runs a command against the emulator with one of its keys (or the key given) in the environment. */
export function runAs(emu: Emulator, key: keyof Keys | string, args: string[], opts: RunOptions = {}): Promise<RunResult> {
  const apiKey = key in emu.keys ? emu.keys[key as keyof Keys] : key
  return run(args, {...opts, env: {PAYOPS_BASE_URL: emu.baseUrl, PAYOPS_API_KEY: apiKey, ...opts.env}})
}

export function lastLine(s: string): string {
  const lines = s.trim().split('\n')
  return lines[lines.length - 1] ?? ''
}

/** The `{"outcome":{...}}` line a money command writes on stderr in machine formats. */
export function outcomeOf(r: Pick<RunResult, 'stderr'>): {kind: string; id: string; idempotency_key: string | null; status: string | null} {
  const lines = r.stderr.split('\n').filter((l) => l.startsWith('{"outcome"'))
  if (lines.length !== 1) throw new Error(`expected one outcome line on stderr, found ${lines.length}:\n${r.stderr}`)
  return JSON.parse(lines[0]).outcome
}

/**
 * Runs `fn` and asserts that it sent nothing: the emulator received no API request, and (given a
 * config dir) the audit trail has not grown. Resolves with what `fn` resolved with.
 */
export async function expectNothingSent<T>(emu: Emulator, fn: () => Promise<T>, configDir?: string): Promise<T> {
  const before = (await emu.requestLog()).count
  const audit = configDir ? readAudit(configDir).length : 0
  const result = await fn()
  const after = await emu.requestLog()
  const sent = after.count - before
  expect(sent === 0 ? [] : after.recent.slice(-sent), 'requests the emulator received').toEqual([])
  if (configDir) expect(readAudit(configDir).length, 'audit records written').toBe(audit)
  return result
}
