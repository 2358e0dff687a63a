/**
 * The audit trail's end, end to end: real `bin/run.js` processes against the emulator make a few
 * mutating calls, then the tail of the log is cut, the head deleted or the log deleted.
 * `audit verify` exits 1 naming the line, and a mutating command refuses (exit 1, with the fix)
 * without sending anything; `--expect-head` anchors the trail to a hash kept elsewhere.
 */
import {existsSync, readFileSync, renameSync, unlinkSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, afterEach, beforeAll, beforeEach, describe, expect, it} from 'vitest'
import {expectNothingSent, runAs, startEmulator, tempDir, type Emulator} from '../support/index.js'

let emu: Emulator
const dir = tempDir('payops-audit-e2e-')
const log = join(dir.path, 'audit.jsonl')
const headFile = join(dir.path, 'audit.head')

const cli = (args: string[]) => runAs(emu, 'test', args, {configDir: dir.path})
/** A mutating command on a broken trail: refused, the emulator receives nothing, the trail does not grow. */
const refusedCli = (args: string[]) => expectNothingSent(emu, () => cli(args), dir.path)
/** How many subaccounts the emulator holds, over all entities: what a create would change. */
const subaccounts = async () => (await emu.control<{data: Array<{subaccount_ids: string[]}>}>('GET', '/_emulator/entities')).data.reduce((n, e) => n + e.subaccount_ids.length, 0)
const lines = () => readFileSync(log, 'utf8').trim().split('\n')

beforeAll(async () => {
  emu = await startEmulator()
})
afterAll(async () => {
  await emu?.stop()
  dir.cleanup()
})

