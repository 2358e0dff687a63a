/**
 * `moves import` re-runs and dry runs against the real emulator: rows appended after a finished
 * import, rows changed after they were sent, --new-batch duplicates, the read-only checks of a dry
 * run, and what the summary says after Ctrl-C.
 */
import {spawn} from 'node:child_process'
import {appendFileSync, existsSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {BIN, cleanEnv, runAs, startEmulator, tempDir, type Emulator} from './helpers.js'

let emu: Emulator
const dir = tempDir('payops-import-rerun-')

const sub = async (name: string, key: 'test' | 'test_other' = 'test') => (await runAs(emu, key, ['subaccounts', 'create', '--name', name])).json().id as string

/** Every activity amount of a subaccount, through the API (the proof of what moved). */
async function amounts(id: string, direction: 'credit' | 'debit'): Promise<number[]> {
  const r = await runAs(emu, 'test', ['subaccounts', 'activity', id, '--direction', direction, '--all', '--limit', '500', '-o', 'ndjson'])
  expect(r.code, r.stderr).toBe(0)
  return r.stdout.trim() ? r.stdout.trim().split('\n').map((l) => JSON.parse(l).amount_in_minor_units as number) : []
}

function csv(name: string, lines: string[]): string {
  const file = join(dir.path, name)
  writeFileSync(file, lines.join('\n') + '\n')
  return file
}

const imp = (args: string[]) => runAs(emu, 'test', ['moves', 'import', ...args], {env: {PAYOPS_CONFIG_DIR: dir.path}})

beforeAll(async () => {
  emu = await startEmulator()
})
afterAll(async () => {
  await emu?.stop()
  dir.cleanup()
})

describe('moves import re-runs', () => {
  it('rows appended after a finished import: only they are sent, no flag needed', async () => {
    const [a, b] = [await sub('Append source'), await sub('Append destination')]
    const file = csv('append.csv', ['from,to,amount', `${a},${b},1.00`, `${a},${b},2.00`, `${a},${b},2.00`])
    expect((await imp([file, '--yes'])).code).toBe(0)
    appendFileSync(file, `${a},${b},2.00\n`)

    const dry = await imp([file, '--dry-run'])
    expect(dry.code, dry.stderr).toBe(0)
    expect(dry.json()).toMatchObject({rows: 4, to_send: 1, already_done: 3, total_to_send: {USD: 200}})

    const r = await imp([file, '--yes'])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stderr).toMatch(/3 rows were imported before \(journal .*append\.csv\.payops-journal\.jsonl\); 1 new row to send/)
    expect(r.json()).toMatchObject({rows: 4, created: 1, replayed: 0, already_done: 3, failed: 0, not_sent: 0, total_this_run: {USD: 200}, total_overall: {USD: 700}})
    expect((await amounts(b, 'credit')).sort((x, y) => x - y)).toEqual([100, 200, 200, 200])

    const again = await imp([file, '--yes'])
    expect(again.stderr).toMatch(/4 rows were imported before .*nothing to send/)
    expect(again.json()).toMatchObject({created: 0, already_done: 4})
    expect(await amounts(b, 'credit')).toHaveLength(4)
  })

  it('a row already sent that changed: exit 2 naming its line, nothing sent (dry run too)', async () => {
    const [a, b] = [await sub('Change source'), await sub('Change destination')]
    const file = csv('change.csv', ['from,to,amount', `${a},${b},1.00`, `${a},${b},2.00`])
    expect((await imp([file, '--yes'])).code).toBe(0)
    writeFileSync(file, ['from,to,amount', `${a},${b},1.00`, `${a},${b},2.50`, `${a},${b},3.00`].join('\n') + '\n')
    for (const extra of [['--yes'], ['--dry-run']]) {
      const r = await imp([file, ...extra])
      expect(r.code, r.stderr).toBe(2)
      expect(r.stderr).toMatch(/line 3: differs from the row sent from this line/)
      expect(r.stderr).toMatch(/1 row already sent has changed \(line 3 of /)
      expect(r.stderr).not.toMatch(/line 4:/)
    }
    expect((await amounts(b, 'credit')).sort((x, y) => x - y)).toEqual([100, 200])
  })

  it('--new-batch states how many rows were sent before and needs --yes without a terminal', async () => {
    const [a, b] = [await sub('Batch source'), await sub('Batch destination')]
    const file = csv('batch.csv', ['from,to,amount', `${a},${b},1.00`, `${a},${b},2.00`])
    expect((await imp([file, '--yes'])).code).toBe(0)
    appendFileSync(file, `${a},${b},3.00\n`)

    const dry = await imp([file, '--new-batch', '--dry-run'])
    expect(dry.code, dry.stderr).toBe(0)
    expect(dry.stderr).toMatch(/--new-batch: 2 rows \(lines 2-3\) have the same content as rows the earlier batch already sent/)
    expect(dry.json()).toMatchObject({rows: 3, to_send: 3, already_done: 0, duplicates: 2, total_to_send: {USD: 600}})

    const refused = await imp([file, '--new-batch'])
    expect(refused.code).toBe(3)
    expect(refused.stderr).toMatch(/2 rows .* same content/)
    expect(refused.stderr).toMatch(/Refusing to send 2 rows again .*--yes/)
    expect(await amounts(b, 'credit')).toHaveLength(2)
    expect(existsSync(`${file}.payops-journal.jsonl`)).toBe(true)

    const sent = await imp([file, '--new-batch', '--yes'])
    expect(sent.code, sent.stderr).toBe(0)
    expect(sent.json()).toMatchObject({created: 3, already_done: 0})
    expect(await amounts(b, 'credit')).toHaveLength(5)
  })
})

describe('moves import dry run: every read-only check of the real run', () => {
  it('a source or destination of another entity, and a currency mismatch: exit 2 naming the lines', async () => {
    const [a, b] = [await sub('Dry source'), await sub('Dry destination')]
    const foreign = await sub('Other entity', 'test_other')
    const file = csv('foreign.csv', ['from,to,amount,currency', `${a},${b},1.00,USD`, `${foreign},${b},2.00,USD`, `${a},${foreign},3.00,USD`, `${a},${b},100,JPY`])
    for (const extra of [['--dry-run'], ['--yes']]) {
      const r = await imp([file, ...extra])
      expect(r.code, r.stderr).toBe(2)
      expect(r.stderr).toMatch(new RegExp(`line 3: source subaccount ${foreign} was not found for this API key`))
      expect(r.stderr).toMatch(new RegExp(`line 4: destination subaccount ${foreign} was not found for this API key`))
      expect(r.stderr).toMatch(/line 5: amount is in JPY but subaccount .* holds USD/)
      expect(r.stderr).not.toMatch(/line 2:/)
      expect(r.stderr).toMatch(/3 rows of .* failed the checks; nothing was sent/)
    }
    expect(existsSync(`${file}.payops-journal.jsonl`)).toBe(false)
    expect(await amounts(b, 'credit')).toEqual([])
  })

  it('the profile\'s limits apply to a dry run (exit 3)', async () => {
    const [a, b] = [await sub('Limit source'), await sub('Limit destination')]
    const cfg = tempDir('payops-import-limits-')
    try {
      const env = {PAYOPS_CONFIG_DIR: cfg.path, PAYOPS_API_KEY: undefined}
      const add = await runAs(emu, 'test', ['profiles', 'add', 'capped', '--key-stdin', '--base-url', emu.baseUrl], {env, input: emu.keys.test + '\n'})
      expect(add.code, add.stderr).toBe(0)
      expect((await runAs(emu, 'test', ['profiles', 'set', 'capped', 'max-amount', '5.00', 'USD'], {env})).code).toBe(0)
      const file = csv('limits.csv', ['from,to,amount', `${a},${b},1.00`, `${a},${b},9.00`])
      const r = await runAs(emu, 'test', ['moves', 'import', file, '--dry-run', '-p', 'capped'], {env: {...env, PAYOPS_BASE_URL: undefined}})
      expect(r.code, r.stderr).toBe(3)
      expect(r.stderr).toMatch(/line 3/)
      expect(r.stderr).not.toMatch(/line 2/)
    } finally {
      cfg.cleanup()
    }
  })
})

describe('moves import resumed after kill -9', () => {
  it('resumes from the plan cache, reading the file from the first row not done: every row lands once', async () => {
    const [a, b] = [await sub('Resume source'), await sub('Resume destination')]
    const amountsInFile = Array.from({length: 60}, (_, i) => 2000 + i)
    // CRLF line ends and quoted cells with commas and line breaks: byte offsets must hold across them.
    const file = join(dir.path, 'resume.csv')
    writeFileSync(file, ['from,to,amount_in_minor_units,metadata.note', ...amountsInFile.map((v, i) => `${a},${b},${v},"row ${i}, ${i % 3 ? 'plain' : 'two\r\nlines'}"`)].join('\r\n') + '\r\n')
    const journal = `${file}.payops-journal.jsonl`
    const cache = `${file}.payops-plan`
    await emu.control('POST', '/_emulator/faults', {rate: 1, kinds: ['latency'], latency_ms: 100, methods: ['POST']})
    try {
      const env = cleanEnv({PAYOPS_BASE_URL: emu.baseUrl, PAYOPS_API_KEY: emu.keys.test, PAYOPS_CONFIG_DIR: dir.path})
      const proc = spawn(process.execPath, [BIN, 'moves', 'import', file, '--yes', '--concurrency', '2', '-o', 'json'], {env, stdio: 'ignore'})
      const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()))
      await new Promise<void>((resolve, reject) => {
        const timer = setInterval(() => {
          const done = existsSync(journal) ? (readFileSync(journal, 'utf8').match(/"type":"done"/g) ?? []).length : 0
          if (done >= 10) {
            clearInterval(timer)
            proc.kill('SIGKILL')
            resolve()
          }
        }, 20)
        void exited.then(() => {
          clearInterval(timer)
          reject(new Error('the import ended before it could be killed'))
        })
      })
      await exited
    } finally {
      await emu.control('DELETE', '/_emulator/faults')
    }
    expect(existsSync(cache)).toBe(true)
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
    // The batch is finished: its plan cache is gone, and a re-run sends nothing.
    expect(existsSync(cache)).toBe(false)
    const again = await imp([file, '--yes'])
    expect(again.json()).toMatchObject({created: 0, already_done: 60})
    expect(await amounts(a, 'debit')).toHaveLength(60)
  }, 120_000)
})

