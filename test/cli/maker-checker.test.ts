/**
 * Maker-checker: under the policy a movement is created without auto-approval whatever the flags
 * say, its creator cannot approve it, and a checker on another config directory reviews the
 * request file, types the amount and approves it; both identities are in the audit trail.
 */
import {existsSync, readFileSync, symlinkSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {readAudit} from '../../src/audit/index.js'
import {MAKER_CHECKER_SCOPE} from '../../src/movements/maker-checker.js'
import {activityAmounts, expectNothingSent, expectOnlyRequests, ROOT, run, subaccountLookup, startEmulator, tempDir, type Emulator, type RunOptions} from '../support/index.js'

let emu: Emulator
const maker = tempDir()
const checker = tempDir()
let a: string
let b: string

const ana = (args: string[], opts: RunOptions = {}) => run(args, {configDir: maker.path, ...opts})
const bob = (args: string[], opts: RunOptions = {}) => run(args, {configDir: checker.path, ...opts})
const credits = () => activityAmounts(emu, b, 'credit')

beforeAll(async () => {
  emu = await startEmulator()
  await ana(['profiles', 'add', 'ops', '--base-url', emu.baseUrl, '--key-stdin', '--use'], {input: emu.keys.test})
  await bob(['profiles', 'add', 'ops', '--base-url', emu.baseUrl, '--key-stdin', '--use'], {input: emu.keys.test})
  a = (await ana(['subaccounts', 'create', '--name', 'MC A'])).json().id
  b = (await ana(['subaccounts', 'create', '--name', 'MC B'])).json().id
})
afterAll(async () => {
  await emu?.stop()
  maker.cleanup()
  checker.cleanup()
})

describe('settings', () => {
  it('approval-policy and operator-name are set, shown and validated', async () => {
    expect((await ana(['profiles', 'set', 'ops', 'approval-policy', 'two-eyes'])).stderr).toMatch(/Unknown approval policy "two-eyes"/)
    expect((await ana(['profiles', 'set', 'ops', 'approval-policy', 'maker-checker', '--threshold', '10.00'])).code).toBe(2)
    expect((await ana(['profiles', 'set', 'ops', 'max-amount', '5', 'USD', '--threshold', '1'])).stderr).toMatch(/--threshold applies only to approval-policy/)
    expect((await ana(['profiles', 'set', 'ops', 'operator-name', 'Ana\u001b[2J'])).code).toBe(2)
    const set = await ana(['profiles', 'set', 'ops', 'approval-policy', 'maker-checker', '--threshold', '10.00', 'USD'])
    expect(set.code, set.stderr).toBe(0)
    expect(set.json().limits).toEqual({approval: {policy: 'maker-checker', threshold: {USD: 1000}}})
    expect((await ana(['profiles', 'set', 'ops', 'operator-name', 'Ana', 'Ruiz'])).json().operator_name).toBe('Ana Ruiz')
    expect((await bob(['profiles', 'set', 'ops', 'operator-name', 'Bob Li'])).code).toBe(0)
  })
})

describe('said where the user sees it', () => {
  /** One space between words: help and the README wrap their lines. */
  const flat = (s: string) => s.replace(/\s+/g, ' ')
  const scope = flat(MAKER_CHECKER_SCOPE)

  it('that maker-checker is a control of this CLI, not of the service: in profiles set output and help, approvals review --help and the README controls', async () => {
    expect(scope).toMatch(/a control of this CLI, not of the service, until a team control store holds the policy/)
    const set = await ana(['profiles', 'set', 'ops', 'approval-policy', 'maker-checker', '--threshold', '10.00', 'USD'])
    expect(set.code, set.stderr).toBe(0)
    expect(flat(set.stderr)).toContain(scope)
    expect(flat((await ana(['profiles', 'set', '--help'])).stdout)).toContain(scope)
    expect(flat((await ana(['approvals', 'review', '--help'])).stdout)).toContain(scope)
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8')
    const controls = readme.slice(readme.indexOf('**Controls.**'), readme.indexOf('```sh', readme.indexOf('**Controls.**')))
    expect(flat(controls)).toContain(scope)
  })
})

describe('maker-checker', () => {
  let held: string
  let canceled: string

  it('a move under the threshold settles as usual; over it, it is created without auto-approval and the operator is told', async () => {
    const small = await ana(['moves', 'create', '--from', a, '--to', b, '--amount', '10.00'])
    expect(small.code, small.stderr).toBe(0)
    expect(small.json().status).toBe('settled')
    const big = await ana(['moves', 'create', '--from', a, '--to', b, '--amount', '50.00'])
    expect(big.code, big.stderr).toBe(0)
    expect(big.json().status).toBe('created')
    expect(big.stderr).toMatch(/maker-checker \(profile "ops"\): this move of 50\.00 USD is created without auto-approval/)
    held = big.json().id
    expect(await credits()).toEqual([1000])
    const rec = readAudit(maker.path).find((r) => r.kind === 'outcome' && r.resource_id === held)!
    expect(rec).toMatchObject({operator: 'Ana Ruiz', os_user: expect.any(String), host: expect.any(String)})
  })

  it('`payops api` on the move path is held the same way: created, not settled, whatever its body asks', async () => {
    const body = JSON.stringify({from_subaccount_id: a, to_subaccount_id: b, amount_in_minor_units: 2500, auto_approve: true})
    const r = await ana(['api', 'POST', '/api/subaccounts/move', '--input', '-'], {input: body})
    expect(r.code, r.stderr).toBe(0)
    expect(r.stderr).toMatch(/maker-checker \(profile "ops"\): this move of 25\.00 USD is created without auto-approval/)
    expect(JSON.parse(r.stdout).data.status).toBe('created')
    expect(await credits()).toEqual([1000])
    expect((await ana(['moves', 'cancel', JSON.parse(r.stdout).data.id])).code).toBe(0)
  })

  it('the maker cannot approve it: exit 3 naming her, nothing sent', async () => {
    const r = await expectNothingSent(emu, () => ana(['moves', 'approve', held, '--yes']), maker.path)
    expect(r.code, r.stderr).toBe(3)
    expect(r.stderr).toMatch(new RegExp(`move ${held} was created by Ana Ruiz \\(.*@.*\\), who cannot also approve it`))
  })

  it('on a terminal the maker is told who approves a held move, never to run `moves approve` (which the policy refuses)', async () => {
    const r = await ana(['moves', 'create', '--from', a, '--to', b, '--amount', '30.00', '--no-color'], {tty: true})
    expect(r.code, r.stderr).toBe(0)
    const id = /Created move ([0-9a-f-]{36})/.exec(r.stderr)?.[1]
    expect(id, r.stderr).toBeDefined()
    expect(r.stderr).toMatch(/awaiting approval by another operator \(maker-checker, profile "ops"\)/)
    expect(r.stderr).toContain(`payops approvals request ${id} --out FILE`)
    expect(r.stderr).not.toMatch(/moves approve/)
    expect((await ana(['moves', 'cancel', id!])).code).toBe(0)
  })

  it('a held move refused before sending (over a limit) says what was refused and that nothing was sent, never that it is created', async () => {
    expect((await ana(['profiles', 'set', 'ops', 'max-amount', '40.00', 'USD'])).code).toBe(0)
    try {
      const r = await expectOnlyRequests(emu, [subaccountLookup(a), subaccountLookup(b)], () => ana(['moves', 'create', '--from', a, '--to', b, '--amount', '45.00']), maker.path)
      expect(r.code, r.stderr).toBe(3)
      expect(r.stderr).toMatch(/Refused by profile limits: .*45\.00 USD.*Nothing was sent/)
      expect(r.stderr).not.toMatch(/is created|created without auto-approval/)
    } finally {
      expect((await ana(['profiles', 'unset', 'ops', 'max-amount'])).code).toBe(0)
    }
  })

  it('a held move on a LIVE key refused for want of a terminal names what was refused and says nothing was sent, never that it is created', async () => {
    await ana(['profiles', 'add', 'prod', '--base-url', emu.baseUrl, '--key-stdin'], {input: emu.keys.live})
    expect((await ana(['profiles', 'set', 'prod', 'approval-policy', 'maker-checker'])).code).toBe(0)
    const la = (await ana(['-p', 'prod', 'subaccounts', 'create', '--name', 'MC LA', '--yes'])).json().id
    const lb = (await ana(['-p', 'prod', 'subaccounts', 'create', '--name', 'MC LB', '--yes'])).json().id
    const r = await expectOnlyRequests(emu, [subaccountLookup(la), subaccountLookup(lb)], () => ana(['-p', 'prod', 'moves', 'create', '--from', la, '--to', lb, '--amount', '12.34']), maker.path)
    expect(r.code, r.stderr).toBe(3)
    expect(r.stderr).toMatch(/Refusing a LIVE money movement without confirmation: no terminal to ask on, so nothing was sent\. Refused: Move 12\.34 USD \(created, not approved\)\./)
    expect(r.stderr).not.toMatch(/is created|created without auto-approval/)
  })

  it('the same key under another profile name is held to the same policy', async () => {
    await ana(['profiles', 'add', 'spare', '--base-url', emu.baseUrl, '--key-stdin'], {input: emu.keys.test_other})
    const r = await ana(['-p', 'spare', 'moves', 'create', '--from', a, '--to', b, '--amount', '20.00'], {env: {PAYOPS_API_KEY: emu.keys.test}})
    expect(r.code, r.stderr).toBe(0)
    expect(r.json().status).toBe('created')
    canceled = r.json().id
    expect((await ana(['moves', 'cancel', canceled])).code).toBe(0)
  })

  it('approvals request writes the file; review by the maker is refused; the checker on another config dir types the amount and approves', async () => {
    const file = join(maker.path, 'req.json')
    const req = await ana(['approvals', 'request', held, '--out', file])
    expect(req.code, req.stderr).toBe(0)
    const body = JSON.parse(readFileSync(file, 'utf8'))
    expect(body).toMatchObject({kind: 'move', id: held, amount_in_minor_units: 5000, currency_code: 'USD', from: a, to: b, created_by: {operator: 'Ana Ruiz'}})
    expect(readAudit(maker.path).some((r) => r.hash === body.audit_record && r.resource_id === held)).toBe(true)
    expect((await ana(['approvals', 'request', held, '--out', file])).stderr).toMatch(/already exists/)

    const own = await expectNothingSent(emu, () => ana(['approvals', 'review', file, '--yes']), maker.path)
    expect(own.code).toBe(3)
    expect(own.stderr).toMatch(/who cannot also approve it/)

    const wrong = await bob(['approvals', 'review', file], {tty: true, answers: ['5.00']})
    expect(wrong.code).toBe(3)
    expect(await credits()).toEqual([1000])
    const ok = await bob(['approvals', 'review', file], {tty: true, answers: ['50.00']})
    expect(ok.code, ok.stderr).toBe(0)
    expect(ok.stderr).toMatch(/created by: Ana Ruiz/)
    expect(await credits()).toEqual([5000, 1000])
    const rec = readAudit(checker.path).find((r) => r.kind === 'outcome' && r.path === `/api/subaccounts/move/${held}/approve`)!
    expect(rec).toMatchObject({operator: 'Bob Li', maker: expect.stringMatching(/^Ana Ruiz \(/), amount_in_minor_units: 5000, status: 201})
  })

  it('bad request files are one clear line, exit 2; a move that is not pending or not known here cannot be requested', async () => {
    const bad = join(checker.path, 'bad.json')
    writeFileSync(bad, '{"payops_approval_request": 1, "kind": "move"}')
    expect((await bob(['approvals', 'review', bad])).stderr).toMatch(/is not a valid approval request: id/)
    writeFileSync(bad, 'x'.repeat(70_000))
    expect((await bob(['approvals', 'review', bad])).stderr).toMatch(/not an approval request \(at most 65536\)/)
    expect((await bob(['approvals', 'review', join(checker.path, 'none.json')])).code).toBe(2)
    const link = join(checker.path, 'link.json')
    symlinkSync(join(maker.path, 'req.json'), link)
    expect((await bob(['approvals', 'review', link])).stderr).toMatch(/symbolic link/)
    const unknown = await bob(['approvals', 'request', held, '--out', join(checker.path, 'r2.json')])
    expect(unknown.code).toBe(4)
    expect(existsSync(join(checker.path, 'r2.json'))).toBe(false)
    const done = await ana(['approvals', 'request', canceled, '--out', join(maker.path, 'r3.json')])
    expect(done.code).toBe(2)
    expect(done.stderr).toMatch(/does not await approval any more/)
  })

  it('import rows held by maker-checker are awaiting_approval (exit 0), named by the dry run, and their maker is pointed to a checker', async () => {
    const c = (await ana(['subaccounts', 'create', '--name', 'MC C'])).json().id
    const d = (await ana(['subaccounts', 'create', '--name', 'MC D'])).json().id
    const file = join(maker.path, 'held.csv')
    writeFileSync(file, ['from,to,amount', `${c},${d},5.00`, `${c},${d},20.00`, `${c},${d},30.00`].join('\n') + '\n')
    const dry = await expectOnlyRequests(emu, [subaccountLookup(c), subaccountLookup(d)], () => ana(['moves', 'import', file, '--dry-run']), maker.path)
    expect(dry.code, dry.stderr).toBe(0)
    expect(dry.stderr).toMatch(/2 rows \(lines 3-4\) would be held by maker-checker \(profile "ops"\): created without auto-approval/)
    expect(dry.json()).toMatchObject({to_send: 3, held_for_approval: 2})

    const r = await ana(['moves', 'import', file, '--yes'])
    expect(r.code, r.stderr).toBe(0)
    expect(r.json()).toMatchObject({created: 1, awaiting_approval: 2, partial: 0, failed: 0, total_awaiting_approval: {USD: 5000}})
    expect(r.stderr).toMatch(/2 rows created, awaiting approval .*maker-checker \(profile "ops"\) leaves them to another operator: a checker approves them with `payops approvals`/)
    expect(r.stderr).not.toMatch(/moves approve|re-run/i)
    expect(await activityAmounts(emu, d, 'credit')).toEqual([500])

    // Nothing to send again: the held rows are done, awaiting their checker.
    const again = await expectOnlyRequests(emu, [], () => ana(['moves', 'import', file, '--yes']), maker.path)
    expect(again.code, again.stderr).toBe(0)
    for (const id of readAudit(maker.path).filter((x) => x.kind === 'outcome' && x.resource_status === 'created' && x.to === d).map((x) => x.resource_id!)) {
      expect((await ana(['moves', 'cancel', id])).code).toBe(0)
    }
  })
})
