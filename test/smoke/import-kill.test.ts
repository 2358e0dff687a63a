/**
 * `moves import` in a real process killed midway: SIGKILL (kill -9: nothing runs after it, the
 * import's database is all that is left) and SIGINT (the process's own signal handling).
 * The killed import is a real `bin/run.js` process against the in-process emulator; the re-runs and
 * the checks of what moved run in-process. The in-process Ctrl-C is in test/cli/import-rerun.test.ts.
 */
import {spawn} from 'node:child_process'
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {runAs, startEmulator, tempDir, type Emulator, importDone, importRecords, activityAmounts, expectInterruptedImport} from '../support/index.js'
import {BIN, cleanEnv} from './process.js'

let emu: Emulator
const dir = tempDir('payops-import-kill-')

const sub = async (name: string) => (await runAs(emu, 'test', ['subaccounts', 'create', '--name', name], {configDir: dir.path})).json().id as string
const imp = (args: string[]) => runAs(emu, 'test', ['moves', 'import', ...args], {configDir: dir.path})

const amounts = (id: string, direction: 'credit' | 'debit') => activityAmounts(emu, id, direction, {configDir: dir.path})

function csv(name: string, lines: string[]): string {
  const file = join(dir.path, name)
  writeFileSync(file, lines.join('\n') + '\n')
  return file
}


/** `payops moves import ARGS` in a real process, with the emulator's test key. */
function spawnImport(args: string[], stdio: 'ignore' | 'pipe' = 'ignore') {
  const env = cleanEnv({PAYOPS_BASE_URL: emu.baseUrl, PAYOPS_API_KEY: emu.keys.test, PAYOPS_CONFIG_DIR: dir.path})
  const proc = spawn(process.execPath, [BIN, 'moves', 'import', ...args], {env, stdio: ['ignore', stdio, stdio]})
  const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)))
  return {proc, exited}
}

/** Sends `signal` to the process once the import's database records `rows` rows of `file` as done; resolves with that count. */
function signalAt(file: string, rows: number, proc: ReturnType<typeof spawnImport>, signal: NodeJS.Signals, stderr = () => ''): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    const timer = setInterval(() => {
      const done = importDone(file)
      if (done >= rows) {
        clearInterval(timer)
        proc.proc.kill(signal)
        resolve(done)
      }
    }, 20)
    void proc.exited.then((code) => {
      clearInterval(timer)
      reject(new Error(`the import ended (exit ${code}) before it could be sent ${signal}: ${stderr()}`))
    })
  })
}

beforeAll(async () => {
  emu = await startEmulator()
})
afterAll(async () => {
  await emu?.control('DELETE', '/_emulator/faults').catch(() => undefined)
  dir.cleanup()
})

