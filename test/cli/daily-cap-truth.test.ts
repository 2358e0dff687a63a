/**
 * What a daily cap counts, and when it decides: only what the ledger calls moved (a settled move,
 * a transfer approved or initiated that did not fail, on its send day), what may have moved (an
 * outcome unknown) apart in the sentence; the trail read by its order, not by its timestamps; and
 * the decision taken again under the audit trail's lock, so that runs at once cannot all pass.
 */
import {afterAll, afterEach, beforeAll, describe, expect, it, vi} from 'vitest'
import type {AuditRecord} from '../../src/audit/index.js'
import {spentSince} from '../../src/movements/history.js'
import {activityAmounts, run, startEmulator, steppedClock, tempDir, type Emulator, type RunOptions} from '../support/index.js'

let emu: Emulator
const dir = tempDir()
let a: string
let b: string
let main: string
let reserve: string

const cli = (args: string[], opts: RunOptions = {}) => run(args, {configDir: dir.path, ...opts})
const cap = (amount: string) => cli(['profiles', 'set', 'sandbox', 'daily-max', amount, 'USD'])
const credits = async () => (await activityAmounts(emu, b, 'credit')).reduce((s, x) => s + x, 0)
const faults = (body: unknown) => emu.control('POST', '/_emulator/faults', body)

/** A date `days` after today in UTC: always a later day in New York too, for days >= 2. */
const dayAfter = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10)

beforeAll(async () => {
  emu = await startEmulator()
  await cli(['profiles', 'add', 'sandbox', '--base-url', emu.baseUrl, '--key-stdin', '--use'], {input: emu.keys.test})
  a = (await cli(['subaccounts', 'create', '--name', 'Truth A'])).json().id
  b = (await cli(['subaccounts', 'create', '--name', 'Truth B'])).json().id
  const accounts = (await cli(['treasury', 'accounts', 'list'])).json()
  main = accounts.find((x: any) => x.label === 'Main operating account').id
  reserve = accounts.find((x: any) => x.currency_code === 'USD' && x.id !== main).id
})
afterAll(async () => {
  await emu?.stop()
  dir.cleanup()
})
afterEach(async () => {
  vi.useRealTimers()
  await emu.control('DELETE', '/_emulator/faults')
})

describe('a daily cap counts what moved', () => {
  it('not a move whose settlement failed, a transfer that failed, or one scheduled for a later day; the sentence\'s figures are the ledger\'s', async () => {
    expect((await cap('100.00')).code).toBe(0)
    expect((await cli(['moves', 'create', '--from', a, '--to', b, '--amount', '10.00'])).code).toBe(0)
    // Settlement fails: the move stays approved and never moves (207, exit 6).
    await emu.control('POST', '/_emulator/fail-next-settlement', {count: 1})
    const stuck = await cli(['moves', 'create', '--from', a, '--to', b, '--amount', '20.00'])
    expect(stuck.code, stuck.stderr).toBe(6)
    // A transfer initiated, then failed while --wait followed it: the trail records what it became.
    const clock = steppedClock()
    const pending = cli(['transfers', 'create', '--from', main, '--to', reserve, '--amount', '30.00', '--currency', 'USD', '--rail', 'wire', '--wait', '--poll-interval', '200'], {clock})
    await clock.asleep()
    const listed = (await cli(['transfers', 'list', '--account', main, '--status', 'initiated'])).json()
    const failing = listed.find((t: any) => t.amount_in_minor_units === 3000)
    await emu.control('POST', `/_emulator/transfers/${failing.id}/advance`, {status: 'failed'})
    clock.wake()
    const failed = await pending
    expect(failed.code, failed.stderr).toBe(0)
    expect(failed.json()).toMatchObject({id: failing.id, status: 'failed'})
    // Scheduled for a later day: it counts on its send day, not today.
    const later = await cli(['transfers', 'create', '--from', main, '--to', reserve, '--amount', '40.00', '--currency', 'USD', '--rail', 'wire', '--scheduled-date', dayAfter(3)])
    expect(later.code, later.stderr).toBe(0)
    // The ledger: 10.00 moved out of a today (the 20.00 never settled).
    expect(await credits()).toBe(1000)
    const refused = await cli(['moves', 'create', '--from', a, '--to', b, '--amount', '90.01'])
    expect(refused.code, refused.stderr).toBe(3)
    expect(refused.stderr).toContain('daily-max 100.00 USD of profile "sandbox": 10.00 USD moved today (UTC) under this key + 90.01 USD asked = 100.01 USD')
    const allowed = await cli(['moves', 'create', '--from', a, '--to', b, '--amount', '90.00'])
    expect(allowed.code, allowed.stderr).toBe(0)
  })

  it('an outcome still unknown counts, and the sentence says so: "100.00 USD moved, 20.00 USD unknown"', async () => {
    expect((await cap('200.00')).code).toBe(0)
    const created = await cli(['moves', 'create', '--from', a, '--to', b, '--amount', '20.00', '--no-auto-approve'])
    expect(created.code, created.stderr).toBe(0)
    // The approve reaches the server and settles; its answer is lost (exit 7, outcome unknown).
    await faults({queue: [{kind: '503', phase: 'after'}], methods: ['POST']})
    const lost = await cli(['moves', 'approve', created.json().id])
    expect(lost.code, lost.stderr).toBe(7)
    const refused = await cli(['moves', 'create', '--from', a, '--to', b, '--amount', '80.01'])
    expect(refused.code, refused.stderr).toBe(3)
    expect(refused.stderr).toContain('daily-max 200.00 USD of profile "sandbox": 100.00 USD moved, 20.00 USD unknown (sent, outcome not known) today (UTC) under this key + 80.01 USD asked = 200.01 USD')
  })
})