describe('moves import summaries', () => {
  it('after Ctrl-C the summary counts and totals only what was sent', async () => {
    const [a, b] = [await sub('Sigint source'), await sub('Sigint destination')]
    const amountsInFile = Array.from({length: 30}, (_, i) => 1000 + i)
    const file = csv('sigint.csv', ['from,to,amount_in_minor_units', ...amountsInFile.map((v) => `${a},${b},${v}`)])
    const journal = `${file}.payops-journal.jsonl`
    await emu.control('POST', '/_emulator/faults', {rate: 1, kinds: ['latency'], latency_ms: 250, methods: ['POST']})
    try {
      const env = cleanEnv({PAYOPS_BASE_URL: emu.baseUrl, PAYOPS_API_KEY: emu.keys.test, PAYOPS_CONFIG_DIR: dir.path})
      const proc = spawn(process.execPath, [BIN, 'moves', 'import', file, '--yes', '--concurrency', '1', '-o', 'json'], {env, stdio: ['ignore', 'pipe', 'pipe']})
      let stdout = ''
      let stderr = ''
      proc.stdout.on('data', (d) => (stdout += d))
      proc.stderr.on('data', (d) => (stderr += d))
      const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)))
      await new Promise<void>((resolve, reject) => {
        const timer = setInterval(() => {
          const done = existsSync(journal) ? (readFileSync(journal, 'utf8').match(/"type":"done"/g) ?? []).length : 0
          if (done >= 3) {
            clearInterval(timer)
            proc.kill('SIGINT')
            resolve()
          }
        }, 20)
        void exited.then((code) => {
          clearInterval(timer)
          reject(new Error(`the import ended (exit ${code}) before it could be interrupted: ${stderr}`))
        })
      })
      expect(await exited).toBe(6)
      for (const s of Object.values(emu.keys)) expect(stdout + stderr).not.toContain(s)
      const out = JSON.parse(stdout)
      expect(out.interrupted).toBe(true)
      expect(out.created).toBeGreaterThanOrEqual(3)
      expect(out.created).toBeLessThan(30)
      expect(out.created + out.not_sent).toBe(30)
      const moved = (await amounts(a, 'debit')).sort((x, y) => x - y)
      expect(moved).toEqual(amountsInFile.slice(0, out.created))
      const sum = moved.reduce((s, v) => s + v, 0)
      expect(out.total_this_run).toEqual({USD: sum})
      expect(out.total_overall).toEqual({USD: sum})
      expect(out).not.toHaveProperty('totals')
      expect(stderr).toMatch(new RegExp(`Interrupted: ${out.created} of 30 rows done, ${out.not_sent} not sent \\(${(sum / 100).toFixed(2).replace(/\B(?=(\d{3})+(?!\d))/g, ',')} USD moved by this run\\)`))
    } finally {
      await emu.control('DELETE', '/_emulator/faults')
    }
    // The re-run finishes the rest, exactly once.
    const rest = await imp([file, '--yes'])
    expect(rest.code, rest.stderr).toBe(0)
    expect(rest.json().created + rest.json().already_done).toBe(30)
    expect((await amounts(a, 'debit')).sort((x, y) => x - y)).toEqual(amountsInFile)
  }, 120_000)

  it('one name per count: the table headers are the JSON keys', async () => {
    const [a, b] = [await sub('Names source'), await sub('Names destination')]
    const file = csv('names.csv', ['from,to,amount', `${a},${b},1.00`])
    const json = await imp([file, '--yes'])
    expect(json.code, json.stderr).toBe(0)
    const table = await imp([file, '--yes', '-o', 'table'])
    expect(table.code, table.stderr).toBe(0)
    const headers = table.stdout.trim().split('\n').map((l) => l.split(/\s+/)[0].toLowerCase())
    const keys = Object.keys(json.json())
    for (const h of headers) expect(keys).toContain(h)
    for (const count of ['created', 'replayed', 'advanced', 'already_done', 'partial', 'failed', 'not_sent', 'total_this_run', 'total_overall']) {
      expect(headers).toContain(count)
      expect(keys).toContain(count)
    }
    expect(table.stdout).toMatch(/ALREADY_DONE\s+1/)
    expect(table.stdout).not.toMatch(/DONE BEFORE|SKIPPED/i)
  })
})
