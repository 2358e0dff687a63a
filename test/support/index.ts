/**
 * What command tests import: in-process runs (runCli, and `run`/`runAs` in the shape the tests
 * have always used), the in-process emulator, temporary folders, and the checks shared by many
 * tests (the outcome line, "nothing was sent").
 */
import {afterAll, expect} from 'vitest'
import {existsSync} from 'node:fs'
import {readAudit} from '../../src/audit/index.js'
import {databasePathFor} from '../../src/import/index.js'
import {ImportStore} from '../../src/import/store.js'
import {knownSecrets, runCli, startCli, fakeClock, steppedClock, until, listeningUrl, type CliOptions, type RunResult, type RunningCli, type TtyOption} from './cli.js'
import type {Emulator, Keys} from './emulator.js'

export {knownSecrets, runCli, startCli, fakeClock, steppedClock, until, listeningUrl, type CliOptions, type RunResult, type RunningCli, type TtyOption}
export {startEmulator, startEmulatorCommand, type Emulator, type Keys} from './emulator.js'
export {BIN, ROOT, cleanEnv, defaultConfigDir, tempDir} from './env.js'
import {tempDir} from './env.js'
export {routesServer} from './routes-server.js'

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

/** The `{"error":{...}}` line a command writes on stderr in machine formats. */
export function errorOf(r: Pick<RunResult, 'stderr'>): Record<string, any> {
  const line = r.stderr.trim().split('\n').find((l) => l.startsWith('{"error"'))
  if (line === undefined) throw new Error(`expected an error line on stderr:\n${r.stderr}`)
  return JSON.parse(line).error
}

/** The API requests the emulator received while `fn` ran, as `METHOD /path`, with what `fn` resolved with. */
export async function requestsDuring<T>(emu: Emulator, fn: () => Promise<T>): Promise<{result: T; sent: string[]}> {
  const before = (await emu.requestLog()).count
  const result = await fn()
  const after = await emu.requestLog()
  const n = after.count - before
  return {result, sent: n === 0 ? [] : after.recent.slice(-n).map((r) => `${r.method} ${r.path}`)}
}

/**
 * Runs `fn` and asserts that it sent nothing: the emulator received no API request, and (given a
 * config dir) the audit trail has not grown. Resolves with what `fn` resolved with.
 */
export function expectNothingSent<T>(emu: Emulator, fn: () => Promise<T>, configDir?: string): Promise<T> {
  return expectOnlyRequests(emu, [], fn, configDir)
}

/**
 * Runs `fn` and asserts that the emulator received exactly these requests (`METHOD /path`, in any
 * order), and (given a config dir) that the audit trail has not grown: a refusal after the
 * lookups a command makes first. Resolves with what `fn` resolved with.
 */
export async function expectOnlyRequests<T>(emu: Emulator, requests: string[], fn: () => Promise<T>, configDir?: string): Promise<T> {
  const audit = configDir ? readAudit(configDir).length : 0
  const {result, sent: got} = await requestsDuring(emu, fn)
  expect(got.sort(), 'requests the emulator received').toEqual([...requests].sort())
  if (configDir) expect(readAudit(configDir).length, 'audit records written').toBe(audit)
  return result
}

/** The request that looks a subaccount up. */
export const subaccountLookup = (id: string) => `GET /api/subaccounts/${id}`

/** What an import's database records: its batch (none before the first send) and each key's state, in line order. */
export interface ImportRecords {
  batch?: {batch_id: string; finished_at: string | null}
  journal: Array<{line: number; key: string; state: string; kind: string | null; move_id: string | null}>
  /** Whether it keeps the plan of the file (a resume need not read the file again). */
  plan: boolean
}

/**
 * The import database of `file` (or at `path`), read only: undefined when there is none yet (or
 * its schema is not written yet). Safe while an import runs, in this process or another.
 */
export function importRecords(file: string, path = databasePathFor(file)): ImportRecords | undefined {
  if (!existsSync(path)) return undefined
  let s: ImportStore
  try {
    s = ImportStore.open(path, true)
  } catch {
    return undefined
  }
  try {
    return {
      batch: s.db.prepare('SELECT batch_id, finished_at FROM batch').get<{batch_id: string; finished_at: string | null}>(),
      journal: s.db.prepare('SELECT line, key, state, kind, move_id FROM journal ORDER BY line').all(),
      plan: Boolean(s.db.prepare('SELECT 1 AS x FROM plan_meta').get()),
    }
  } finally {
    s.close()
  }
}

/** Rows an import's database records as done. */
export const importDone = (file: string) => importRecords(file)?.journal.filter((j) => j.state === 'done').length ?? 0

/** Every activity amount of a subaccount in one direction, through the API (the proof of what moved). */
export async function activityAmounts(emu: Emulator, id: string, direction: 'credit' | 'debit', opts: RunOptions = {}): Promise<number[]> {
  const r = await runAs(emu, 'test', ['subaccounts', 'activity', id, '--direction', direction, '--all', '--limit', '500', '-o', 'ndjson'], opts)
  expect(r.code, r.stderr).toBe(0)
  return r.stdout.trim() ? r.stdout.trim().split('\n').map((l) => (JSON.parse(l) as {amount_in_minor_units: number}).amount_in_minor_units) : []
}

/**
 * What an import stopped by Ctrl-C must say, checked against what moved: exit 6, the summary's
 * counts adding up, `moved` (the amounts the source was debited, from the API) being the first
 * `created` rows of the file, and both totals and the closing sentence naming exactly that sum.
 */
export function expectInterruptedImport(r: {code: number; stdout: string; stderr: string}, amountsInFile: number[], moved: number[]): void {
  expect(r.code, r.stderr).toBe(6)
  const out = JSON.parse(r.stdout) as {interrupted: boolean; created: number; not_sent: number; total_this_run: unknown; total_overall: unknown}
  const rows = amountsInFile.length
  expect(out.interrupted).toBe(true)
  expect(out.created).toBeGreaterThanOrEqual(3)
  expect(out.created).toBeLessThan(rows)
  expect(out.created + out.not_sent).toBe(rows)
  expect([...moved].sort((x, y) => x - y)).toEqual(amountsInFile.slice(0, out.created))
  const sum = moved.reduce((s, v) => s + v, 0)
  expect(out.total_this_run).toEqual({USD: sum})
  expect(out.total_overall).toEqual({USD: sum})
  expect(out).not.toHaveProperty('totals')
  const money = (sum / 100).toFixed(2).replace(/\B(?=(\d{3})+(?!\d))/g, ',')
  expect(r.stderr).toMatch(new RegExp(`Interrupted: ${out.created} of ${rows} rows done, ${out.not_sent} not sent \\(${money} USD moved by this run\\)`))
}

/** A maker of temporary folders for one test file: each call makes one, and all are removed after the file's tests. */
export function tempDirs(prefix: string): () => string {
  const made: Array<{cleanup(): void}> = []
  afterAll(() => made.splice(0).forEach((d) => d.cleanup()))
  return () => {
    const d = tempDir(prefix)
    made.push(d)
    return d.path
  }
}
