/**
 * Daily caps: the money moved today (UTC) under a key, by every command and `payops api`, plus the
 * request must stay under the cap, or the request is refused before sending. A payment split into
 * pieces under the per-move limit is stopped at the cap.
 */
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import type {AuditRecord} from '../../src/audit/index.js'
import {movedSince} from '../../src/movements/history.js'
import {readAudit} from '../../src/audit/index.js'
import {activityAmounts, run, startEmulator, tempDir, type Emulator, type RunOptions} from '../support/index.js'

let emu: Emulator
const dir = tempDir()
let a: string
let b: string

const cli = (args: string[], opts: RunOptions = {}) => run(args, {configDir: dir.path, ...opts})
const credits = () => activityAmounts(emu, b, 'credit')
/** Runs `fn` and asserts that it sent only reads (the lookups a plan makes) and wrote no audit record. */
async function onlyReads<T>(fn: () => Promise<T>): Promise<T> {
  const before = (await emu.requestLog()).count
  const audit = readAudit(dir.path).length
  const result = await fn()
  const after = await emu.requestLog()
  const sent = after.count > before ? after.recent.slice(-(after.count - before)) : []
  expect(sent.filter((r) => r.method !== 'GET').map((r) => `${r.method} ${r.path}`), 'requests that change anything').toEqual([])
  expect(readAudit(dir.path).length, 'audit records written').toBe(audit)
  return result
}

beforeAll(async () => {
  emu = await startEmulator()
  await cli(['profiles', 'add', 'sandbox', '--base-url', emu.baseUrl, '--key-stdin', '--use'], {input: emu.keys.test})
  await cli(['profiles', 'add', 'other', '--base-url', emu.baseUrl, '--key-stdin'], {input: emu.keys.test_other})
  a = (await cli(['subaccounts', 'create', '--name', 'Cap A'])).json().id
  b = (await cli(['subaccounts', 'create', '--name', 'Cap B'])).json().id
})
afterAll(async () => {
  await emu?.stop()
  dir.cleanup()
})

describe('daily-max', () => {
  it('is set and unset per currency, and validated', async () => {
    expect((await cli(['profiles', 'set', 'sandbox', 'daily-max', '100.00'])).code).toBe(2)
    expect((await cli(['profiles', 'set', 'sandbox', 'daily-max', '1.001', 'USD'])).code).toBe(2)
    expect((await cli(['profiles', 'unset', 'sandbox', 'daily-max'])).stderr).toMatch(/has no daily-max to remove/)
    const ok = await cli(['profiles', 'set', 'sandbox', 'daily-max', '100.00', 'USD'])
    expect(ok.code, ok.stderr).toBe(0)
    expect(ok.json().limits).toEqual({daily_max: {USD: 10_000}})
    expect((await cli(['profiles', 'set', 'sandbox', 'max-amount', '50.00', 'USD'])).code).toBe(0)
  })

  it('a payment split under the per-move limit is refused at the cap, naming the cap, today\'s total and the request; nothing is sent', async () => {
    for (const amount of ['40.00', '40.00']) expect((await cli(['moves', 'create', '--from', a, '--to', b, '--amount', amount])).code).toBe(0)
    const r = await onlyReads(() => cli(['moves', 'create', '--from', a, '--to', b, '--amount', '20.01']))
    expect(r.code, r.stderr).toBe(3)
    expect(r.stderr).toContain('daily-max 100.00 USD of profile "sandbox": 80.00 USD moved today (UTC) under this key + 20.01 USD asked = 100.01 USD')
    expect(await credits()).toEqual([4000, 4000])
    // Up to the cap exactly is allowed.
    expect((await cli(['moves', 'create', '--from', a, '--to', b, '--amount', '20.00'])).code).toBe(0)
  })

  it('counts `payops api`, binds to the key under another profile name, and refuses a created move\'s approval past the cap', async () => {
    const body = JSON.stringify({from_subaccount_id: a, to_subaccount_id: b, amount_in_minor_units: 1})
    const raw = await onlyReads(() => cli(['api', 'POST', '/api/subaccounts/move', '--input', '-'], {input: body}))
    expect(raw.code, raw.stderr).toBe(3)
    expect(raw.stderr).toMatch(/100\.00 USD moved today/)
    const viaEnv = await onlyReads(() => cli(['-p', 'other', 'moves', 'create', '--from', a, '--to', b, '--amount', '0.01'], {env: {PAYOPS_API_KEY: emu.keys.test}}))
    expect(viaEnv.code, viaEnv.stderr).toBe(3)
    expect(viaEnv.stderr).toMatch(/daily-max 100\.00 USD of profile "sandbox"/)
    // A move created without auto-approval moves nothing yet; its approval is held to the cap.
    const pending = await cli(['moves', 'create', '--from', a, '--to', b, '--amount', '5.00', '--no-auto-approve'])
    expect(pending.code, pending.stderr).toBe(0)
    const approve = await onlyReads(() => cli(['moves', 'approve', pending.json().id]))
    expect(approve.code, approve.stderr).toBe(3)
    expect(approve.stderr).toMatch(/100\.00 USD moved today \(UTC\) under this key \+ 5\.00 USD asked/)
    expect((await cli(['moves', 'cancel', pending.json().id])).code).toBe(0)
    expect(await credits()).toEqual([2000, 4000, 4000])
  })

  it('an import is checked as a whole against the cap before its first row', async () => {
    expect((await cli(['profiles', 'set', 'sandbox', 'daily-max', '130.00', 'USD'])).code).toBe(0)
    const file = join(dir.path, 'cap.csv')
    writeFileSync(file, ['from,to,amount', `${a},${b},10.00`, `${a},${b},10.00`, `${a},${b},10.01`].join('\n') + '\n')
    const r = await onlyReads(() => cli(['moves', 'import', file, '--yes']))
    expect(r.code, r.stderr).toBe(3)
    expect(r.stderr).toMatch(/100\.00 USD moved today \(UTC\) under this key \+ 30\.01 USD asked = 130\.01 USD/)
    expect(await credits()).toEqual([2000, 4000, 4000])
    expect((await cli(['profiles', 'unset', 'sandbox', 'daily-max', 'USD'])).code).toBe(0)
    const sent = await cli(['moves', 'import', file, '--yes'])
    expect(sent.code, sent.stderr).toBe(0)
  })
})

