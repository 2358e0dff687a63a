/**
 * What an operator's fingers and eyes expect (issue 28): tables at 80 columns keep ids whole,
 * csv keeps ids, audit columns by any name, the approval queue cleared by the API's answer, and
 * the sentences that name the right next step. In-process against the emulator.
 */
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {outcomeOf, run, startEmulator, tempDir, type Emulator, type RunOptions} from '../support/index.js'

let emu: Emulator
const dir = tempDir()
let main: string
let reserve: string
let from: string
let to: string

const cli = (args: string[], opts: RunOptions = {}) => run(args, {configDir: dir.path, ...opts})
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g

beforeAll(async () => {
  emu = await startEmulator(['--write-profile', 'sandbox'], dir.path)
  const accounts = (await cli(['treasury', 'accounts', 'list'])).json()
  main = accounts.find((a: any) => a.label === 'Main operating account').id
  reserve = accounts.find((a: any) => a.label.startsWith('USD reserve')).id
  from = (await cli(['subaccounts', 'create', '--name', 'Ops Main'])).json().id
  to = (await cli(['subaccounts', 'create', '--name', 'Payroll'])).json().id
})
afterAll(async () => {
  await emu?.stop()
  dir.cleanup()
})

describe('a table at 80 columns', () => {
  it('keeps every id whole, leaves out the empty and the rightmost columns first, and says so', async () => {
    for (let i = 0; i < 2; i++) {
      const t = await cli(['transfers', 'create', '--from', main, '--to', reserve, '--amount', `1.0${i}`, '--currency', 'USD', '--rail', 'wire', '--no-auto-approve'])
      expect(t.code, t.stderr).toBe(0)
    }
    const ids = (await cli(['transfers', 'list', '--status', 'created'])).json().map((t: any) => t.id)
    expect(ids.length).toBeGreaterThanOrEqual(2)
    const r = await cli(['transfers', 'list', '--status', 'created', '--no-color'], {tty: true, columns: 80})
    expect(r.code, r.stderr).toBe(0)
    const lines = r.stdout.trimEnd().split('\n')
    for (const line of lines) expect(line.length, r.stdout + r.stderr).toBeLessThanOrEqual(80)
    for (const id of ids) expect(r.stdout).toContain(id)
    // No transfer here is scheduled: the empty column gives its room to the others.
    expect(lines[0]).not.toMatch(/SCHEDULED/)
    expect(lines[0]).toMatch(/^ID\s+STATUS\s+AMOUNT/)
    expect(r.stderr).toMatch(/Not shown at this width: .*scheduled_date.*--wide/)
    // --wide shows every column, whole.
    const wide = await cli(['transfers', 'list', '--status', 'created', '--wide', '--no-color'], {tty: true, columns: 80})
    expect(wide.stdout.split('\n')[0]).toMatch(/SCHEDULED\s+CREATED/)
    expect(wide.stderr).not.toMatch(/Not shown/)
  })
})

describe('the approval queue', () => {
  it('a move settled or canceled from another machine leaves it once the API says so', async () => {
    const settled = (await cli(['moves', 'create', '--from', from, '--to', to, '--amount', '4.00', '--no-auto-approve'])).json().id
    const canceled = (await cli(['moves', 'create', '--from', from, '--to', to, '--amount', '5.00', '--no-auto-approve'])).json().id
    // Another machine (its own config dir and trail) approves one and cancels the other.
    const elsewhere = tempDir()
    try {
      const env = {PAYOPS_BASE_URL: emu.baseUrl, PAYOPS_API_KEY: emu.keys.test}
      expect((await run(['moves', 'approve', settled], {configDir: elsewhere.path, env})).code).toBe(0)
      expect((await run(['moves', 'cancel', canceled], {configDir: elsewhere.path, env})).code).toBe(0)
    } finally {
      elsewhere.cleanup()
    }
    const queued = () => cli(['approvals', '--kind', 'moves', '-o', 'json']).then((r) => r.json().map((m: {id: string}) => m.id))
    expect(await queued()).toEqual(expect.arrayContaining([settled, canceled]))
    // Settled: the approve is read as done (exit 0); canceled: refused (exit 8), nothing moved.
    const again = await cli(['moves', 'approve', settled])
    expect(again.code, again.stderr).toBe(0)
    expect(outcomeOf(again)).toMatchObject({kind: 'replayed', id: settled, status: 'settled'})
    const refused = await cli(['moves', 'approve', canceled])
    expect(refused.code).toBe(8)
    expect(refused.stderr).toMatch(/cannot be approved in status canceled/)
    const left = await queued()
    expect(left).not.toContain(settled)
    expect(left).not.toContain(canceled)
  })

  it('approvals -o csv keeps the ids whole', async () => {
    const id = (await cli(['moves', 'create', '--from', from, '--to', to, '--amount', '6.00', '--no-auto-approve'])).json().id
    const r = await cli(['approvals', '--kind', 'moves', '-o', 'csv'])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toMatch(/^kind,id,amount,from,to,/)
    expect(r.stdout).toContain(`move,${id},6.00 USD,${from},${to},`)
    expect(r.stdout).not.toContain('…')
    expect((await cli(['moves', 'cancel', id])).code).toBe(0)
  })
})
