/**
 * What an operator's fingers and eyes expect (issue 28): tables at 80 columns keep ids whole,
 * csv keeps ids, audit columns by any name, the approval queue cleared by the API's answer, and
 * the sentences that name the right next step. In-process against the emulator.
 */
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {run, startEmulator, tempDir, type Emulator, type RunOptions} from '../support/index.js'

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
