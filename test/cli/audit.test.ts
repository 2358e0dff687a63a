/**
 * The audit trail's end, end to end: commands against the emulator make a few mutating calls,
 * then records are cut off the end of the store, its head deleted or garbled, a record edited or
 * every record deleted. `audit verify` exits 1 naming the record, and a mutating command refuses
 * (exit 1, with the fix) without sending anything; `--expect-head` anchors the trail to a hash
 * kept elsewhere. An export (`audit export --format jsonl`) is checked by `audit verify FILE`.
 */
import {existsSync, readFileSync, statSync, unlinkSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, afterEach, beforeAll, beforeEach, describe, expect, it} from 'vitest'
import {readAudit, readAuditHead} from '../../src/audit/index.js'
import {expectNothingSent, runAs, startEmulator, tempDir, type Emulator} from '../support/index.js'
import {exportedTrail, restoreTrail, snapshotTrail, tamper, trailFile, type TrailSnapshot} from '../support/trail.js'

let emu: Emulator
const dir = tempDir('payops-audit-e2e-')
const store = trailFile(dir.path)

const cli = (args: string[]) => runAs(emu, 'test', args, {configDir: dir.path})
/** A mutating command on a broken trail: refused, the emulator receives nothing, the trail does not grow. */
const refusedCli = (args: string[]) => expectNothingSent(emu, () => cli(args), dir.path)
/** How many subaccounts the emulator holds, over all entities: what a create would change. */
const subaccounts = async () => (await emu.control<{data: Array<{subaccount_ids: string[]}>}>('GET', '/_emulator/entities')).data.reduce((n, e) => n + e.subaccount_ids.length, 0)

beforeAll(async () => {
  emu = await startEmulator()
})
afterAll(async () => {
  await emu?.stop()
  dir.cleanup()
})

