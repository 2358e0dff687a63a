/**
 * `payops approvals`: the queue from the service and from this machine's audit trail, end to end,
 * in-process. The checkbox list in a real pseudo-terminal is in test/smoke/terminal.test.ts.
 */
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {expectNothingSent, run, startEmulator, tempDir, type Emulator, type RunOptions} from '../support/index.js'

let emu: Emulator
const dir = tempDir()
let a: string
let b: string
const cli = (args: string[], opts: RunOptions = {}) => run(args, {configDir: dir.path, ...opts})

beforeAll(async () => {
  emu = await startEmulator()
  await cli(['profiles', 'add', 'sandbox', '--base-url', emu.baseUrl, '--key-stdin', '--use'], {input: emu.keys.test})
  a = (await cli(['subaccounts', 'create', '--name', 'Payroll'])).json().id
  b = (await cli(['subaccounts', 'create', '--name', 'Vendors'])).json().id
})
afterAll(async () => {
  await emu?.stop()
  dir.cleanup()
})

describe('payops approvals', () => {
  it('lists moves created here without auto-approval (not the settled, canceled or approved ones) and created transfers, with names', async () => {
    const p1 = (await cli(['moves', 'create', '--from', a, '--to', b, '--amount', '11.00', '--no-auto-approve'])).json().id
    const p2 = (await cli(['moves', 'create', '--from', a, '--to', b, '--amount', '12.00', '--no-auto-approve'])).json().id
    const canceled = (await cli(['moves', 'create', '--from', a, '--to', b, '--amount', '13.00', '--no-auto-approve'])).json().id
    expect((await cli(['moves', 'cancel', canceled])).code).toBe(0)
    const approved = (await cli(['moves', 'create', '--from', a, '--to', b, '--amount', '14.00', '--no-auto-approve'])).json().id
    expect((await cli(['moves', 'approve', approved])).code).toBe(0)
    await cli(['moves', 'create', '--from', a, '--to', b, '--amount', '15.00'])
    const accounts = (await cli(['treasury', 'accounts', 'list'])).json() as Array<{id: string; currency_code: string; label: string}>
    const [main, reserve] = accounts.filter((x) => x.currency_code === 'USD')
    const t = (await cli(['transfers', 'create', '--from', main.id, '--to', reserve.id, '--amount', '9.00', '--currency', 'USD', '--rail', 'wire', '--no-auto-approve'])).json().id

    const r = await cli(['approvals', '-o', 'json'])
    expect(r.code, r.stderr).toBe(0)
    const items = r.json() as Array<Record<string, unknown>>
    const moves = items.filter((i) => i.kind === 'move')
    expect(moves.map((m) => m.id).sort()).toEqual([p1, p2].sort())
    expect(moves.find((m) => m.id === p1)).toMatchObject({amount_in_minor_units: 1100, currency_code: 'USD', from: a, to: b, from_name: 'Payroll', to_name: 'Vendors', source: 'local'})
    expect(items.find((i) => i.kind === 'transfer' && i.id === t)).toMatchObject({amount_in_minor_units: 900, source: 'service', from_name: main.label})

    const bad = await cli(['approvals', '--kind', 'payouts'])
    expect(bad.code).toBe(2)
    expect(bad.stderr).toMatch(/--kind/)
    const noKey = await run(['approvals', '-o', 'json'], {configDir: tempDir().path})
    expect(noKey.code).toBe(3)
    expect(noKey.stdout).toBe('')
    const table = await cli(['approvals', '-o', 'table', '--kind', 'moves'])
    expect(table.stdout).toMatch(/11\.00 USD\s+Payroll \(.{8}…\)\s+Vendors/)
    expect(table.stdout).not.toMatch(/transfer/)

    // Scriptable: the list feeds moves approve.
    const ids = moves.map((m) => m.id).join('\n')
    const approve = await cli(['moves', 'approve', '-'], {input: ids})
    expect(approve.code, approve.stderr).toBe(0)
    const after = (await cli(['approvals', '-o', 'json', '--kind', 'moves'])).json()
    expect(after).toEqual([])
  }, 120_000)

  it('holds only what the key in use can approve: another profile\'s moves are not listed, and the README pipe approves them all (exit 0)', async () => {
    await cli(['profiles', 'add', 'prod', '--base-url', emu.baseUrl, '--key-stdin'], {input: emu.keys.live})
    const sandboxMove = (await cli(['moves', 'create', '--from', a, '--to', b, '--amount', '3.00', '--no-auto-approve'])).json().id
    const la = (await cli(['subaccounts', 'create', '--name', 'Live A', '-p', 'prod', '--yes'])).json().id
    const lb = (await cli(['subaccounts', 'create', '--name', 'Live B', '-p', 'prod', '--yes'])).json().id
    const liveMove = (await cli(['-p', 'prod', 'moves', 'create', '--from', la, '--to', lb, '--amount', '4.00', '--no-auto-approve', '--yes'])).json().id
    const live = (await cli(['-p', 'prod', 'approvals', '--kind', 'moves', '-o', 'json'])).json() as Array<{id: string}>
    expect(live.map((x) => x.id)).toEqual([liveMove])
    const sandbox = (await cli(['approvals', '--kind', 'moves', '-o', 'json'])).json() as Array<{id: string}>
    expect(sandbox.map((x) => x.id)).toContain(sandboxMove)
    expect(sandbox.map((x) => x.id)).not.toContain(liveMove)
    // The same key from the environment under another profile name sees the same queue.
    const byKey = (await cli(['-p', 'sandbox', 'approvals', '--kind', 'moves', '-o', 'json'], {env: {PAYOPS_API_KEY: emu.keys.live}})).json() as Array<{id: string}>
    expect(byKey.map((x) => x.id)).toEqual([liveMove])
    // `approvals -o json | jq -r '.[] | select(.kind=="move") | .id' | payops moves approve -`
    const ids = live.map((x) => x.id).join('\n') + '\n'
    const approved = await cli(['-p', 'prod', 'moves', 'approve', '-', '--yes'], {input: ids})
    expect(approved.code, approved.stderr).toBe(0)
    expect((await cli(['subaccounts', 'get', lb, '-p', 'prod'])).json().total_incoming_in_minor_units).toBe(400)
    expect((await cli(['-p', 'prod', 'approvals', '--kind', 'moves', '-o', 'json'])).json()).toEqual([])
    expect((await cli(['moves', 'cancel', sandboxMove])).code).toBe(0)
  })

  it('on a terminal it offers a checkbox list and approves what was picked', async () => {
    const id = (await cli(['moves', 'create', '--from', a, '--to', b, '--amount', '21.00', '--no-auto-approve'])).json().id
    const other = (await cli(['moves', 'create', '--from', a, '--to', b, '--amount', '22.00', '--no-auto-approve'])).json().id
    // Nothing picked: nothing approved, nothing sent.
    const none = await expectNothingSent(emu, () => cli(['approvals', '--kind', 'moves'], {tty: true, answers: ['']}), dir.path)
    expect(none.code, none.stderr).toBe(0)
    expect(none.asked).toEqual(['Approve which? (space to pick, enter to go on)'])
    expect(none.stderr).toMatch(/Nothing chosen: nothing was approved/)
    const r = await cli(['approvals', '--kind', 'moves'], {tty: true, answers: [`move:${id}`]})
    expect(r.code, r.stderr).toBe(0)
    expect(r.asked).toEqual(['Approve which? (space to pick, enter to go on)'])
    expect(r.stderr).toMatch(/21\.00 USD\s+Payroll .*→ Vendors/)
    expect(r.stderr).toMatch(new RegExp(`Approved move ${id} .*settled now`))
    expect(r.stderr + r.stdout).not.toContain(other)
    expect((await cli(['approvals', '-o', 'json', '--kind', 'moves'])).json().map((m: {id: string}) => m.id)).toEqual([other])
    expect((await cli(['moves', 'approve', other])).code).toBe(0)
    expect((await cli(['approvals', '-o', 'json', '--kind', 'moves'])).json()).toEqual([])
  })

  it('tables show the names payops has seen beside short ids; subaccounts get shows the balance; csv and json keep ids', async () => {
    const table = await cli(['moves', 'create', '--from', a, '--to', b, '--amount', '1.00', '-o', 'table'])
    expect(table.code, table.stderr).toBe(0)
    expect(table.stdout).toMatch(new RegExp(`FROM\\s+Payroll \\(${a.slice(0, 8)}…\\)`))
    expect(table.stdout).toMatch(/TO\s+Vendors \(/)
    const csv = await cli(['moves', 'create', '--from', a, '--to', b, '--amount', '1.00', '-o', 'csv'])
    expect(csv.stdout).toContain(`,${a},${b},`)
    const sub = await cli(['subaccounts', 'get', b, '-o', 'table'])
    expect(sub.stdout).toMatch(/BALANCE\s+\d[\d,]*\.\d\d USD/)
  })
})
