/**
 * Prompts in a real pseudo-terminal (util-linux `script`), one or two of each kind: the typed LIVE
 * amount confirmation (and Ctrl-C at it), the rotate-secret confirmation, the approvals checkbox
 * list, and the spinner of `transfers create --wait`. `bin/run.js` runs in the terminal against the
 * in-process emulator; the setup and the checks of what moved run in-process. Every other prompt is
 * answered in-process (`tty: true` with `answers`) in test/cli.
 */
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {knownSecrets, run, runAs, startEmulator, tempDir, type Emulator, type RunOptions, expectOnlyRequests, subaccountLookup} from '../support/index.js'
import {runInPty} from './pty.js'

let emu: Emulator
const dir = tempDir()
const env = () => ({PAYOPS_CONFIG_DIR: dir.path})
let a: string
let b: string
let la: string
let lb: string

const cli = (args: string[], opts: RunOptions = {}) => run(args, {configDir: dir.path, ...opts})
const totals = async (id: string, profile = 'sandbox') => {
  const s = (await cli(['subaccounts', 'get', id, '-p', profile])).json()
  return {incoming: s.total_incoming_in_minor_units as number, outgoing: s.total_outgoing_in_minor_units as number}
}
const ids = async () => (await runAs(emu, 'test', ['webhooks', 'list', '--all', '-o', 'ndjson'])).stdout.trim().split('\n').map((l) => JSON.parse(l).id as string)

/**
 * Runs `fn` and asserts that the emulator received exactly `reads` (`GET /api/…` lookups a plan
 * makes to read a currency or a name, which change nothing; in any order) and nothing else, and
 * that the audit trail did not grow: no request that moves money or changes anything was sent.
 */
const onlyReads = <T>(reads: string[], fn: () => Promise<T>) => expectOnlyRequests(emu, reads, fn, dir.path)
const lookup = subaccountLookup

beforeAll(async () => {
  emu = await startEmulator()
  await cli(['profiles', 'add', 'sandbox', '--base-url', emu.baseUrl, '--key-stdin', '--use'], {input: emu.keys.test})
  await cli(['profiles', 'add', 'prod', '--base-url', emu.baseUrl, '--key-stdin'], {input: emu.keys.live})
  a = (await cli(['subaccounts', 'create', '--name', 'Payroll'])).json().id
  b = (await cli(['subaccounts', 'create', '--name', 'Vendors'])).json().id
  la = (await cli(['subaccounts', 'create', '--name', 'L-A', '-p', 'prod', '--yes'])).json().id
  lb = (await cli(['subaccounts', 'create', '--name', 'L-B', '-p', 'prod', '--yes'])).json().id
})
afterAll(() => dir.cleanup())

describe('the typed LIVE confirmation', () => {
  it('a LIVE `api POST` move shows amount, from and to and wants the amount typed, not y', async () => {
    const before = await totals(lb, 'prod')
    const args = ['api', 'POST', '/api/subaccounts/move', '-F', `from_subaccount_id=${la}`, '-F', `to_subaccount_id=${lb}`, '-F', 'amount_in_minor_units=1234', '-p', 'prod']
    const refused = await onlyReads([lookup(la), lookup(lb)], () => runInPty(args, [{when: /Type 12\.34 to confirm/, answer: 'y'}], env()))
    expect(refused.code).toBe(3)
    expect(refused.output).toMatch(/Type 12\.34 to confirm this LIVE movement/)
    expect(refused.output).toMatch(/amount:\s+12\.34 USD/)
    expect(refused.output).toContain(la)
    expect(refused.output).toContain(lb)
    expect(await totals(lb, 'prod')).toEqual(before)
    const ok = await runInPty(args, [{when: /Type 12\.34 to confirm/, answer: '12.34'}], env())
    expect(ok.code, ok.output).toBe(0)
    expect(ok.output).toMatch(/Created move [0-9a-f-]{36}: 12\.34 USD/)
    expect((await totals(lb, 'prod')).incoming).toBe(before.incoming + 1234)
  }, 60_000)

  it('Ctrl-C at the typed confirmation is "aborted" (exit 130) and nothing moves', async () => {
    const before = await totals(lb, 'prod')
    const r = await onlyReads([lookup(la), lookup(lb)], () => runInPty(['moves', 'create', '--from', la, '--to', lb, '--amount', '4.56', '-p', 'prod'], [{when: /Type 4\.56 to confirm/, answer: '\x03'}], env()))
    expect(r.code).toBe(130)
    expect(r.output).toMatch(/Aborted at the prompt: nothing was sent/)
    expect(await totals(lb, 'prod')).toEqual(before)
  }, 60_000)
})

