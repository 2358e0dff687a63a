import {createServer, type Server} from 'node:http'
import type {AddressInfo} from 'node:net'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {ROOT, run, runAs, startEmulator, tempDir, until, type Emulator} from '../support/index.js'

const START = '2026-01-05T09:00:00-05:00'

let emu: Emulator
let main: string
let reserve: string

const clock = async (e = emu) => (await runAs(e, 'test', ['emulator', 'clock', '-o', 'json'])).json<{now: string; day: string}>()
const advance = (by: string, e = emu) => runAs(e, 'test', ['emulator', 'clock', 'advance', by, '-o', 'json'])
const transfer = async (args: string[]) => {
  const r = await runAs(emu, 'test', ['transfers', 'create', '--from', main, '--to', reserve, '--currency', 'USD', '-o', 'json', ...args])
  expect(r.code, r.stderr).toBe(0)
  return r.json<{id: string; status: string}>()
}
const getTransfer = async (id: string) => (await runAs(emu, 'test', ['transfers', 'list', '--all', '-o', 'json'])).json().find((t: any) => t.id === id)
const linesOf = async (account: string) => (await runAs(emu, 'test', ['treasury', 'transactions', 'list', account, '--all', '-o', 'json'])).json()

beforeAll(async () => {
  emu = await startEmulator(['--clock', START])
  const accounts = (await runAs(emu, 'test', ['treasury', 'accounts', 'list', '-o', 'json'])).json()
  main = accounts.find((a: any) => a.label === 'Main operating account').id
  reserve = accounts.find((a: any) => a.currency_code === 'USD' && a.id !== main).id
})
afterAll(async () => {
  await emu?.stop()
})

describe('emulator start --clock', () => {
  it('starts the clock at the instant given: created_at follows it, and `emulator clock` shows it with its New York day', async () => {
    const c = await clock()
    expect(c.day).toBe('2026-01-05')
    expect(Date.parse(c.now)).toBeGreaterThanOrEqual(Date.parse(START))
    expect(Date.parse(c.now)).toBeLessThan(Date.parse(START) + 60 * 60_000)
    const sub = (await runAs(emu, 'test', ['subaccounts', 'create', '--name', 'Clocked', '-o', 'json'])).json()
    expect(sub.created_at.slice(0, 10)).toBe('2026-01-05')
  })

  it('refuses an instant that is not one (exit 2, before listening)', async () => {
    const r = await run(['emulator', 'start', '--port', '0', '--json', '--clock', 'next tuesday'])
    expect(r.code).toBe(2)
    expect(r.stdout).toBe('')
    expect(r.stderr).toMatch(/--clock "next tuesday" is not an instant/)
  })
})

