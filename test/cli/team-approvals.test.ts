/**
 * Maker-checker through a team store (a real PostgreSQL, two config dirs for two members): a held
 * move is recorded in the store with its maker's database role, every member's queue lists it,
 * its maker cannot approve it by any route (review, moves approve, api, another profile with the
 * same key, an edited request file), another member approves it and the store records the
 * decision, after which the maker's queue no longer lists it.
 */
import {readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, afterEach, beforeAll, beforeEach, describe, expect, it} from 'vitest'
import {activityAmounts, expectNothingSent, fakeClock, run, startEmulator, tempDir, type Emulator, type RunOptions} from '../support/index.js'
import {freshDatabase, type TestDatabase} from '../support/postgres.js'

let emu: Emulator
let db: TestDatabase
const anaDir = tempDir('payops-test-ana-')
const bobDir = tempDir('payops-test-bob-')
let a: string
let b: string
let anaRole: string
let bobRole: string

const ana = (args: string[], opts: RunOptions = {}) => run(args, {configDir: anaDir.path, ...opts})
const bob = (args: string[], opts: RunOptions = {}) => run(args, {configDir: bobDir.path, ...opts})

beforeAll(async () => {
  emu = await startEmulator()
  await ana(['profiles', 'add', 'ops', '--base-url', emu.baseUrl, '--key-stdin', '--use'], {input: emu.keys.test})
  await bob(['profiles', 'add', 'ops', '--base-url', emu.baseUrl, '--key-stdin', '--use'], {input: emu.keys.test})
  a = (await ana(['subaccounts', 'create', '--name', 'Team A'])).json().id
  b = (await ana(['subaccounts', 'create', '--name', 'Team B'])).json().id
})
afterAll(async () => {
  await emu?.stop()
  anaDir.cleanup()
  bobDir.cleanup()
})

beforeEach(async () => {
  db = await freshDatabase()
  const init = await ana(['team', 'init', '--database-url', db.url()])
  expect(init.code, init.stderr).toBe(0)
  const anaLogin = await db.login('ana', ['payops_member'])
  const bobLogin = await db.login('bob', ['payops_member'])
  anaRole = anaLogin.user
  bobRole = bobLogin.user
  expect((await ana(['profiles', 'set', 'ops', 'team', anaLogin.url])).code).toBe(0)
  expect((await bob(['profiles', 'set', 'ops', 'team', bobLogin.url])).code).toBe(0)
})
afterEach(async () => {
  await ana(['profiles', 'unset', 'ops', 'team'])
  await bob(['profiles', 'unset', 'ops', 'team'])
  await db.drop()
})

async function heldMove(amount = '50.00'): Promise<string> {
  const r = await ana(['moves', 'create', '--from', a, '--to', b, '--amount', amount, '--no-auto-approve'])
  expect(r.code, r.stderr).toBe(0)
  expect(r.json().status).toBe('created')
  return r.json().id
}

const requests = () => db.query('SELECT r.maker, r.amount::int AS amount, r.destination, r.detail, d.checker, d.decision FROM payops.approval_requests r LEFT JOIN payops.approval_decisions d ON d.request_id = r.id ORDER BY r.id')