describe('a record written out of time order hides nothing', () => {
  it('a command run with its clock set back does not hide the day\'s spending: today is read by position; audit verify reports the times that go backwards', async () => {
    const day = tempDir()
    try {
      const here = (args: string[], opts: RunOptions = {}) => run(args, {configDir: day.path, ...opts})
      await here(['profiles', 'add', 'sandbox', '--base-url', emu.baseUrl, '--key-stdin', '--use'], {input: emu.keys.test_other})
      const [x, y] = [(await here(['subaccounts', 'create', '--name', 'Day X'])).json().id, (await here(['subaccounts', 'create', '--name', 'Day Y'])).json().id]
      expect((await here(['profiles', 'set', 'sandbox', 'daily-max', '100.00', 'USD'])).code).toBe(0)
      for (const amount of ['40.00', '40.00']) expect((await here(['moves', 'create', '--from', x, '--to', y, '--amount', amount])).code).toBe(0)
      // One command with its clock two days behind: its records are dated then.
      vi.useFakeTimers({toFake: ['Date'], now: Date.now() - 2 * 86_400_000})
      const backdated = await here(['moves', 'create', '--from', x, '--to', y, '--amount', '1.00'])
      vi.useRealTimers()
      expect(backdated.code, backdated.stderr).toBe(0)
      const refused = await here(['moves', 'create', '--from', x, '--to', y, '--amount', '19.01'])
      expect(refused.code, refused.stderr).toBe(3)
      expect(refused.stderr).toContain('81.00 USD moved today (UTC) under this key + 19.01 USD asked = 100.01 USD')
      const verify = await here(['audit', 'verify'])
      expect(verify.code, verify.stderr).toBe(0)
      expect(verify.stderr).toMatch(/times go backwards: record 9 is dated \S+, earlier than \S+ of a record before it \(and 1 more\)/)
      const json = await here(['audit', 'verify', '-o', 'json'])
      expect(json.json().backwards).toMatchObject({count: 2, first: [{seq: 9, line: 9}, {seq: 10, line: 10}]})
    } finally {
      day.cleanup()
    }
  })
})

describe('check and record together', () => {
  it('five `moves create` at once under a 150.00 cap move at most 150.00', async () => {
    // A trail of its own (a config dir of its own), with the other test key.
    const race = tempDir()
    try {
      const here = (args: string[], opts: RunOptions = {}) => run(args, {configDir: race.path, ...opts})
      await here(['profiles', 'add', 'sandbox', '--base-url', emu.baseUrl, '--key-stdin', '--use'], {input: emu.keys.test_other})
      const [x, y] = [(await here(['subaccounts', 'create', '--name', 'Race X'])).json().id, (await here(['subaccounts', 'create', '--name', 'Race Y'])).json().id]
      expect((await here(['profiles', 'set', 'sandbox', 'daily-max', '150.00', 'USD'])).code).toBe(0)
      const runs = await Promise.all(Array.from({length: 5}, () => here(['moves', 'create', '--from', x, '--to', y, '--amount', '50.00'])))
      expect(runs.map((r) => r.code).sort(), runs.map((r) => r.stderr).join('\n')).toEqual([0, 0, 0, 3, 3])
      for (const r of runs.filter((x) => x.code === 3)) expect(r.stderr).toMatch(/daily-max 150\.00 USD of profile "sandbox": .*\+ 50\.00 USD asked = 200\.00 USD/)
      const moved = (await activityAmounts(emu, y, 'credit', {configDir: race.path, env: {PAYOPS_API_KEY: emu.keys.test_other}})).reduce((s, v) => s + v, 0)
      expect(moved).toBe(15_000)
    } finally {
      race.cleanup()
    }
  })
})