describe('the rotate-secret confirmation', () => {
  it('rotate-secret shows the new secret, then asks before deleting the old endpoint', async () => {
    const created = await runAs(emu, 'test', ['webhooks', 'create', '--url', 'https://example.com/hooks', '--event-types', 'payin.settled', '-o', 'json'], {allowSecrets: true})
    const old = created.json()
    knownSecrets.add(old.secret)
    const declined = await runInPty(['webhooks', 'rotate-secret', old.id], [{when: /Delete the old endpoint/, answer: 'n'}], env())
    const fresh = /whsec_[A-Za-z0-9_-]+/.exec(declined.output)?.[0]
    expect(fresh, declined.output).toBeDefined()
    expect(fresh).not.toBe(old.secret)
    knownSecrets.add(fresh!)
    expect(declined.code).toBe(0)
    // The secret comes before the question.
    expect(declined.output.indexOf(fresh!)).toBeLessThan(declined.output.indexOf('Delete the old endpoint'))
    expect(declined.output).toMatch(/Store it now; it is not shown again/)
    expect(declined.output).toMatch(new RegExp(`The old endpoint ${old.id} is kept`))
    expect(await ids()).toContain(old.id)
    expect((await ids()).length).toBeGreaterThanOrEqual(2)
    const accepted = await runInPty(['webhooks', 'rotate-secret', old.id], [{when: /Delete the old endpoint/, answer: 'y'}], env())
    expect(accepted.code, accepted.output).toBe(0)
    expect(accepted.output).toMatch(/cannot be shown again/)
    expect(await ids()).not.toContain(old.id)
  }, 60_000)
})

describe('the approvals checkbox list', () => {
  it('on a terminal it offers a checkbox list and approves what was picked', async () => {
    const id = (await cli(['moves', 'create', '--from', a, '--to', b, '--amount', '21.00', '--no-auto-approve'])).json().id
    const r = await runInPty(['approvals', '--kind', 'moves'], [{when: /Approve which\?/, answer: ' '}], env())
    expect(r.code, r.output).toBe(0)
    expect(r.output).toMatch(/21\.00 USD\s+Payroll .*→ Vendors/)
    expect(r.output).toMatch(new RegExp(`Approved move ${id} .*settled now`))
    expect((await cli(['approvals', '-o', 'json', '--kind', 'moves'])).json()).toEqual([])
  }, 60_000)
})

describe('the --wait spinner', () => {
  it('transfers create --wait shows a spinner on the terminal and ends with the settled transfer', async () => {
    const accounts = (await cli(['treasury', 'accounts', 'list', '--order', 'asc'])).json() as Array<{id: string; currency_code: string}>
    const [usd1, usd2] = accounts.filter((x) => x.currency_code === 'USD')
    await emu.control('POST', '/_emulator/async-transfers', {entity: 'test', enabled: true, delay_ms: 300})
    try {
      const r = await runInPty(
        ['transfers', 'create', '--from', usd1.id, '--to', usd2.id, '--amount', '5.00', '--currency', 'USD', '--rail', 'wire', '--wait', '--poll-interval', '100', '-o', 'json'],
        [],
        env(),
      )
      expect(r.code, r.output).toBe(0)
      expect(r.output).toMatch(/Waiting for transfer [0-9a-f-]{36}/)
      expect(r.output, JSON.stringify(r.output)).toMatch(/"status": "settled"/)
    } finally {
      await emu.control('POST', '/_emulator/async-transfers', {entity: 'test', enabled: false})
    }
  }, 60_000)
})
