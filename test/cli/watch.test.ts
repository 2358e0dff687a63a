/**
 * `payops watch`: rules kept in the profile, checked against the emulator; an alert fires when a
 * rule is crossed, stays quiet while it holds, re-arms when it clears and fires again when it
 * returns; handed to --exec and --post (signed); --once exits 9 when an alert fired.
 */
import {createServer, type Server} from 'node:http'
import {readFileSync} from 'node:fs'
import type {AddressInfo} from 'node:net'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {verify} from '../../src/webhooks/signature.js'
import {fakeClock, run, startCli, startEmulator, tempDir, type Emulator, type RunOptions} from '../support/index.js'

let emu: Emulator
const dir = tempDir()
let sub: string
let other: string
let main: {id: string}
let reserve: {id: string}

const cli = (args: string[], opts: RunOptions = {}) => run(args, {configDir: dir.path, ...opts})
const watchOnce = (opts: RunOptions = {}) => cli(['watch', '--once', '-o', 'json'], opts)
const alerts = (stdout: string) => stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>)

beforeAll(async () => {
  emu = await startEmulator()
  await cli(['profiles', 'add', 'ops', '--base-url', emu.baseUrl, '--key-stdin', '--use'], {input: emu.keys.test})
  sub = (await cli(['subaccounts', 'create', '--name', 'Payroll float'])).json().id
  other = (await cli(['subaccounts', 'create', '--name', 'Payroll out'])).json().id
  const accounts = (await cli(['treasury', 'accounts', 'list'])).json() as Array<{id: string; currency_code: string}>
  ;[main, reserve] = accounts.filter((a) => a.currency_code === 'USD')
  // Moves check no minimum source balance: the float is funded from the other subaccount.
  expect((await cli(['moves', 'create', '--from', other, '--to', sub, '--amount', '100.00'])).code).toBe(0)
})
afterAll(async () => {
  await emu?.stop()
  dir.cleanup()
})