describe('audit trail end and head', () => {
  let hash: string
  let saved: {log: string; head: string} | undefined
  /** Each tampering test starts from the intact trail of the first test and puts it back after. */
  beforeEach(() => {
    if (saved) {
      writeFileSync(log, saved.log)
      writeFileSync(headFile, saved.head)
    }
  })
  afterEach(() => {
    saved ??= {log: readFileSync(log, 'utf8'), head: readFileSync(headFile, 'utf8')}
  })

  it('mutating calls extend the trail; list and verify print its head', async () => {
    for (const name of ['Audit-A', 'Audit-B', 'Audit-C']) {
      const r = await cli(['subaccounts', 'create', '--name', name])
      expect(r.code, r.stderr).toBe(0)
    }
    expect(lines()).toHaveLength(6)
    const head = JSON.parse(readFileSync(headFile, 'utf8')) as {seq: number; hash: string}
    expect(head.seq).toBe(6)
    hash = head.hash
    expect(hash).toBe(JSON.parse(lines()[5]).hash)

    const json = await cli(['audit', 'list', '-o', 'json'])
    expect(json.code).toBe(0)
    expect(json.json()).toHaveLength(6)
    expect(json.stderr.trim().split('\n')).toContain(JSON.stringify({head: {seq: 6, hash}}))

    const table = await cli(['audit', 'list', '-o', 'table'])
    expect(table.code).toBe(0)
    expect(table.stderr).toContain(`Head: record 6, hash ${hash}`)
    expect(table.stdout).not.toContain(hash)

    const verify = await cli(['audit', 'verify'])
    expect(verify.code).toBe(0)
    expect(verify.stderr).toBe(`${log}: intact, 6 records. Head: record 6, hash ${hash}.\n`)
    const vjson = await cli(['audit', 'verify', '-o', 'json'])
    expect(vjson.json()).toMatchObject({ok: true, records: 6, head: {seq: 6, hash}})
  })

  it('--expect-head passes on the head (or a 12-digit prefix) and fails on anything else', async () => {
    const full = await cli(['audit', 'verify', '--expect-head', hash])
    expect(full.code).toBe(0)
    expect(full.stderr).toMatch(/matches --expect-head/)
    expect((await cli(['audit', 'verify', '--expect-head', hash.slice(0, 12).toUpperCase()])).code).toBe(0)
    const older = JSON.parse(lines()[3]).hash as string
    const stale = await cli(['audit', 'verify', '--expect-head', older])
    expect(stale.code).toBe(1)
    expect(stale.stderr).toMatch(/not --expect-head \w{64} \(it is record 4, 2 records before the head: the trail has grown since it was taken\)/)
    const other = await cli(['audit', 'verify', '--expect-head', hash.startsWith('0') ? '1'.repeat(12) : '0'.repeat(12)])
    expect(other.code).toBe(1)
    expect(other.stderr).toMatch(/no record of the log has it/)
    expect((await cli(['audit', 'verify', '--expect-head', hash.slice(0, 11)])).code).toBe(2)
    expect((await cli(['audit', 'verify', '--expect-head', 'not-a-hash-at-all'])).code).toBe(2)
  })

  it('a cut tail fails verify, and a mutating command refuses it (exit 1, the fix, nothing sent)', async () => {
    writeFileSync(log, lines().slice(0, 4).join('\n') + '\n')
    const cut = readFileSync(log, 'utf8')
    const head = readFileSync(headFile, 'utf8')

    const verify = await cli(['audit', 'verify'])
    expect(verify.code).toBe(1)
    expect(verify.stderr).toMatch(/line 5 is missing: the log ends at record 4 but audit\.head names record 6/)

    const before = await subaccounts()
    const refused = await refusedCli(['subaccounts', 'create', '--name', 'Audit-Cut', '-o', 'table'])
    expect(refused.code).toBe(1)
    expect(refused.stdout).toBe('')
    expect(refused.stderr).toBe(
      `Error: Nothing was sent: the audit trail in ${dir.path} was cut or its head changed (audit.jsonl ends at record 4, audit.head names record 6): run \`payops audit verify\`, then move audit.jsonl and audit.head aside to start a new trail\n`,
    )
    const asJson = await refusedCli(['subaccounts', 'create', '--name', 'Audit-Cut', '-o', 'json'])
    expect(asJson.code).toBe(1)
    expect(JSON.parse(asJson.stderr.trim().split('\n')[1]).error).toMatchObject({type: 'AuditTrailError', exit_code: 1})
    expect(await subaccounts()).toBe(before)
    expect(readFileSync(log, 'utf8')).toBe(cut)
    expect(readFileSync(headFile, 'utf8')).toBe(head)
    // Still broken afterwards: the writer did not continue the cut tail and rewrite the head.
    expect((await cli(['audit', 'verify'])).code).toBe(1)
  })

  it('a cut tail with the head deleted or garbled fails verify and is refused', async () => {
    writeFileSync(log, lines().slice(0, 4).join('\n') + '\n')
    unlinkSync(headFile)
    const verify = await cli(['audit', 'verify'])
    expect(verify.code).toBe(1)
    expect(verify.stderr).toMatch(/line 4 \(record 4\) ends the log but audit\.head is missing/)
    const before = await subaccounts()
    const refused = await refusedCli(['subaccounts', 'create', '--name', 'Audit-NoHead'])
    expect(refused.code).toBe(1)
    expect(refused.stderr).toMatch(/lost its head .*move audit\.jsonl and audit\.head aside/)
    expect(existsSync(headFile)).toBe(false)

    writeFileSync(headFile, '{"seq": 6, "hash": "')
    const garbled = await cli(['audit', 'verify'])
    expect(garbled.code).toBe(1)
    expect(garbled.stderr).toMatch(/audit\.head is not valid JSON: the head was garbled, so the end of the log \(record 4, line 4\) cannot be checked/)
    expect((await refusedCli(['subaccounts', 'create', '--name', 'Audit-Garbled'])).code).toBe(1)
    expect(await subaccounts()).toBe(before)
  })

  it('a deleted log fails verify while the head names records', async () => {
    renameSync(log, `${log}.kept`)
    const verify = await cli(['audit', 'verify'])
    expect(verify.code).toBe(1)
    expect(verify.stderr).toMatch(/line 1 is missing: there is no audit\.jsonl but audit\.head names record 6 \(the log was deleted\)/)
    const before = await subaccounts()
    const refused = await refusedCli(['subaccounts', 'create', '--name', 'Audit-NoLog'])
    expect(refused.code).toBe(1)
    expect(refused.stderr).toMatch(/lost its log \(audit\.jsonl is missing or empty but audit\.head names record 6\)/)
    expect(existsSync(log)).toBe(false)
    expect(await subaccounts()).toBe(before)
  })

  it('moving both files aside starts a new trail', async () => {
    renameSync(log, `${log}.old`)
    renameSync(headFile, `${headFile}.old`)
    const r = await cli(['subaccounts', 'create', '--name', 'Audit-Fresh'])
    expect(r.code, r.stderr).toBe(0)
    const verify = await cli(['audit', 'verify'])
    expect(verify.code).toBe(0)
    expect(verify.stderr).toMatch(/intact, 2 records\. Head: record 2, hash [0-9a-f]{64}\./)
  })
})