describe('audit trail end and head', () => {
  let hash: string
  let saved: TrailSnapshot | undefined
  /** Each tampering test starts from the intact trail of the first test and puts it back after. */
  beforeEach(() => {
    if (saved) restoreTrail(dir.path, saved)
  })
  afterEach(() => {
    saved ??= snapshotTrail(dir.path)
  })

  it('mutating calls extend the trail in its store; list and verify print its head', async () => {
    for (const name of ['Audit-A', 'Audit-B', 'Audit-C']) {
      const r = await cli(['subaccounts', 'create', '--name', name])
      expect(r.code, r.stderr).toBe(0)
    }
    expect(existsSync(join(dir.path, 'audit.jsonl'))).toBe(false)
    const records = readAudit(dir.path)
    expect(records.map((r) => r.kind)).toEqual(['intent', 'outcome', 'intent', 'outcome', 'intent', 'outcome'])
    const head = readAuditHead(dir.path)
    expect(head).toMatchObject({state: 'ok', head: {seq: 6}})
    hash = (head as {head: {hash: string}}).head.hash
    expect(hash).toBe(records[5].hash)

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
    expect(verify.stderr).toBe(`${store}: intact, 6 records. Head: record 6, hash ${hash}.\n`)
    const vjson = await cli(['audit', 'verify', '-o', 'json'])
    expect(vjson.json()).toMatchObject({ok: true, records: 6, head: {seq: 6, hash}})
  })

  it('--expect-head passes on the head (or a 12-digit prefix) and fails on anything else', async () => {
    const full = await cli(['audit', 'verify', '--expect-head', hash])
    expect(full.code).toBe(0)
    expect(full.stderr).toMatch(/matches --expect-head/)
    expect((await cli(['audit', 'verify', '--expect-head', hash.slice(0, 12).toUpperCase()])).code).toBe(0)
    const older = readAudit(dir.path)[3].hash
    const stale = await cli(['audit', 'verify', '--expect-head', older])
    expect(stale.code).toBe(1)
    expect(stale.stderr).toMatch(/not --expect-head \w{64} \(it is record 4, 2 records before the head: the trail has grown since it was taken\)/)
    const other = await cli(['audit', 'verify', '--expect-head', hash.startsWith('0') ? '1'.repeat(12) : '0'.repeat(12)])
    expect(other.code).toBe(1)
    expect(other.stderr).toMatch(/no record of the chain has it/)
    expect((await cli(['audit', 'verify', '--expect-head', hash.slice(0, 11)])).code).toBe(2)
    expect((await cli(['audit', 'verify', '--expect-head', 'not-a-hash-at-all'])).code).toBe(2)
  })

  it('records cut off the end fail verify, and a mutating command refuses the trail (exit 1, the fix, nothing sent)', async () => {
    tamper(dir.path, 'DELETE FROM trail WHERE seq > 4')
    const verify = await cli(['audit', 'verify'])
    expect(verify.code).toBe(1)
    expect(verify.stderr).toContain(`${store}: record 5 is missing: the chain ends at record 4 but the trail's head names record 6 (records removed from the end).`)

    const before = await subaccounts()
    const refused = await refusedCli(['subaccounts', 'create', '--name', 'Audit-Cut', '-o', 'table'])
    expect(refused.code).toBe(1)
    expect(refused.stdout).toBe('')
    expect(refused.stderr).toBe(
      `Error: Nothing was sent: the audit trail in ${store} was cut or its head changed (the trail ends at record 4, its head names record 6): run \`payops audit verify\`; nothing can be added to a trail whose end does not match its head\n`,
    )
    const asJson = await refusedCli(['subaccounts', 'create', '--name', 'Audit-Cut', '-o', 'json'])
    expect(asJson.code).toBe(1)
    expect(JSON.parse(asJson.stderr.trim().split('\n')[1]).error).toMatchObject({type: 'AuditTrailError', exit_code: 1})
    expect(await subaccounts()).toBe(before)
    // Still broken afterwards: the writer did not continue the cut chain and move the head.
    expect(readAudit(dir.path)).toHaveLength(4)
    expect((await cli(['audit', 'verify'])).code).toBe(1)
  })

  it('a cut chain with its head deleted or garbled fails verify and is refused', async () => {
    tamper(dir.path, 'DELETE FROM trail WHERE seq > 4')
    tamper(dir.path, 'DELETE FROM trail_head')
    const verify = await cli(['audit', 'verify'])
    expect(verify.code).toBe(1)
    expect(verify.stderr).toContain(`${store}: record 4 ends the chain but the trail's head is missing`)
    const before = await subaccounts()
    const refused = await refusedCli(['subaccounts', 'create', '--name', 'Audit-NoHead'])
    expect(refused.code).toBe(1)
    expect(refused.stderr).toMatch(/lost its head \(the trail ends at record 4 but its head is missing\)/)

    tamper(dir.path, "INSERT INTO trail_head (only_row, seq, hash) VALUES (1, 6, 'not a hash')")
    const garbled = await cli(['audit', 'verify'])
    expect(garbled.code).toBe(1)
    expect(garbled.stderr).toMatch(/the trail's head holds no valid record number and hash: the head was garbled, so the end of the chain \(record 4, record 4\) cannot be checked/)
    expect((await refusedCli(['subaccounts', 'create', '--name', 'Audit-Garbled'])).code).toBe(1)
    expect(await subaccounts()).toBe(before)
  })

  it('an edited record fails verify, naming it', async () => {
    tamper(dir.path, "UPDATE trail SET record = json_set(record, '$.status', 500) WHERE seq = 2")
    const verify = await cli(['audit', 'verify'])
    expect(verify.code).toBe(1)
    expect(verify.stderr).toContain(`${store}: record 2 was edited (its hash does not match its content).`)
  })

  it('every record deleted fails verify while the head names records, and is refused', async () => {
    tamper(dir.path, 'DELETE FROM trail')
    const verify = await cli(['audit', 'verify'])
    expect(verify.code).toBe(1)
    expect(verify.stderr).toContain('record 1 is missing: there are no records but the trail\'s head names record 6 (the records were deleted)')
    const refused = await refusedCli(['subaccounts', 'create', '--name', 'Audit-NoLog'])
    expect(refused.code).toBe(1)
    expect(refused.stderr).toMatch(/lost its records \(there are none but its head names record 6\)/)
  })

  it('a store moved aside starts a new trail', async () => {
    unlinkSync(store)
    const r = await cli(['subaccounts', 'create', '--name', 'Audit-Fresh'])
    expect(r.code, r.stderr).toBe(0)
    const verify = await cli(['audit', 'verify'])
    expect(verify.code).toBe(0)
    expect(verify.stderr).toMatch(/intact, 2 records\. Head: record 2, hash [0-9a-f]{64}\./)
  })
})

describe('audit export --format jsonl and audit verify FILE', () => {
  const out = tempDir('payops-audit-export-')
  afterAll(() => out.cleanup())
  const file = (name: string) => join(out.path, name)
  /** Writes `lines` (and a line end) to a new file in the temp dir; its path. */
  const write = (name: string, lines: string[]) => (writeFileSync(file(name), lines.join('\n') + '\n'), file(name))

  it('writes the chain as JSON lines with its head line, 0600; verify FILE finds it intact with the store\'s head', async () => {
    expect((await cli(['subaccounts', 'create', '--name', 'Export-A'])).code).toBe(0)
    const r = await cli(['audit', 'export', '--format', 'jsonl', '--out', file('trail.jsonl')])
    expect(r.code, r.stderr).toBe(0)
    const text = readFileSync(file('trail.jsonl'), 'utf8')
    expect(statSync(file('trail.jsonl')).mode & 0o777).toBe(0o600)
    expect(text).toBe(exportedTrail(dir.path))
    const lines = text.trim().split('\n')
    const head = JSON.parse(lines.at(-1)!) as {head: {seq: number; hash: string}}
    expect(head.head).toEqual({seq: lines.length - 1, hash: JSON.parse(lines.at(-2)!).hash})
    expect(JSON.parse(lines[0])).toMatchObject({seq: 1, kind: 'intent', prev: '0'.repeat(64)})
    expect(r.stderr).toContain(`Exported ${head.head.seq} records to ${file('trail.jsonl')}; head: record ${head.head.seq}, hash ${head.head.hash}.`)
    const verify = await cli(['audit', 'verify', file('trail.jsonl')])
    expect(verify.code, verify.stderr).toBe(0)
    expect(verify.stderr).toBe(`${file('trail.jsonl')}: intact, ${head.head.seq} records. Head: record ${head.head.seq}, hash ${head.head.hash}.\n`)
    expect((await cli(['audit', 'verify', file('trail.jsonl'), '--expect-head', head.head.hash])).code).toBe(0)
    // To stdout without --out: the same lines.
    const piped = await cli(['audit', 'export', '--format', 'jsonl'])
    expect(piped.stdout).toBe(text)
    // Never over a file.
    const again = await cli(['audit', 'export', '--format', 'jsonl', '--out', file('trail.jsonl')])
    expect(again.code).toBe(2)
    expect(again.stderr).toContain('already exists')
    // A format it does not write: exit 2, one line, nothing written.
    const xml = await cli(['audit', 'export', '--format', 'xml', '--out', file('trail.xml')])
    expect(xml.code).toBe(2)
    expect(xml.stderr.split('\n')[0]).toBe('Error: Expected --format=xml to be one of: jsonl (see --help)')
    expect(existsSync(file('trail.xml'))).toBe(false)
  })

  it('edited, removed, reordered and cut lines are named', async () => {
    const lines = readFileSync(file('trail.jsonl'), 'utf8').trim().split('\n')
    const edited = [...lines]
    edited[2] = JSON.stringify({...JSON.parse(lines[2]), status: 500})
    const cases: Array<[string, string[], RegExp]> = [
      ['edited', edited, /line 3 was edited \(its hash does not match its content\)/],
      ['removed', lines.filter((_, i) => i !== 1), /line 2 follows a removed record \(the chain skips\)/],
      ['reordered', [lines[0], lines[2], lines[1], ...lines.slice(3)], /line 2 follows a removed record/],
      ['cut', [...lines.slice(0, -3), lines.at(-1)!], /is missing: the chain ends at record \d+ but the head line names record \d+ \(records removed from the end\)/],
      ['headless', lines.slice(0, -1), /the head line is missing \(the file does not end with its head line/],
    ]
    const absent = await cli(['audit', 'verify', file('absent.jsonl'), '-o', 'table'])
    expect(absent.code).toBe(2)
    expect(absent.stderr).toBe(`Error: ${file('absent.jsonl')} does not exist.\n`)
    expect((await cli(['audit', 'verify', out.path, '-o', 'table'])).stderr).toContain(`Cannot read ${out.path}: EISDIR.`)
    for (const [name, body, expected] of cases) {
      const r = await cli(['audit', 'verify', write(`${name}.jsonl`, body), '-o', 'table'])
      expect(r.code, name).toBe(1)
      expect(r.stderr, name).toMatch(expected)
      expect(r.stderr.trim().split('\n'), r.stderr).toHaveLength(1)
    }
  })
})