describe('spentSince', () => {
  let seq = 0
  const rec = (o: Partial<AuditRecord>): AuditRecord =>
    ({seq: ++seq, time: '2026-11-26T10:00:00.000Z', pid: 1, prev: '', hash: '', profile: 'p', mode: 'test', method: 'POST', path: '/api/treasury/account-transfers', op: `op${seq}`, kind: 'intent', amount_in_minor_units: 100, currency_code: 'USD', ...o}) as AuditRecord
  const transfer = (op: string, time: string, scheduled: string | null, status = 'initiated') => [
    rec({op, time, ...(scheduled ? {scheduled_date: scheduled} : {})}),
    rec({op, time, kind: 'outcome', status: 201, outcome: 'created', resource_id: `t-${op}`, resource_status: status, ...(scheduled ? {scheduled_date: scheduled} : {})}),
  ]
  const usdOn = (records: AuditRecord[], day: string) => spentSince(records, Date.parse(`${day}T00:00:00Z`)).moved.get('USD') ?? 0n

  it('a transfer scheduled for a later day (New York) counts on its send day, not the day it was made', () => {
    const records = [...transfer('s', '2026-11-26T10:00:00.000Z', '2026-11-28'), ...transfer('n', '2026-11-26T11:00:00.000Z', null)]
    expect(usdOn(records, '2026-11-26')).toBe(100n)
    expect(usdOn(records, '2026-11-27')).toBe(0n)
    expect(usdOn(records, '2026-11-28')).toBe(100n)
    // 02:00 UTC on the 27th is still the 26th in New York: a send day of the 27th is a later day, sent on the 27th.
    const evening = transfer('e', '2026-11-27T02:00:00.000Z', '2026-11-27')
    expect(usdOn(evening, '2026-11-27')).toBe(100n)
    // A send day that is not later than the day it was made is sent at once.
    expect(usdOn(transfer('p', '2026-11-26T10:00:00.000Z', '2026-11-20'), '2026-11-26')).toBe(100n)
  })

  it('records count by their place in the trail: one dated back or forward hides neither itself nor the records after it', () => {
    const move = {path: '/api/subaccounts/move'}
    const settled = (op: string, time: string) => [rec({...move, op, time}), rec({...move, op, time, kind: 'outcome', status: 201, outcome: 'created', resource_id: `m-${op}`, resource_status: 'settled'})]
    const records = [...settled('a', '2026-11-26T09:00:00.000Z'), ...settled('back', '2026-11-20T09:00:00.000Z'), ...settled('fwd', '2026-11-30T09:00:00.000Z'), ...settled('b', '2026-11-26T10:00:00.000Z')]
    expect(usdOn(records, '2026-11-26')).toBe(400n)
  })

  it('a transfer later recorded failed or canceled, and a move left approved, do not count; a lost answer a replay settled counts as moved', () => {
    const failed = [...transfer('f', '2026-11-26T10:00:00.000Z', null), rec({op: 'f', kind: 'outcome', status: null, outcome: 'observed', resource_id: 't-f', resource_status: 'failed'})]
    expect(usdOn(failed, '2026-11-26')).toBe(0n)
    const move = {path: '/api/subaccounts/move'}
    const approved = [rec({...move, op: 'm'}), rec({...move, op: 'm', kind: 'outcome', status: 207, outcome: 'created', resource_id: 'm1', resource_status: 'approved'})]
    expect(usdOn(approved, '2026-11-26')).toBe(0n)
    const lost = [rec({...move, op: 'l', idempotency_key: 'k'}), rec({...move, op: 'l', kind: 'outcome', status: 503, idempotency_key: 'k'})]
    expect(spentSince(lost, Date.parse('2026-11-26T00:00:00Z')).unknown.get('USD')).toBe(100n)
    const replay = [...lost, rec({...move, op: 'r', idempotency_key: 'k'}), rec({...move, op: 'r', kind: 'outcome', status: 200, outcome: 'replayed', resource_id: 'm2', resource_status: 'settled', idempotency_key: 'k'})]
    const spent = spentSince(replay, Date.parse('2026-11-26T00:00:00Z'))
    expect([spent.moved.get('USD'), spent.unknown.get('USD') ?? 0n]).toEqual([100n, 0n])
  })
})
