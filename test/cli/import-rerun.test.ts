/**
 * `moves import` re-runs and dry runs, in-process against the in-process emulator: rows appended
 * after a finished import, rows changed after they were sent, --new-batch duplicates, the read-only
 * checks of a dry run, and what the summary says after Ctrl-C. The same after a real SIGINT, and
 * the resume after kill -9, are in test/smoke/import-kill.test.ts.
 */
import {appendFileSync, existsSync, readFileSync, symlinkSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {expectNothingSent, runAs, startCli, startEmulator, tempDir, type Emulator, expectOnlyRequests, subaccountLookup, importDone, importRecords, activityAmounts, expectInterruptedImport} from '../support/index.js'

let emu: Emulator
const dir = tempDir('payops-import-rerun-')

const sub = async (name: string, key: 'test' | 'test_other' = 'test') => (await runAs(emu, key, ['subaccounts', 'create', '--name', name])).json().id as string

const amounts = (id: string, direction: 'credit' | 'debit') => activityAmounts(emu, id, direction)

function csv(name: string, lines: string[]): string {
  const file = join(dir.path, name)
  writeFileSync(file, lines.join('\n') + '\n')
  return file
}

const imp = (args: string[]) => runAs(emu, 'test', ['moves', 'import', ...args], {configDir: dir.path})

/** Runs `fn` and asserts that neither the emulator nor the audit trail of `configDir` saw anything. */
const nothingSent = <T>(fn: () => Promise<T>, configDir = dir.path) => expectNothingSent(emu, fn, configDir)
/**
 * Runs `fn` and asserts that the emulator received exactly `reads` (`GET /api/…` lookups a plan
 * makes to read a currency or a name, which change nothing; in any order) and nothing else, and
 * that the audit trail did not grow: no request that moves money or changes anything was sent.
 */
const onlyReads = <T>(reads: string[], fn: () => Promise<T>) => expectOnlyRequests(emu, reads, fn, dir.path)
const lookup = subaccountLookup

/** How many rows the journal records as done. */

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
    // "Not sent before": an appended row and a row an interrupted run never sent read alike, truly.
    expect(r.stderr).toMatch(/3 rows were imported before \(journal .*append\.csv\.payops-import\.sqlite\); to send: 1 row not sent before\./)
    expect(r.stderr).not.toMatch(/new row/)
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
      const r = await nothingSent(() => imp([file, ...extra]))
      expect(r.code, r.stderr).toBe(2)
      expect(r.stderr).toMatch(/line 3: this line held a row that was sent, and the file no longer holds it/)
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

    const refused = await onlyReads([lookup(a), lookup(b)], () => imp([file, '--new-batch']))
    expect(refused.code).toBe(3)
    expect(refused.stderr).toMatch(/2 rows .* same content/)
    expect(refused.stderr).toMatch(/Refusing to send 2 rows again .*--yes/)
    expect(await amounts(b, 'credit')).toHaveLength(2)
    expect(importRecords(file)?.journal).toHaveLength(2)

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
      const r = await onlyReads([lookup(a), lookup(b), lookup(foreign)], () => imp([file, ...extra]))
      expect(r.code, r.stderr).toBe(2)
      expect(r.stderr).toMatch(new RegExp(`line 3: source subaccount ${foreign} was not found for this API key`))
      expect(r.stderr).toMatch(new RegExp(`line 4: destination subaccount ${foreign} was not found for this API key`))
      expect(r.stderr).toMatch(/line 5: amount is in JPY but subaccount .* holds USD/)
      expect(r.stderr).not.toMatch(/line 2:/)
      expect(r.stderr).toMatch(/3 rows of .* failed the checks; nothing was sent/)
    }
    expect(importRecords(file)).toBeUndefined()
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
      // The dry run reports every problem class, so it makes the read-only lookups too; nothing else is sent.
      const r = await expectOnlyRequests(emu, [lookup(a), lookup(b)], () => runAs(emu, 'test', ['moves', 'import', file, '--dry-run', '-p', 'capped'], {env: {...env, PAYOPS_BASE_URL: undefined}}), cfg.path)
      expect(r.code, r.stderr).toBe(3)
      expect(r.stderr).toMatch(/line 3/)
      expect(r.stderr).not.toMatch(/line 2/)
    } finally {
      cfg.cleanup()
    }
  })
})