describe('movedSince', () => {
  let seq = 0
  const rec = (o: Partial<AuditRecord>): AuditRecord =>
    ({seq: ++seq, time: '2026-11-26T10:00:00.000Z', pid: 1, prev: '', hash: '', profile: 'p', mode: 'test', method: 'POST', path: '/api/subaccounts/move', op: `op${seq}`, kind: 'intent', amount_in_minor_units: 100, currency_code: 'USD', ...o}) as AuditRecord
  const since = Date.parse('2026-11-26T00:00:00Z')
  const usd = (records: AuditRecord[]) => movedSince(records, since).get('USD') ?? 0n

  it('counts settled and approved creates and approvals, not created, replayed or refused ones, nor yesterday\'s', () => {
    const settled = [rec({op: 's', idempotency_key: 'k1'}), rec({op: 's', kind: 'outcome', status: 201, outcome: 'created', resource_id: 'm1', resource_status: 'settled', idempotency_key: 'k1'})]
    const created = [rec({op: 'c'}), rec({op: 'c', kind: 'outcome', status: 201, outcome: 'created', resource_id: 'm2', resource_status: 'created'})]
    const approve = [rec({op: 'a', path: '/api/subaccounts/move/m2/approve'}), rec({op: 'a', kind: 'outcome', path: '/api/subaccounts/move/m2/approve', status: 201, outcome: 'advanced', resource_id: 'm2', resource_status: 'settled'})]
    const replay = [rec({op: 'r', idempotency_key: 'k1'}), rec({op: 'r', kind: 'outcome', status: 200, outcome: 'replayed', resource_id: 'm1', resource_status: 'settled', idempotency_key: 'k1'})]
    const refused = [rec({op: 'x'}), rec({op: 'x', kind: 'outcome', status: 400})]
    const yesterday = [rec({op: 'y', time: '2026-11-25T23:59:59.000Z'}), rec({op: 'y', kind: 'outcome', time: '2026-11-25T23:59:59.000Z', status: 201, outcome: 'created', resource_status: 'settled'})]
    const credit = [rec({op: 'cr', path: '/api/treasury/accounts/t/simulate-inbound-credit'}), rec({op: 'cr', kind: 'outcome', path: '/api/treasury/accounts/t/simulate-inbound-credit', status: 201, outcome: 'created'})]
    expect(usd([...yesterday, ...settled, ...created, ...approve, ...replay, ...refused, ...credit])).toBe(200n)
  })

  it('counts an attempt whose outcome is unknown, unless a later answer for its key made or moved it; a run that never sent it is not counted', () => {
    const lost = [rec({op: 'l', idempotency_key: 'k'}), rec({op: 'l', kind: 'outcome', status: 503, idempotency_key: 'k'})]
    expect(usd(lost)).toBe(100n)
    expect(usd([rec({op: 'n'})])).toBe(100n)
    const confirmed = [...lost, rec({op: 'l2', idempotency_key: 'k'}), rec({op: 'l2', kind: 'outcome', status: 200, outcome: 'created', resource_status: 'settled', idempotency_key: 'k'})]
    expect(usd(confirmed)).toBe(100n)
    const notSent = [rec({op: 'ns'}), rec({op: 'ns', kind: 'outcome', status: null, error_code: 'not_sent'})]
    expect(usd(notSent)).toBe(0n)
  })
})