describe('moves import killed with SIGKILL', () => {
  it('2,000 rows at a 20% fault rate, killed midway with SIGKILL and re-run: exactly 2,000 moves, 0 duplicates, 0 lost', async () => {
    const src = await sub('Bulk source')
    const dst = await sub('Bulk destination')
    const expected = Array.from({length: 2000}, (_, i) => 10_000 + i)
    const file = csv('bulk.csv', ['from,to,amount_in_minor_units,metadata.row', ...expected.map((amt, i) => `${src},${dst},${amt},${i + 1}`)])
    await emu.control('POST', '/_emulator/faults', {rate: 0.2, kinds: ['500', '503', 'reset', 'latency'], phases: ['before', 'after'], seed: 42, latency_ms: 50, methods: ['POST']})

    // First run: kill -9 once a few hundred rows are journaled as done.
    const first = spawnImport([file, '--yes', '--concurrency', '8', '--max-retries', '4', '-o', 'json'])
    const killedAt = await signalAt(file, 400, first, 'SIGKILL')
    await first.exited
    expect(killedAt).toBeGreaterThanOrEqual(400)

    // Re-run until it reports success; every run after a failure retries with the same keys.
    let last: any
    for (let attempt = 0; attempt < 6; attempt++) {
      const r = await imp([file, '--yes', '--concurrency', '8', '--max-retries', '4'])
      last = r.json()
      if (r.code === 0) break
      expect(r.code).toBe(6)
    }
    expect(last.failed).toBe(0)
    expect(last.already_done + last.created + last.replayed + last.advanced + last.partial).toBe(2000)
    const stats = await emu.control<{data: {injected: Record<string, number>}}>('GET', '/_emulator/faults')
    const after = Object.entries(stats.data.injected).filter(([k]) => k.endsWith(':after') && !k.startsWith('latency')).reduce((s, [, n]) => s + n, 0)
    expect(after).toBeGreaterThan(0)
    await emu.control('DELETE', '/_emulator/faults')

    const debits = (await amounts(src, 'debit')).sort((x, y) => x - y)
    const credits = (await amounts(dst, 'credit')).sort((x, y) => x - y)
    expect(debits).toHaveLength(2000)
    expect(debits).toEqual(expected)
    expect(credits).toEqual(expected)
    const totals = (await runAs(emu, 'test', ['subaccounts', 'get', dst], {configDir: dir.path})).json()
    expect(totals.total_incoming_in_minor_units).toBe(expected.reduce((s, v) => s + v, 0))
  }, 600_000)

  it('resumes from the plan it kept, without planning the file again: every row lands once', async () => {
    const [a, b] = [await sub('Resume source'), await sub('Resume destination')]
    const amountsInFile = Array.from({length: 60}, (_, i) => 2000 + i)
    // CRLF line ends and quoted cells with commas and line breaks.
    const file = join(dir.path, 'resume.csv')
    writeFileSync(file, ['from,to,amount_in_minor_units,metadata.note', ...amountsInFile.map((v, i) => `${a},${b},${v},"row ${i}, ${i % 3 ? 'plain' : 'two\r\nlines'}"`)].join('\r\n') + '\r\n')
    await emu.control('POST', '/_emulator/faults', {rate: 1, kinds: ['latency'], latency_ms: 100, methods: ['POST']})
    try {
      const proc = spawnImport([file, '--yes', '--concurrency', '2', '-o', 'json'])
      await signalAt(file, 10, proc, 'SIGKILL')
      await proc.exited
    } finally {
      await emu.control('DELETE', '/_emulator/faults')
    }
    // The killed run kept its plan and its batch: the re-run sends from them.
    expect(importRecords(file)).toMatchObject({plan: true, batch: {finished_at: null}})
    const before = (await amounts(a, 'debit')).length
    expect(before).toBeGreaterThanOrEqual(10)
    expect(before).toBeLessThan(60)

    const rest = await imp([file, '--yes'])
    expect(rest.code, rest.stderr).toBe(0)
    expect(rest.stderr).toMatch(/rows? w(as|ere) imported before/)
    const out = rest.json()
    expect(out.created + out.replayed + out.already_done).toBe(60)
    expect(out.already_done).toBeGreaterThanOrEqual(10)
    expect(out.total_overall).toEqual({USD: amountsInFile.reduce((s, v) => s + v, 0)})
    expect((await amounts(a, 'debit')).sort((x, y) => x - y)).toEqual(amountsInFile)
    // The batch is finished, and a re-run sends nothing.
    expect(importRecords(file)?.batch?.finished_at).toEqual(expect.any(String))
    const again = await imp([file, '--yes'])
    expect(again.json()).toMatchObject({created: 0, already_done: 60})
    expect(await amounts(a, 'debit')).toHaveLength(60)
  }, 120_000)
})

describe('moves import stopped with SIGINT', () => {
  it('after Ctrl-C the summary counts and totals only what was sent', async () => {
    const [a, b] = [await sub('Sigint source'), await sub('Sigint destination')]
    const amountsInFile = Array.from({length: 30}, (_, i) => 1000 + i)
    const file = csv('sigint.csv', ['from,to,amount_in_minor_units', ...amountsInFile.map((v) => `${a},${b},${v}`)])
    await emu.control('POST', '/_emulator/faults', {rate: 1, kinds: ['latency'], latency_ms: 250, methods: ['POST']})
    try {
      const proc = spawnImport([file, '--yes', '--concurrency', '1', '-o', 'json'], 'pipe')
      let stdout = ''
      let stderr = ''
      proc.proc.stdout!.on('data', (d) => (stdout += d))
      proc.proc.stderr!.on('data', (d) => (stderr += d))
      await signalAt(file, 3, proc, 'SIGINT', () => stderr)
      const code = await proc.exited
      for (const s of Object.values(emu.keys)) expect(stdout + stderr).not.toContain(s)
      expectInterruptedImport({code: code ?? -1, stdout, stderr}, amountsInFile, await amounts(a, 'debit'))
    } finally {
      await emu.control('DELETE', '/_emulator/faults')
    }
    // The re-run finishes the rest, exactly once.
    const rest = await imp([file, '--yes'])
    expect(rest.code, rest.stderr).toBe(0)
    expect(rest.json().created + rest.json().already_done).toBe(30)
    expect((await amounts(a, 'debit')).sort((x, y) => x - y)).toEqual(amountsInFile)
  }, 120_000)
})