describe('emulator clock advance and set', () => {
  it('sends a scheduled transfer on its send day, settles standard ACH after its 2-day lag, and stamps each step with the moved clock', async () => {
    const t = await transfer(['--amount-minor', '12345', '--rail', 'standard_ach', '--scheduled-date', '2026-01-06'])
    // Approved for a later day: queued until the clock reaches it.
    expect(t.status).toBe('approved')
    const r = await runAs(emu, 'test', ['emulator', 'clock', 'set', '2026-01-06T10:00:00-05:00', '-o', 'json'])
    expect(r.code, r.stderr).toBe(0)
    const moved = r.json()
    expect(moved.day).toBe('2026-01-06')
    expect(moved.happened).toContainEqual({at: '2026-01-06T05:00:00.000Z', entity: 'test', kind: 'transfer', id: t.id, status: 'initiated'})
    expect(await getTransfer(t.id)).toMatchObject({status: 'initiated', updated_at: '2026-01-06T05:00:00.000Z'})
    // One day later: not yet (send day + 2).
    expect((await advance('1d')).json().happened.filter((h: any) => h.id === t.id)).toEqual([])
    const settled = (await advance('1d')).json()
    expect(settled.happened).toContainEqual({at: '2026-01-08T05:00:00.000Z', entity: 'test', kind: 'transfer', id: t.id, status: 'settled'})
    expect(await getTransfer(t.id)).toMatchObject({status: 'settled', updated_at: '2026-01-08T05:00:00.000Z'})
    const out = (await linesOf(main)).find((l: any) => l.amount_in_minor_units === 12345)
    expect(out).toMatchObject({direction: 'debit', transaction_date: '2026-01-08'})
  })

  it('a transfer in flight settles at the next move; async steps that fell due run too', async () => {
    const wire = await transfer(['--amount-minor', '777', '--rail', 'wire'])
    expect(wire.status).toBe('initiated')
    const next = (await advance('1m')).json()
    expect(next.happened.filter((h: any) => h.id === wire.id).map((h: any) => h.status)).toEqual(['settled'])
    await emu.control('POST', '/_emulator/async-transfers', {entity: 'test', enabled: true, delay_ms: 600_000})
    try {
      const queued = await transfer(['--amount-minor', '778', '--rail', 'wire'])
      expect(queued.status).toBe('approved')
      // Async: each step waits 10 minutes after the one before.
      const first = (await advance('5m')).json()
      expect(first.happened.filter((h: any) => h.id === queued.id)).toEqual([])
      const second = (await advance('30m')).json()
      expect(second.happened.filter((h: any) => h.id === queued.id).map((h: any) => h.status)).toEqual(['initiated', 'settled'])
    } finally {
      await emu.control('POST', '/_emulator/async-transfers', {entity: 'test', enabled: false})
    }
  })

  it('delivers the webhooks of what happens as it happens: an approved payin settles and its event is posted', async () => {
    const received: Array<{type: string; data: Record<string, unknown>}> = []
    const server: Server = createServer((req, res) => {
      let body = ''
      req.on('data', (c) => (body += c))
      req.on('end', () => {
        received.push(JSON.parse(body))
        res.writeHead(200).end()
      })
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`
      const hook = await runAs(emu, 'test', ['webhooks', 'create', '--url', url, '--event-types', 'payin.settled', '-o', 'json'])
      expect(hook.code, hook.stderr).toBe(0)
      const payin = (await emu.control('POST', '/_emulator/payins', {amount_in_minor_units: 4200, rail: 'same_day_ach'})).data
      await emu.control('POST', `/_emulator/payins/${payin.id}/advance`, {status: 'approved'})
      expect(received).toEqual([])
      const moved = (await advance('1h')).json()
      expect(moved.happened.filter((h: any) => h.id === payin.id).map((h: any) => h.status)).toEqual(['initiated', 'debited', 'settled'])
      await until(() => received.some((e) => e.data.payin_id === payin.id), () => JSON.stringify(received))
      expect(received.find((e) => e.data.payin_id === payin.id)?.type).toBe('payin.settled')
      const seen = (await runAs(emu, 'test', ['payins', 'get', payin.id, '-o', 'json'])).json()
      expect(seen.status).toBe('settled')
    } finally {
      await new Promise((resolve) => server.close(resolve))
    }
  })

  it('refuses a bad duration and an instant before the clock with one clear line (exit 2); the clock does not move', async () => {
    const before = await clock()
    const bad = await advance('2 days')
    expect(bad.code).toBe(2)
    expect(bad.stderr).toMatch(/"2 days" is not a duration/)
    const zero = await advance('0d')
    expect(zero.code).toBe(2)
    const past = await runAs(emu, 'test', ['emulator', 'clock', 'set', '2026-01-01T00:00:00Z'])
    expect(past.code).toBe(2)
    expect(past.stderr).toMatch(/2026-01-01T00:00:00Z is before the emulator's clock .*; the clock only moves forward/)
    expect(past.stderr.split('\n').filter((l) => l.startsWith('Error:'))).toHaveLength(1)
    const garbage = await runAs(emu, 'test', ['emulator', 'clock', 'set', 'yesterday'])
    expect(garbage.code).toBe(2)
    expect(garbage.stderr).toMatch(/"yesterday" is not an instant/)
    const after = await clock()
    expect(after.day).toBe(before.day)
    expect(Date.parse(after.now) - Date.parse(before.now)).toBeLessThan(60_000)
    // The control API refuses it as well (a client that skips the check).
    await expect(emu.control('POST', '/_emulator/clock', {to: '2026-01-01'})).rejects.toThrow(/400 .*only moves forward/)
  })

  it('drives only an emulator on loopback: another base URL is refused before any request (exit 2)', async () => {
    const r = await run(['emulator', 'clock', 'advance', '1d'], {env: {PAYOPS_BASE_URL: 'https://api.example.com', PAYOPS_API_KEY: 'test_x'}})
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(/emulator clock drives a local payops emulator; the base URL https:\/\/api\.example\.com is not a loopback address/)
  })
})

describe('the clock and --state', () => {
  it('a restarted emulator keeps its moved clock', async () => {
    const dir = tempDir()
    const state = join(dir.path, 'clock.sqlite')
    const first = await startEmulator(['--state', state, '--clock', START])
    expect((await advance('3d', first)).code).toBe(0)
    expect((await clock(first)).day).toBe('2026-01-08')
    expect(await first.stop()).toBe(0)
    const second = await startEmulator(['--state', state])
    expect((await clock(second)).day).toBe('2026-01-08')
    await second.stop()
    // A --clock before the state's clock is refused at start.
    const back = await run(['emulator', 'start', '--port', '0', '--json', '--state', state, '--clock', START])
    expect(back.code).toBe(2)
    expect(back.stderr).toMatch(/--clock .* is before the clock of the state file/)
    dir.cleanup()
  })

  it('a loaded scenario is kept whole: after a restart its planned bank lines still appear on their dates and its stuck wire stays held', async () => {
    const dir = tempDir()
    const state = join(dir.path, 'scenario.sqlite')
    const first = await startEmulator(['--state', state])
    const loaded = await runAs(first, 'test', ['emulator', 'load', join(ROOT, 'examples', 'month-end.yaml'), '-o', 'json'])
    expect(loaded.code, loaded.stderr).toBe(0)
    expect(await first.stop()).toBe(0)
    const second = await startEmulator(['--state', state])
    try {
      expect((await clock(second)).day).toBe('2026-01-26')
      const moved = (await runAs(second, 'test', ['emulator', 'clock', 'set', '2026-02-01', '-o', 'json'])).json()
      expect(moved.happened.filter((h: any) => h.entity === 'test' && h.kind === 'bank_line')).toHaveLength(4)
      const transfers = (await runAs(second, 'test', ['transfers', 'list', '--all', '-o', 'json'])).json()
      expect(transfers.filter((t: any) => t.status !== 'settled').map((t: any) => [t.amount_in_minor_units, t.status])).toEqual([[4_200_000, 'initiated']])
    } finally {
      await second.stop()
      dir.cleanup()
    }
  })
})

describe('the books see the moved clock, with no special case', () => {
  it("position's today and a transfer's due day follow the service's clock (its answers' HTTP Date), not this machine's", async () => {
    const before = (await runAs(emu, 'test', ['position', '-o', 'json'])).json<{today: string; as_of: string}>()
    const c = await clock()
    expect(before.today).toBe(c.day)
    // The machine's own day is months later: the books did not take it.
    expect(before.today).not.toBe(new Date().toISOString().slice(0, 10))
    const due = await transfer(['--amount-minor', '700', '--rail', 'wire', '--scheduled-date', addDay(c.day, 3)])
    const scheduled = (await runAs(emu, 'test', ['position', '-o', 'json'])).json<any>()
    const row = scheduled.accounts.find((a: any) => a.account_id === main)
    expect(row.scheduled.map((d: any) => d.date)).toContain(addDay(c.day, 3))
    expect(await advance('4d')).toMatchObject({code: 0})
    const after = (await runAs(emu, 'test', ['position', '-o', 'json'])).json<any>()
    expect(after.today).toBe((await clock()).day)
    expect(after.today > before.today).toBe(true)
    // Its send day came and went on the moved clock: no longer scheduled for a later day.
    expect(after.accounts.find((a: any) => a.account_id === main).scheduled.map((d: any) => d.date)).not.toContain(addDay(c.day, 3))
    expect((await getTransfer(due.id)).status).not.toBe('approved')
  })
})

function addDay(day: string, n: number): string {
  return new Date(Date.parse(`${day}T12:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10)
}