describe('moves import summaries', () => {
  it('after Ctrl-C the summary counts and totals only what was sent', async () => {
    const [a, b] = [await sub('Sigint source'), await sub('Sigint destination')]
    const amountsInFile = Array.from({length: 30}, (_, i) => 1000 + i)
    const file = csv('sigint.csv', ['from,to,amount_in_minor_units', ...amountsInFile.map((v) => `${a},${b},${v}`)])
    // Each move takes the emulator a while, so that Ctrl-C comes with rows still to send.
    await emu.control('POST', '/_emulator/faults', {rate: 1, kinds: ['latency'], latency_ms: 100, methods: ['POST']})
    try {
      const running = startCli(['moves', 'import', file, '--yes', '--concurrency', '1', '-o', 'json'], {configDir: dir.path, env: {PAYOPS_BASE_URL: emu.baseUrl, PAYOPS_API_KEY: emu.keys.test}})
      let finished = false
      void running.done.then(() => (finished = true), () => (finished = true))
      // Ctrl-C once three rows are journaled as done.
      while (importDone(file) < 3) {
        if (finished) throw new Error(`the import ended before it could be interrupted: ${running.stderr()}`)
        await new Promise((r) => setTimeout(r, 10))
      }
      running.interrupt()
      const r = await running.done
      expect(running.exits).toEqual([])
      expectInterruptedImport(r, amountsInFile, await amounts(a, 'debit'))
    } finally {
      await emu.control('DELETE', '/_emulator/faults')
    }
    // The re-run finishes the rest, exactly once.
    const rest = await imp([file, '--yes'])
    expect(rest.code, rest.stderr).toBe(0)
    expect(rest.json().created + rest.json().already_done).toBe(30)
    // The rows Ctrl-C left unsent are not "new rows": they were in the file all along.
    expect(rest.stderr).toMatch(/to send: \d+ rows? not sent before/)
    expect(rest.stderr).not.toMatch(/new row/)
    expect((await amounts(a, 'debit')).sort((x, y) => x - y)).toEqual(amountsInFile)
  })

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

describe('moves import: one file, one batch', () => {
  it('two imports of one file started together (one through a symlink) move every row once', async () => {
    const [a, b] = [await sub('Together source'), await sub('Together destination')]
    const file = csv('together.csv', ['from,to,amount', ...Array.from({length: 100}, () => `${a},${b},1.00`)])
    const link = join(dir.path, 'together-link.csv')
    symlinkSync(file, link)
    const env = {PAYOPS_BASE_URL: emu.baseUrl, PAYOPS_API_KEY: emu.keys.test}
    const runs = [file, link].map((f) => startCli(['moves', 'import', f, '--yes', '--concurrency', '4', '-o', 'json'], {configDir: dir.path, env}))
    const [one, two] = await Promise.all(runs.map((r) => r.done))
    // Each either sent the rows or found them done (or, still locked out, refused: exit 2); never both sent.
    for (const r of [one, two]) expect([0, 2], r.stderr).toContain(r.code)
    const created = [one, two].filter((r) => r.code === 0).reduce((n, r) => n + r.json().created, 0)
    expect(created).toBe(100)
    expect(await amounts(b, 'credit')).toHaveLength(100)
    const credited = (await runAs(emu, 'test', ['subaccounts', 'get', b])).json().total_incoming_in_minor_units
    expect(credited).toBe(10_000)
    // One database for both paths, beside the real file.
    expect(importRecords(file)?.journal.filter((j) => j.state === 'done')).toHaveLength(100)
    expect(existsSync(`${link}.payops-import.sqlite`)).toBe(false)
  })

  it('an import from stdin needs --journal (exit 2, nothing sent); with it, a second run sends nothing again', async () => {
    const [a, b] = [await sub('Stdin source'), await sub('Stdin destination')]
    const input = ['from,to,amount', `${a},${b},1.25`, `${a},${b},1.25`].join('\n') + '\n'
    const refused = await nothingSent(() => runAs(emu, 'test', ['moves', 'import', '-', '--yes'], {configDir: dir.path, input}))
    expect(refused.code).toBe(2)
    expect(refused.stderr).toMatch(/An import from stdin needs --journal FILE/)
    const journal = join(dir.path, 'stdin-batch.sqlite')
    const first = await runAs(emu, 'test', ['moves', 'import', '-', '--journal', journal, '--yes'], {configDir: dir.path, input})
    expect(first.code, first.stderr).toBe(0)
    expect(first.json()).toMatchObject({rows: 2, created: 2})
    const again = await runAs(emu, 'test', ['moves', 'import', '-', '--journal', journal, '--yes'], {configDir: dir.path, input})
    expect(again.code, again.stderr).toBe(0)
    expect(again.json()).toMatchObject({rows: 2, created: 0, already_done: 2})
    expect(await amounts(b, 'credit')).toEqual([125, 125])
    expect(importRecords('-', journal)?.journal).toHaveLength(2)
  })

  it('a planted symlink where the import database goes is refused (exit 2), and its target is left alone', async () => {
    const [a, b] = [await sub('Planted source'), await sub('Planted destination')]
    const file = csv('planted.csv', ['from,to,amount', `${a},${b},1.00`])
    const victim = join(dir.path, 'victim.txt')
    writeFileSync(victim, 'keep me\n')
    symlinkSync(victim, `${file}.payops-import.sqlite`)
    const r = await nothingSent(() => imp([file, '--yes']))
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(/planted\.csv\.payops-import\.sqlite is a symbolic link; payops does not open a state file through one/)
    expect(readFileSync(victim, 'utf8')).toBe('keep me\n')
  })
})