describe('watch rules in the profile', () => {
  it('are added, replaced, shown and removed; bad rules are one line, exit 2', async () => {
    for (const bad of [['balance-low'], ['min-balance', 'nope', '5', 'USD'], ['min-balance', sub, '5'], ['transfer-stuck', '0'], ['transfer-stuck', 'x'], ['transfer-failed', 'extra'], ['reconcile-exceptions']]) {
      const r = await cli(['profiles', 'set', 'ops', 'watch', ...bad])
      expect(r.code, bad.join(' ')).toBe(2)
      expect(r.stderr.split('\n').filter((l) => l.startsWith('Error:')), r.stderr).toHaveLength(1)
    }
    expect((await cli(['profiles', 'set', 'ops', 'watch', 'min-balance', sub, '10.00', 'USD'])).code).toBe(0)
    const replaced = await cli(['profiles', 'set', 'ops', 'watch', 'min-balance', sub, '50.00', 'USD'])
    expect(replaced.stderr).toMatch(/watch rule replaced: min-balance .*below 50\.00 USD \(1 rule in all/)
    expect(replaced.json().watch).toEqual([{rule: 'min-balance', subaccount: sub, amount_in_minor_units: 5000, currency_code: 'USD'}])
    expect((await cli(['profiles', 'unset', 'ops', 'watch', 'transfer-stuck'])).stderr).toMatch(/has no watch rule transfer-stuck \(it has: min-balance:/)
    expect((await cli(['watch', '--once', '--interval', '5s'])).code).toBe(2)
    expect((await cli(['watch', '--interval', '2d'])).stderr).toMatch(/not a duration from 1s to 24h/)
    expect((await cli(['watch', '--once', '--post', 'http://example.com/x'])).stderr).toMatch(/must use https:\/\//)
    expect((await cli(['watch', '--once', '--post', 'http://127.0.0.1:9/x'])).stderr).toMatch(/PAYOPS_WATCH_SECRET, which is not set/)
  })
})

describe('payops watch --once', () => {
  it('fires when crossed (exit 9), stays quiet while it holds (exit 0), re-arms when it clears and fires again when it returns', async () => {
    expect((await watchOnce()).code).toBe(0)
    expect((await cli(['moves', 'create', '--from', sub, '--to', other, '--amount', '60.00'])).code).toBe(0)
    const first = await watchOnce()
    expect(first.code, first.stderr).toBe(9)
    expect(alerts(first.stdout)).toEqual([
      expect.objectContaining({type: 'alert', rule: 'min-balance', key: `min-balance:${sub}`, subaccount_id: sub, balance_in_minor_units: 4000, floor_in_minor_units: 5000, currency_code: 'USD'}),
    ])
    const holds = await watchOnce()
    expect(holds.code, holds.stderr).toBe(0)
    expect(holds.stdout).toBe('')
    // Cleared: the balance is back above the floor.
    expect((await cli(['moves', 'create', '--from', other, '--to', sub, '--amount', '30.00'])).code).toBe(0)
    expect((await watchOnce()).code).toBe(0)
    // Crossed again.
    expect((await cli(['moves', 'create', '--from', sub, '--to', other, '--amount', '30.00'])).code).toBe(0)
    const again = await watchOnce()
    expect(again.code).toBe(9)
    expect(alerts(again.stdout)).toHaveLength(1)
  })

  it('on a terminal an alert is one sentence', async () => {
    await cli(['moves', 'create', '--from', other, '--to', sub, '--amount', '30.00'])
    await watchOnce()
    await cli(['moves', 'create', '--from', sub, '--to', other, '--amount', '30.00'])
    const r = await cli(['watch', '--once'], {tty: true, env: {NO_COLOR: '1'}})
    expect(r.code).toBe(9)
    expect(r.stdout).toMatch(/^ALERT min-balance: Payroll float \(.{8}…\) has a balance of 40\.00 USD, below the floor of 50\.00 USD\.\n$/)
  })

  it('transfer-failed fires once per failed transfer; transfer-stuck past its hours; approval-waiting past its hours', async () => {
    await cli(['profiles', 'unset', 'ops', 'watch'])
    for (const rule of [['transfer-failed'], ['transfer-stuck', '24'], ['approval-waiting', '2']]) expect((await cli(['profiles', 'set', 'ops', 'watch', ...rule])).code).toBe(0)
    expect((await watchOnce()).code).toBe(0)
    const failing = (await cli(['transfers', 'create', '--from', main.id, '--to', reserve.id, '--amount', '3.00', '--currency', 'USD', '--rail', 'wire'])).json().id
    const stuck = (await cli(['transfers', 'create', '--from', main.id, '--to', reserve.id, '--amount', '4.00', '--currency', 'USD', '--rail', 'wire'])).json().id
    const waiting = (await cli(['moves', 'create', '--from', sub, '--to', other, '--amount', '1.00', '--no-auto-approve'])).json().id
    await emu.control('POST', `/_emulator/transfers/${failing}/advance`, {status: 'failed'})
    const now = await watchOnce()
    expect(now.code, now.stderr).toBe(9)
    expect(alerts(now.stdout).map((a) => a.key)).toEqual([`transfer-failed:${failing}`])
    expect((await watchOnce()).code).toBe(0)
    // A day later (the command's clock): the initiated transfer is stuck and the move has waited.
    const later = await watchOnce({clock: fakeClock(Date.now() + 25 * 3_600_000)})
    expect(later.code, later.stderr).toBe(9)
    expect(alerts(later.stdout).map((a) => a.key).sort()).toEqual([`approval-waiting:move:${waiting}`, `transfer-stuck:${stuck}`].sort())
    expect((await cli(['moves', 'cancel', waiting])).code).toBe(0)
  })

  it('hands each alert to --exec (JSON on stdin) and --post (signed as the service signs webhooks)', async () => {
    await cli(['profiles', 'unset', 'ops', 'watch'])
    expect((await cli(['profiles', 'set', 'ops', 'watch', 'min-balance', other, '1000000.00', 'USD'])).code).toBe(0)
    const received: Array<{body: string; headers: Record<string, string | string[] | undefined>}> = []
    const server: Server = createServer((req, res) => {
      let body = ''
      req.on('data', (d) => (body += d))
      req.on('end', () => {
        received.push({body, headers: req.headers})
        res.end('ok')
      })
    })
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
    const secret = 'whsec_watchtestsecret0123456789'
    const out = join(dir.path, 'exec.json')
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/alerts`
      const r = await cli(['watch', '--once', '-o', 'json', '--exec', `cat > '${out}'; printf 'paged \\033[2J\\n'`, '--post', url], {env: {PAYOPS_WATCH_SECRET: secret}})
      expect(r.code, r.stderr).toBe(9)
      // What the command printed reaches stderr escaped, never as terminal control.
      expect(r.stderr).toContain('paged \\x1b[2J')
      expect(r.stderr).not.toContain('\u001b[2J')
      expect(JSON.parse(readFileSync(out, 'utf8'))).toMatchObject({rule: 'min-balance', subaccount_id: other})
      expect(received).toHaveLength(1)
      const {body, headers} = received[0]
      expect(JSON.parse(body)).toMatchObject({rule: 'min-balance', key: `min-balance:${other}`})
      expect(verify({secrets: [secret], rawBody: body, signature: headers['x-webhook-signature'] as string, timestamp: headers['x-webhook-timestamp'] as string})).toMatchObject({ok: true})
      expect(r.stderr).not.toContain(secret)
    } finally {
      await new Promise<void>((r) => server.close(() => r()))
    }
  })

  it('--exec runs without payops\' own secrets in its environment: the API key, the watch and webhook secrets, a copy of the key', async () => {
    const cfg = tempDir()
    const own = (args: string[], opts: RunOptions = {}) => run(args, {configDir: cfg.path, ...opts})
    expect((await own(['profiles', 'add', 'solo', '--base-url', emu.baseUrl, '--key-stdin', '--use'], {input: emu.keys.test})).code).toBe(0)
    expect((await own(['profiles', 'set', 'solo', 'watch', 'min-balance', other, '1000000.00', 'USD'])).code).toBe(0)
    const out = join(cfg.path, 'exec.env')
    const watchSecret = 'whsec_watchexecsecret0123456789'
    const hookSecret = 'whsec_hookexecsecret0123456789'
    const env = {PAYOPS_API_KEY: emu.keys.test, PAYOPS_WATCH_SECRET: watchSecret, PAYOPS_WEBHOOK_SECRET: hookSecret, PAYOPS_WEBHOOK_SECRETS: hookSecret, KEY_COPY: emu.keys.test, KEEP_ME: 'kept'}
    try {
      const r = await own(['watch', '--once', '-o', 'json', '--exec', `env > '${out}'`], {env})
      expect(r.code, r.stderr).toBe(9)
      const seen = readFileSync(out, 'utf8')
      expect(seen).toMatch(/^KEEP_ME=kept$/m)
      for (const secret of [emu.keys.test, watchSecret, hookSecret]) expect(seen).not.toContain(secret)
      expect(seen).not.toMatch(/^(PAYOPS_API_KEY|PAYOPS_WATCH_SECRET|PAYOPS_WEBHOOK_SECRETS?|KEY_COPY)=/m)
    } finally {
      cfg.cleanup()
    }
  })

  it('--interval checks on every tick (the command\'s clock), alerts once while a condition holds, and Ctrl-C stops it (exit 130)', async () => {
    // A rule changed (here its floor) starts armed.
    expect((await cli(['profiles', 'set', 'ops', 'watch', 'min-balance', other, '999999.00', 'USD'])).code).toBe(0)
    const clock = fakeClock(Date.now())
    const running = startCli(['watch', '--interval', '1m', '-o', 'json'], {configDir: dir.path, clock})
    const line = await running.line(/"type":"alert"/)
    expect(JSON.parse(line)).toMatchObject({rule: 'min-balance', subaccount_id: other})
    // Several ticks later the condition still holds: no second alert.
    while (clock.slept() < 5 * 60_000) await new Promise((r) => setImmediate(r))
    running.interrupt()
    const r = await running.done
    expect(r.code).toBe(130)
    expect(alerts(r.stdout)).toHaveLength(1)
    expect(r.stderr).toMatch(/Watching one rule every 60 s/)
  })

  it('reconcile-exceptions fires for a bank line nothing expected, and clears once it is resolved', async () => {
    await cli(['profiles', 'unset', 'ops', 'watch'])
    expect((await cli(['profiles', 'set', 'ops', 'watch', 'reconcile-exceptions', main.id])).code).toBe(0)
    // Whatever the account held already is accepted first, so that only the new line counts.
    const first = await watchOnce()
    for (const a of alerts(first.stdout)) expect((await cli(['reconcile', 'resolve', String(a.item_key), '--as', 'accepted'])).code).toBe(0)
    expect((await watchOnce()).code).toBe(0)
    await emu.control('POST', '/_emulator/bank-lines', {account_id: main.id, amount_in_minor_units: 1234, direction: 'debit', description: 'WIRE FEE'})
    const fired = await watchOnce()
    expect(fired.code, fired.stderr).toBe(9)
    const [alert] = alerts(fired.stdout)
    expect(alert).toMatchObject({rule: 'reconcile-exceptions', kind: 'bank_only', amount_in_minor_units: 1234, account_id: main.id})
    expect((await watchOnce()).code).toBe(0)
    expect((await cli(['reconcile', 'resolve', String(alert.item_key), '--as', 'bank fee'])).code).toBe(0)
    expect((await watchOnce()).code).toBe(0)
  })
})