describe('approvals with a team store', () => {
  it('a held move is in the store under its maker; bob sees and approves it; the decision is recorded and ana\'s queue no longer lists it', async () => {
    const id = await heldMove()
    expect(await requests()).toEqual([{maker: anaRole, amount: 5000, destination: b, detail: {resource_id: id, from: a}, checker: null, decision: null}])

    const queue = await bob(['approvals', '-o', 'json'])
    expect(queue.code, queue.stderr).toBe(0)
    expect(queue.json()).toEqual(expect.arrayContaining([expect.objectContaining({kind: 'move', id, amount_in_minor_units: 5000, source: 'team', maker: anaRole})]))

    const before = await activityAmounts(emu, b, 'credit')
    const ok = await bob(['approvals', 'review', id], {tty: true, answers: ['50.00']})
    expect(ok.code, ok.stderr).toBe(0)
    expect(ok.stderr).toContain(`requested:  by ${anaRole}`)
    expect(await activityAmounts(emu, b, 'credit')).toEqual([5000, ...before])
    expect(await requests()).toEqual([expect.objectContaining({maker: anaRole, checker: bobRole, decision: 'approved'})])

    const after = await ana(['approvals', '-o', 'json'])
    expect(after.code, after.stderr).toBe(0)
    expect(after.json().map((i: {id: string}) => i.id)).not.toContain(id)
    const again = await bob(['approvals', 'review', id, '--yes'])
    expect(again.code).toBe(5)
    expect(again.stderr).toContain(`already approved by ${bobRole}`)
    // Ana's trail still shows the move created: the store says it was decided, so there is nothing to request.
    const asked = await ana(['approvals', 'request', id])
    expect(asked.code).toBe(2)
    expect(asked.stderr).toContain(`already approved by ${bobRole}`)
    expect(await requests()).toHaveLength(1)
  })

  it('its maker cannot approve it: by review, moves approve, api, another profile with the same key and the base URL spelled otherwise; nothing is sent', async () => {
    const id = await heldMove('60.00')
    const tries: [string, string[]][] = [
      ['review', ['approvals', 'review', id, '--yes']],
      ['moves approve', ['moves', 'approve', id, '--yes']],
      ['api', ['api', 'POST', `/api/subaccounts/move/${id}/approve`, '--yes']],
    ]
    for (const [what, argv] of tries) {
      const r = await expectNothingSent(emu, () => ana(argv), anaDir.path)
      expect(r.code, `${what}: ${r.stderr}`).toBe(3)
      expect(r.stderr, what).toContain(`was requested by ${anaRole}, who cannot also approve it`)
    }
    // Another profile with the same key, no team store of its own and its base URL spelled otherwise.
    const spelled = `${emu.baseUrl.replace('127.0.0.1', 'localhost').toUpperCase().replace('HTTP://', 'http://')}/`
    expect((await ana(['profiles', 'add', 'other', '--base-url', spelled, '--key-stdin'], {input: emu.keys.test})).code).toBe(0)
    try {
      for (const argv of [['moves', 'approve', id, '--yes'], ['api', 'POST', `/api/subaccounts/move/${id}/approve`, '--yes']]) {
        const other = await expectNothingSent(emu, () => ana([...argv, '--profile', 'other']), anaDir.path)
        expect(other.code, other.stderr).toBe(3)
        expect(other.stderr).toContain(`was requested by ${anaRole}`)
      }
    } finally {
      await ana(['profiles', 'remove', 'other', '--yes'])
    }
    expect(await requests()).toEqual([expect.objectContaining({maker: anaRole, decision: null})])
    // A store that cannot be reached: the approve refuses (exit 7), naming it without a password.
    const away = {env: {PAYOPS_TEAM_DATABASE_URL: 'postgres://someone:not-a-real-secret@127.0.0.1:1/payops'}}
    for (const argv of [['moves', 'approve', id, '--yes'], ['approvals', 'review', id, '--yes']]) {
      const r = await expectNothingSent(emu, () => bob(argv, away), bobDir.path)
      expect(r.code, r.stderr).toBe(7)
      expect(r.stderr).toContain('The team store 127.0.0.1:1/payops cannot be reached')
      expect(r.stderr).not.toContain('not-a-real-secret')
    }
    // Reading the queue is read-only: it works without the store and says the controls are unavailable.
    const queue = await bob(['approvals', '-o', 'json'], away)
    expect(queue.code, queue.stderr).toBe(0)
    expect(queue.stderr).toContain("The team store 127.0.0.1:1/payops cannot be reached: the team's approval requests and decisions are not shown")
    expect(queue.stderr).not.toContain('not-a-real-secret')
    expect(Array.isArray(queue.json())).toBe(true)
  })

  it('a request file is an export of the store\'s record: an edited one is refused (exit 5, naming the difference), nothing sent', async () => {
    const id = await heldMove('70.00')
    const file = join(anaDir.path, 'team-req.json')
    const req = await ana(['approvals', 'request', id, '--out', file])
    expect(req.code, req.stderr).toBe(0)
    expect(await requests()).toHaveLength(1)
    const body = JSON.parse(readFileSync(file, 'utf8'))
    expect(body).toMatchObject({id, amount_in_minor_units: 7000, maker: anaRole})

    const edited = join(bobDir.path, 'edited.json')
    writeFileSync(edited, JSON.stringify({...body, amount_in_minor_units: 700}))
    const r = await expectNothingSent(emu, () => bob(['approvals', 'review', edited, '--yes']), bobDir.path)
    expect(r.code).toBe(5)
    expect(r.stderr).toMatch(/contradicts the team store's request for .*: amount 7\.00 USD, the store's 70\.00 USD/)

    const disowned = join(anaDir.path, 'disowned.json')
    writeFileSync(disowned, JSON.stringify({...body, maker: bobRole, created_by: {operator: 'Someone Else', os_user: 'x', host: 'y'}}))
    const own = await expectNothingSent(emu, () => ana(['approvals', 'review', disowned, '--yes']), anaDir.path)
    expect(own.code).toBe(5)
    expect(own.stderr).toContain(`maker ${bobRole}, the store's ${anaRole}`)
    expect(await requests()).toEqual([expect.objectContaining({decision: null})])
  })

  it('approvals show, watch\'s approval-waiting and completion read the store: after bob\'s decision every member agrees within one command', async () => {
    const id = await heldMove('80.00')
    const shown = await bob(['approvals', 'show', id, '-o', 'json'])
    expect(shown.code, shown.stderr).toBe(0)
    expect(shown.json()).toMatchObject({id, state: 'awaiting approval', amount_in_minor_units: 8000, maker: anaRole, checker: null})
    // Bad input: an id the store holds no request for is exit 4; without a team store, exit 2.
    const unknown = await bob(['approvals', 'show', '00000000-0000-4000-8000-000000000000'])
    expect(unknown.code).toBe(4)
    expect(unknown.stderr).toMatch(/holds no approval request for 00000000-0000-4000-8000-000000000000/)
    const none = tempDir('payops-test-nostore-')
    try {
      const alone = await run(['approvals', 'show', id], {configDir: none.path, env: {PAYOPS_BASE_URL: emu.baseUrl, PAYOPS_API_KEY: emu.keys.test}})
      expect(alone.code).toBe(2)
      expect(alone.stderr).toMatch(/no team store is bound to this key/)
    } finally {
      none.cleanup()
    }

    const later = {clock: fakeClock(Date.now() + 25 * 3_600_000)}
    const watch = (who: typeof ana) => who(['watch', '--once', '-o', 'json'], later)
    const keys = (stdout: string) => stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l).key as string)
    for (const who of [ana, bob]) expect((await who(['profiles', 'set', 'ops', 'watch', 'approval-waiting', '2'])).code).toBe(0)
    try {
      // Bob's machine never created the move: only the store tells it.
      const waiting = await watch(bob)
      expect(waiting.code, waiting.stderr).toBe(9)
      expect(keys(waiting.stdout)).toContain(`approval-waiting:move:${id}`)
      const complete = async (who: typeof ana) => (await who(['__complete', 'moves', 'approve', ''])).stdout
      expect(await complete(bob)).toContain(id)
      expect(await complete(ana)).toContain(id)

      const ok = await bob(['moves', 'approve', id], {tty: true, answers: ['80.00']})
      expect(ok.code, ok.stderr).toBe(0)
      expect(await complete(bob)).not.toContain(id)
      const decided = await ana(['approvals', 'show', id, '-o', 'json'])
      expect(decided.json()).toMatchObject({state: 'approved', checker: bobRole, note: expect.stringMatching(/^approved through the API/)})
      expect(await complete(ana)).not.toContain(id)
      const quiet = await watch(ana)
      expect(keys(quiet.stdout)).not.toContain(`approval-waiting:move:${id}`)
    } finally {
      for (const who of [ana, bob]) await who(['profiles', 'unset', 'ops', 'watch'])
    }
  })

  it('an account transfer held for approval: in the store, refused to its maker by transfers approve, approved by bob\'s review', async () => {
    const [from, to] = ((await ana(['treasury', 'accounts', 'list'])).json() as Array<{id: string; currency_code: string}>).filter((x) => x.currency_code === 'USD')
    const created = await ana(['transfers', 'create', '--from', from.id, '--to', to.id, '--amount', '90.00', '--currency', 'USD', '--rail', 'wire', '--no-auto-approve'])
    expect(created.code, created.stderr).toBe(0)
    const id = created.json().id
    expect(await requests()).toEqual([expect.objectContaining({maker: anaRole, amount: 9000, destination: to.id, detail: {resource_id: id, from: from.id}})])
    const own = await ana(['transfers', 'approve', id, '--yes'])
    expect(own.code).toBe(3)
    expect(own.stderr).toContain(`account transfer ${id} was requested by ${anaRole}, who cannot also approve it`)
    // With a team store the transfer's amount is known to the approve (the store's request), so it is what is typed.
    const ok = await bob(['approvals', 'review', id], {tty: true, answers: ['90.00']})
    expect(ok.code, ok.stderr).toBe(0)
    expect(await requests()).toEqual([expect.objectContaining({checker: bobRole, decision: 'approved'})])
  })
})
