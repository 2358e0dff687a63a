/**
 * `moves import` end to end, in-process against the in-process emulator: validation, dry runs,
 * confirmation, metadata and keys, failures and re-runs. The import killed with SIGKILL midway and
 * re-run is in test/smoke/import-kill.test.ts.
 */
import {existsSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {expectNothingSent, runAs as runAsIn, startEmulator, tempDir, type Emulator, type Keys, type RunOptions, expectOnlyRequests, subaccountLookup, importRecords, activityAmounts} from '../support/index.js'

let emu: Emulator
const dir = tempDir()
let a: string
let b: string

/** Runs with this file's config dir (its audit trail is what "nothing sent" checks). */
const runAs = (e: Emulator, key: keyof Keys, args: string[], opts: RunOptions = {}) => runAsIn(e, key, args, {configDir: dir.path, ...opts})
/** Runs `fn` and asserts that no API request reached the emulator and the audit trail did not grow. */
const nothingSent = <T>(fn: () => Promise<T>) => expectNothingSent(emu, fn, dir.path)
/**
 * Runs `fn` and asserts that the emulator received exactly `reads` (`GET /api/…` lookups a plan
 * makes to read a currency or a name, which change nothing; in any order) and nothing else, and
 * that the audit trail did not grow: no request that moves money or changes anything was sent.
 */
const onlyReads = <T>(reads: string[], fn: () => Promise<T>) => expectOnlyRequests(emu, reads, fn, dir.path)
const lookup = subaccountLookup

const sub = async (name: string) => (await runAs(emu, 'test', ['subaccounts', 'create', '--name', name])).json().id as string

const amounts = (id: string, direction: 'credit' | 'debit') => activityAmounts(emu, id, direction)

function csv(name: string, lines: string[]): string {
  const file = join(dir.path, name)
  writeFileSync(file, lines.join('\n') + '\n')
  return file
}

beforeAll(async () => {
  emu = await startEmulator()
  a = await sub('Import source')
  b = await sub('Import destination')
})
afterAll(async () => {
  await emu?.stop()
  dir.cleanup()
})

describe('moves import', () => {
  it('validates every row first and lists all errors with line numbers (exit 2, nothing sent)', async () => {
    const file = csv('bad.csv', ['from,to,amount,metadata.ref', `${a},${b},1.234,x`, `nope,${b},5,y`, `${a},${a},5,z`, `${a},${b},,w`, `${a},${b},0,v`, `${a},${b},-1,u`, `${a},${b},12.50,ok`])
    const r = await nothingSent(() => runAs(emu, 'test', ['moves', 'import', file, '--yes']))
    expect(r.code).toBe(2)
    for (const line of [2, 3, 4, 5, 6, 7]) expect(r.stderr).toMatch(new RegExp(`line ${line}: `))
    expect(r.stderr).not.toMatch(/line 8:/)
    expect(r.stderr).toMatch(/6 problems/)
    expect(importRecords(file)).toBeUndefined()
    expect(await amounts(b, 'credit')).toEqual([])
  })

  it('rejects unknown columns, a missing amount column, duplicate keys and an empty file', async () => {
    const imp = (file: string) => nothingSent(() => runAs(emu, 'test', ['moves', 'import', file]))
    expect((await imp(csv('c1.csv', ['from,to,amont', `${a},${b},1`]))).stderr).toMatch(/unknown column "amont"/)
    expect((await imp(csv('c2.csv', ['from,to', `${a},${b}`]))).stderr).toMatch(/missing an amount column/)
    const dup = await imp(csv('c3.csv', ['from,to,amount,idempotency_key', `${a},${b},1,k1`, `${a},${b},2,k1`]))
    expect(dup.code).toBe(2)
    expect(dup.stderr).toMatch(/line 3: idempotency_key "k1" is also used on line 2/)
    expect((await imp(csv('c4.csv', ['']))).code).toBe(2)
    expect((await imp(join(dir.path, 'missing.csv'))).stderr).toMatch(/no such file/)
    expect((await imp(csv('c5.csv', ['from,to,amount', `${a},${b},"1`]))).stderr).toMatch(/malformed CSV/)
  })

  it('--dry-run shows the count and totals per currency and sends nothing', async () => {
    const file = csv('dry.csv', ['from,to,amount_in_minor_units', `${a},${b},100`, `${a},${b},250`])
    const r = await onlyReads([lookup(a), lookup(b)], () => runAs(emu, 'test', ['moves', 'import', file, '--dry-run']))
    expect(r.code).toBe(0)
    expect(r.json()).toMatchObject({rows: 2, to_send: 2, total_to_send: {USD: 350}, dry_run: true})
    expect(r.stderr).toMatch(/3\.50 USD/)
    expect(r.stderr).not.toMatch(/repeat/)
    expect(r.json().identical_rows).toBe(0)
    expect(importRecords(file)).toBeUndefined()
  })

  it('identical rows are named in the dry run and before the confirmation: each is paid', async () => {
    const file = csv('twice.csv', ['from,to,amount_in_minor_units', `${a},${b},100`, `${a},${b},250`, `${a},${b},100`, `${a},${b},100`])
    const dry = await onlyReads([lookup(a), lookup(b)], () => runAs(emu, 'test', ['moves', 'import', file, '--dry-run']))
    expect(dry.code).toBe(0)
    expect(dry.json()).toMatchObject({rows: 4, to_send: 4, identical_rows: 2, total_to_send: {USD: 550}})
    expect(dry.stderr).toMatch(/2 rows \(lines 4-5\) repeat an earlier row of .*twice\.csv exactly: each is a move of its own and is paid\./)
    const refused = await onlyReads([lookup(a), lookup(b)], () => runAs(emu, 'test', ['moves', 'import', file]))
    expect(refused.code).toBe(3)
    expect(refused.stderr.indexOf('repeat an earlier row')).toBeLessThan(refused.stderr.indexOf('Refusing'))
  })

  it('asks for confirmation: without a terminal and without --yes it refuses (exit 3)', async () => {
    const file = csv('confirm.csv', ['from,to,amount', `${a},${b},1.00`])
    const r = await onlyReads([lookup(a), lookup(b)], () => runAs(emu, 'test', ['moves', 'import', file]))
    expect(r.code).toBe(3)
    expect(r.stderr).toMatch(/Import 1 move .*1\.00 USD/)
  })

  it('imports with metadata, auto_approve and key columns; a re-run skips everything', async () => {
    const c = await sub('Import C')
    const file = csv('ok.csv', [
      'from,to,amount,currency,auto_approve,idempotency_key,metadata.invoice',
      `${a},${c},10.01,USD,true,,INV-1`,
      `${a},${c},10.02,usd,false,,INV-2`,
      `${a},${c},10.03,USD,,fixed-key-${Date.now()},INV-3`,
    ])
    const r = await runAs(emu, 'test', ['moves', 'import', file, '--yes'])
    expect(r.code, r.stderr).toBe(0)
    // The auto_approve=false row is created awaiting approval: nothing moved for it.
    expect(r.json()).toMatchObject({rows: 3, created: 2, awaiting_approval: 1, failed: 0, total_this_run: {USD: 2004}, total_awaiting_approval: {USD: 1002}})
    expect((await amounts(c, 'credit')).sort()).toEqual([1001, 1003])
    const again = await runAs(emu, 'test', ['moves', 'import', file, '--yes'])
    expect(again.json()).toMatchObject({created: 0, already_done: 3})
    const records = importRecords(file)!
    expect(records.batch?.batch_id).toMatch(/^[0-9a-f-]{36}$/)
    expect(records.journal.filter((j) => j.state === 'done')).toHaveLength(3)
    expect(records.batch?.finished_at).toEqual(expect.any(String))
  })

  it('rows failing at the API are reported (exit 6) and retried by a re-run with the same keys', async () => {
    const file = csv('partial.csv', ['from,to,amount_in_minor_units', `${a},${b},7001`, `${a},${b},7002`])
    const before = (await amounts(b, 'credit')).length
    try {
      await emu.control('POST', '/_emulator/faults', {queue: [{kind: '500'}], methods: ['POST']})
      const r = await runAs(emu, 'test', ['moves', 'import', file, '--yes', '--concurrency', '1', '--max-retries', '0'])
      expect(r.code, r.stderr).toBe(6)
      const out = r.json()
      expect(out).toMatchObject({created: 1, failed: 1})
      expect(out.failures[0]).toMatchObject({line: 2, status: 500})
      await emu.control('POST', '/_emulator/faults', {queue: [{kind: '500'}], methods: ['POST']})
      const table = await runAs(emu, 'test', ['moves', 'import', file, '--yes', '--max-retries', '0', '-o', 'table'])
      expect(table.code).toBe(6)
      expect(table.stdout).toMatch(/ALREADY_DONE\s+1/)
      expect(table.stdout).toMatch(/FAILED\s+1/)
      expect(table.stdout).toMatch(/500/)
    } finally {
      await emu.control('DELETE', '/_emulator/faults')
    }
    const done = await runAs(emu, 'test', ['moves', 'import', file, '--yes'])
    expect(done.code, done.stderr).toBe(0)
    expect(done.json()).toMatchObject({created: 1, already_done: 1, failed: 0})
    const credits = await amounts(b, 'credit')
    expect(credits).toHaveLength(before + 2)
    expect(credits.filter((v) => v === 7001 || v === 7002).sort()).toEqual([7001, 7002])
  })

  it('refuses a decimal amount in a currency other than the subaccount\'s', async () => {
    const file = csv('cur.csv', ['from,to,amount,currency', `${a},${b},100,JPY`])
    const r = await onlyReads([lookup(a), lookup(b)], () => runAs(emu, 'test', ['moves', 'import', file, '--yes']))
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(/line 2: amount is in JPY but subaccount .* holds USD/)
  })
})
