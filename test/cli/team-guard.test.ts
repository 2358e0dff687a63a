/**
 * Money requests under a team store (a real PostgreSQL; two config dirs stand for two machines):
 * the store decides each one with its policies and today's total in the transaction that records
 * the intent, so ten runs started at once on two machines never move more than the team's cap; a
 * member's profile without limits is still refused by the team's policies, and --override-limits
 * does not pass them; an unreachable store refuses every money request before anything is sent,
 * while reads keep working.
 */
import {afterAll, afterEach, beforeAll, beforeEach, describe, expect, it} from 'vitest'
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import pg from 'pg'
import {readAudit} from '../../src/audit/index.js'
import {activityAmounts, expectNothingSent, run, startEmulator, tempDir, type Emulator, type RunOptions} from '../support/index.js'
import {freshDatabase, type TestDatabase} from '../support/postgres.js'

let emu: Emulator
let db: TestDatabase
const one = tempDir('payops-test-machine-')
const two = tempDir('payops-test-machine-')
let a: string
let b: string
let admin: {url: string}
let ana: {url: string; user: string}
let bob: {url: string; user: string}

const on = (dir: string, team: () => string) => (args: string[], opts: RunOptions = {}) => run(args, {configDir: dir, ...opts, env: {PAYOPS_TEAM_DATABASE_URL: team(), ...opts.env}})
const anaRun = on(one.path, () => ana.url)
const bobRun = on(two.path, () => bob.url)
const adminRun = on(one.path, () => admin.url)
const credits = () => activityAmounts(emu, b, 'credit')
const DEAD = 'postgres://ana:s3cret-pass-word-42@127.0.0.1:1/payops_nowhere'

beforeAll(async () => {
  emu = await startEmulator()
  for (const dir of [one.path, two.path]) await run(['profiles', 'add', 'ops', '--base-url', emu.baseUrl, '--key-stdin', '--use'], {configDir: dir, input: emu.keys.test})
  a = (await run(['subaccounts', 'create', '--name', 'Team A'], {configDir: one.path})).json().id
  b = (await run(['subaccounts', 'create', '--name', 'Team B'], {configDir: one.path})).json().id
})
afterAll(async () => {
  await emu?.stop()
  one.cleanup()
  two.cleanup()
})

beforeEach(async () => {
  db = await freshDatabase()
  const init = await run(['team', 'init', '--database-url', db.url(), '-o', 'json'], {configDir: one.path})
  expect(init.code, init.stderr).toBe(0)
  admin = await db.login('admin', ['payops_admin'])
  ana = await db.login('ana', ['payops_member'])
  bob = await db.login('bob', ['payops_member'])
})
afterEach(async () => {
  await db.drop()
})

async function policy(...args: string[]) {
  const r = await adminRun(['team', 'policy', 'set', ...args])
  expect(r.code, r.stderr).toBe(0)
}

/** Runs `fn` and asserts that it sent only reads (a plan's lookups) and wrote no audit record in `dir`. */
async function onlyReads<T>(dir: string, fn: () => Promise<T>): Promise<T> {
  const before = (await emu.requestLog()).count
  const audit = readAudit(dir).length
  const result = await fn()
  const after = await emu.requestLog()
  const sent = after.count > before ? after.recent.slice(-(after.count - before)) : []
  expect(sent.filter((r) => r.method !== 'GET').map((r) => `${r.method} ${r.path}`), 'requests that change anything').toEqual([])
  expect(readAudit(dir).length, 'audit records written').toBe(audit)
  return result
}

const intents = () => db.query<{actor: string; kind: string; amount: string; status: string}>('SELECT actor, kind, amount, status FROM payops.intents ORDER BY seq')

describe('the team store decides every money request', () => {
  it('ten moves started at once on two machines move at most the team\'s daily cap, each allowed one recorded with its outcome', async () => {
    await policy('daily-max', '100.00', 'USD')
    const before = (await credits()).length
    const args = ['moves', 'create', '--from', a, '--to', b, '--amount', '30.00', '-o', 'json']
    const runs = await Promise.all(Array.from({length: 10}, (_, i) => (i % 2 ? bobRun : anaRun)(args)))
    const ok = runs.filter((r) => r.code === 0)
    expect(ok.length, runs.map((r) => r.stderr).join('\n')).toBe(3)
    for (const r of runs.filter((x) => x.code !== 0)) {
      expect(r.code).toBe(3)
      expect(r.stderr).toMatch(/Refused by the team's policies: daily-max 100\.00 USD of the team store .*: 90\.00 USD allowed today/)
    }
    expect((await credits()).slice(before)).toEqual([3000, 3000, 3000])
    // Both machines' members decided; what the store allowed is exactly what moved, each with its outcome.
    const allowed = (await intents()).filter((i) => i.status === 'allowed')
    expect(allowed.map((i) => Number(i.amount))).toEqual([3000, 3000, 3000])
    const [{total}] = await db.query<{total: string}>('SELECT total FROM payops.daily_totals')
    expect(Number(total)).toBe(9000)
    const outcomes = await db.query<{status: string}>('SELECT status FROM payops.outcomes ORDER BY seq')
    expect(outcomes.map((o) => o.status)).toEqual(['created', 'created', 'created'])
  })

  it('a member whose profile has no limits is refused by the team\'s max-amount and allow-list; --override-limits does not pass them', async () => {
    await policy('max-amount', '50.00', 'USD')
    const over = await onlyReads(two.path, () => bobRun(['moves', 'create', '--from', a, '--to', b, '--amount', '50.01', '--override-limits', '--yes']))
    expect(over.code, over.stderr).toBe(3)
    expect(over.stderr).toMatch(/50\.01 USD is over the max-amount 50\.00 USD of the team store .*--override-limits does not override a team policy/)
    await policy('allowed-destinations', a, '--add')
    const elsewhere = await onlyReads(one.path, () => anaRun(['moves', 'create', '--from', a, '--to', b, '--amount', '1.00']))
    expect(elsewhere.code).toBe(3)
    expect(elsewhere.stderr).toContain(`destination ${b} is not in the allowed-destinations of the team store`)
    // A profile's own limit adds to the team's (both apply), and loosens nothing.
    expect((await run(['profiles', 'set', 'ops', 'max-amount', '1000000.00', 'USD'], {configDir: one.path})).code).toBe(0)
    const loosened = await onlyReads(one.path, () => anaRun(['moves', 'create', '--from', b, '--to', a, '--amount', '60.00']))
    expect(loosened.code).toBe(3)
    expect(loosened.stderr).toMatch(/over the max-amount 50\.00 USD of the team store/)
    expect((await run(['profiles', 'unset', 'ops', 'max-amount'], {configDir: one.path})).code).toBe(0)
    const fine = await anaRun(['moves', 'create', '--from', b, '--to', a, '--amount', '50.00', '-o', 'json'])
    expect(fine.code, fine.stderr).toBe(0)
  })

  it('payops api on a money route, however the path or base URL spells it, is decided by the team store too', async () => {
    await policy('max-amount', '10.00', 'USD')
    const fields = ['-f', `from_subaccount_id=${a}`, '-f', `to_subaccount_id=${b}`, '-F', 'amount_in_minor_units=5000', '-f', 'currency_code=USD']
    const plain = await onlyReads(one.path, () => anaRun(['api', 'POST', '/api/subaccounts/move', ...fields]))
    expect(plain.code, plain.stderr).toBe(3)
    expect(plain.stderr).toMatch(/over the max-amount 10\.00 USD of the team store/)
    const viaBase = await onlyReads(one.path, () => anaRun(['api', 'POST', '/move', ...fields, '--base-url', `${emu.baseUrl}/api/subaccounts`]))
    expect(viaBase.code, viaBase.stderr).toBe(3)
    expect(viaBase.stderr).toMatch(/over the max-amount 10\.00 USD of the team store/)
  })
})

describe('every kind of money request', () => {
  it('a create held for approval counts nothing; its approval, on the other machine, counts and is capped', async () => {
    await policy('daily-max', '50.00', 'USD')
    const held = await anaRun(['moves', 'create', '--from', a, '--to', b, '--amount', '40.00', '--no-auto-approve', '-o', 'json'])
    expect(held.code, held.stderr).toBe(0)
    const moved = await anaRun(['moves', 'create', '--from', a, '--to', b, '--amount', '20.00', '-o', 'json'])
    expect(moved.code, moved.stderr).toBe(0)
    // 20.00 allowed today + 40.00 = 60.00 > 50.00: the approval is refused by the team store.
    const approve = await onlyReads(two.path, () => bobRun(['moves', 'approve', held.json().id, '--yes']))
    expect(approve.code, approve.stderr).toBe(3)
    expect(approve.stderr).toMatch(/daily-max 50\.00 USD of the team store .*: 20\.00 USD allowed today .* \+ 40\.00 USD asked = 60\.00 USD/)
    // One the store knows nothing of: its amount cannot be judged, so it is refused.
    const stranger = await onlyReads(two.path, () => bobRun(['moves', 'approve', 'mv_00000000000000000000', '--yes']))
    expect(stranger.code, stranger.stderr).toBe(3)
    expect(stranger.stderr).toMatch(/are unknown to this machine .* so the policies of the team store .* cannot be checked/)
    // Within the cap, the approval moves the money and counts.
    const within = await anaRun(['moves', 'create', '--from', a, '--to', b, '--amount', '30.00', '--no-auto-approve', '-o', 'json'])
    const approved = await bobRun(['moves', 'approve', within.json().id, '--yes', '-o', 'json'])
    expect(approved.code, approved.stderr).toBe(0)
    // The refusals are decisions too: each recorded, with who asked, and counting nothing.
    expect((await intents()).map((i) => [i.kind, Number(i.amount), i.status, i.actor])).toEqual([
      ['move.create', 0, 'allowed', ana.user],
      ['move.create', 2000, 'allowed', ana.user],
      ['check', 4000, 'refused', bob.user],
      ['check', 0, 'refused', bob.user],
      ['move.create', 0, 'allowed', ana.user],
      ['move.approve', 3000, 'allowed', bob.user],
    ])
  })

  it('a cancel moves nothing: it passes an allow-list and is recorded with its outcome', async () => {
    await policy('allowed-destinations', b, '--add')
    const held = await anaRun(['moves', 'create', '--from', a, '--to', b, '--amount', '5.00', '--no-auto-approve', '-o', 'json'])
    expect(held.code, held.stderr).toBe(0)
    const cancel = await bobRun(['moves', 'cancel', held.json().id, '--yes', '-o', 'json'])
    expect(cancel.code, cancel.stderr).toBe(0)
    const rows = await db.query<{kind: string; amount: string; destination: string | null; status: string; actor: string}>('SELECT kind, amount, destination, status, actor FROM payops.intents ORDER BY seq')
    expect(rows).toEqual([
      {kind: 'move.create', amount: '0', destination: b, status: 'allowed', actor: ana.user},
      {kind: 'move.cancel', amount: '0', destination: null, status: 'allowed', actor: bob.user},
    ])
    const outcomes = await db.query<{status: string; actor: string}>('SELECT status, actor FROM payops.outcomes ORDER BY seq')
    expect(outcomes).toEqual([
      {status: 'created', actor: ana.user},
      {status: 'advanced', actor: bob.user},
    ])
  })

  it('transfers and simulated credits are judged by the team\'s max-amount', async () => {
    await policy('max-amount', '10.00', 'USD')
    const accounts = (await run(['treasury', 'accounts', 'list', '-o', 'json'], {configDir: one.path})).json()
    const main = accounts.find((x: any) => x.label === 'Main operating account').id
    const reserve = accounts.find((x: any) => x.currency_code === 'USD' && x.id !== main).id
    const transfer = await onlyReads(one.path, () => anaRun(['transfers', 'create', '--from', main, '--to', reserve, '--amount', '10.01', '--currency', 'USD', '--rail', 'same_day_ach']))
    expect(transfer.code, transfer.stderr).toBe(3)
    expect(transfer.stderr).toMatch(/10\.01 USD is over the max-amount 10\.00 USD of the team store/)
    const credit = await onlyReads(one.path, () => anaRun(['treasury', 'simulate-credit', main, '--rail', 'wire', '--amount-minor', '1001']))
    expect(credit.code, credit.stderr).toBe(3)
    expect(credit.stderr).toMatch(/over the max-amount 10\.00 USD of the team store/)
    const small = await anaRun(['treasury', 'simulate-credit', main, '--rail', 'wire', '--amount-minor', '1000', '-o', 'json'])
    expect(small.code, small.stderr).toBe(0)
    expect((await intents()).map((i) => [i.kind, Number(i.amount), i.status])).toEqual([
      ['check', 1001, 'refused'],
      ['check', 1001, 'refused'],
      ['credit.simulate', 1000, 'allowed'],
    ])
    const [why] = await db.query<{detail: {refused: string[]}}>("SELECT detail FROM payops.intents WHERE kind = 'check' ORDER BY seq LIMIT 1")
    expect(why.detail.refused[0]).toMatch(/10\.01 USD is over the max-amount 10\.00 USD of the team store/)
  })

  it('each row of an import is decided by the team store: the rows past the cap are not sent', async () => {
    await policy('daily-max', '100.00', 'USD')
    const before = (await credits()).length
    const file = join(one.path, 'team-rows.csv')
    writeFileSync(file, ['from,to,amount', ...Array.from({length: 4}, () => `${a},${b},30.00`)].join('\n') + '\n')
    const r = await anaRun(['moves', 'import', file, '--yes', '--new-batch'])
    expect(r.code, r.stderr).not.toBe(0)
    expect((await credits()).slice(before)).toEqual([3000, 3000, 3000])
    const allowed = (await intents()).filter((i) => i.status === 'allowed')
    expect(allowed.map((i) => Number(i.amount))).toEqual([3000, 3000, 3000])
  })
})

describe('group commit', () => {
  it('an import at --concurrency 16 decides its rows in groups, one transaction each, and allows exactly the cap; every row has its outcome', async () => {
    await policy('daily-max', '10.00', 'USD')
    const to = (await run(['subaccounts', 'create', '--name', 'Team group'], {configDir: one.path})).json().id as string
    const file = join(one.path, 'team-group.csv')
    writeFileSync(file, ['from,to,amount,metadata.ref', ...Array.from({length: 40}, (_, i) => `${a},${to},1.00,g${i}`)].join('\n') + '\n')
    const r = await anaRun(['moves', 'import', file, '--yes', '--new-batch', '--concurrency', '16'])
    expect(r.code, r.stderr).not.toBe(0)
    // Exactly what one-by-one decisions allow: ten rows of 1.00 under a 10.00 cap.
    expect(await activityAmounts(emu, to, 'credit')).toEqual(Array.from({length: 10}, () => 100))
    const rows = await db.query<{seq: string; at: Date; status: string; outcomes: string}>(
      `SELECT i.seq, i.at, i.status, (SELECT count(*) FROM payops.outcomes o WHERE o.intent_seq = i.seq) AS outcomes
         FROM payops.intents i WHERE i.kind = 'move.create' ORDER BY i.seq`,
    )
    const allowed = rows.filter((x) => x.status === 'allowed')
    expect(allowed).toHaveLength(10)
    // Each allowed intent has its outcome on record when the command returns.
    expect(allowed.every((x) => Number(x.outcomes) >= 1)).toBe(true)
    // Intents of one transaction share its start time: fewer transactions than intents.
    expect(new Set(rows.map((x) => x.at.toISOString())).size).toBeLessThan(rows.length)
  })
})

describe('fail closed', () => {
  it('an unreachable store: every money request refuses with exit 7 naming it, nothing sent; reads still work', async () => {
    const dead = {env: {PAYOPS_TEAM_DATABASE_URL: DEAD}}
    const attempts: Array<[string[], RunOptions]> = [
      [['moves', 'create', '--from', a, '--to', b, '--amount', '1.00'], dead],
      [['moves', 'cancel', 'mv_0000000000000000'], dead],
      [['moves', 'approve', 'mv_0000000000000000', '--yes'], dead],
      [['api', 'POST', '/api/subaccounts/move', '-f', `from_subaccount_id=${a}`, '-f', `to_subaccount_id=${b}`, '-F', 'amount_in_minor_units=100'], dead],
      [['transfers', 'approve', 'at_0000000000000000', '--yes'], dead],
    ]
    for (const [args, opts] of attempts) {
      const r = await expectNothingSent(emu, () => anaRun(args, opts), one.path)
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(7)
      expect(r.stderr).toContain('The team store 127.0.0.1:1/payops_nowhere cannot be reached')
      expect(r.stderr).not.toContain('s3cret-pass-word-42')
    }
    // An import reads its rows' subaccounts first (reads only), then refuses before its first row.
    const file = join(one.path, 'team-dead.csv')
    writeFileSync(file, `from,to,amount\n${a},${b},1.00\n`)
    const batch = await onlyReads(one.path, () => anaRun(['moves', 'import', file, '--yes', '--new-batch'], dead))
    expect(batch.code, batch.stderr).toBe(7)
    expect(batch.stderr).toContain('The team store 127.0.0.1:1/payops_nowhere cannot be reached')
    const list = await anaRun(['subaccounts', 'get', a, '-o', 'json'], dead)
    expect(list.code, list.stderr).toBe(0)
  })

  it('a store that stops answering between runs: the next money request refuses (exit 7), nothing sent', async () => {
    await policy('daily-max', '100.00', 'USD')
    expect((await anaRun(['moves', 'create', '--from', a, '--to', b, '--amount', '1.00'])).code).toBe(0)
    // The database gone (the server and the roles still there): the store is unavailable.
    const server = new pg.Client({connectionString: db.url().replace(/\/[^/]+$/, '/postgres')})
    await server.connect()
    await server.query(`DROP DATABASE ${db.name} WITH (FORCE)`).finally(() => server.end())
    const r = await expectNothingSent(emu, () => anaRun(['moves', 'create', '--from', a, '--to', b, '--amount', '1.00']), one.path)
    expect(r.code, r.stderr).toBe(7)
    expect(r.stderr).toMatch(/The team store .* cannot be reached/)
  })
})

describe("the team's approval policy", () => {
  it("the team's approval policy holds a member's create though their profile has none, and its maker cannot approve it", async () => {
    await policy('approval-policy', 'maker-checker', '--threshold', '50.00', 'USD')
    // Subaccounts of its own, so that the other tests' ledger figures are not touched.
    const c = (await run(['subaccounts', 'create', '--name', 'Team C'], {configDir: one.path})).json().id
    const d = (await run(['subaccounts', 'create', '--name', 'Team D'], {configDir: one.path})).json().id
    const received = () => activityAmounts(emu, d, 'credit')
    const small = await anaRun(['moves', 'create', '--from', c, '--to', d, '--amount', '10.00', '-o', 'json'])
    expect(small.code, small.stderr).toBe(0)
    expect(small.json().status).toBe('settled')
    const held = await anaRun(['moves', 'create', '--from', c, '--to', d, '--amount', '75.00', '-o', 'json'])
    expect(held.code, held.stderr).toBe(0)
    expect(held.json().status).toBe('created')
    const id = held.json().id
    const own = await expectNothingSent(emu, () => anaRun(['moves', 'approve', id, '--yes']), one.path)
    expect(own.code).toBe(3)
    expect(await received()).not.toContain(7500)
    const approved = await bobRun(['moves', 'approve', id, '--yes', '-o', 'json'])
    expect(approved.code, approved.stderr).toBe(0)
    expect(await received()).toContain(7500)
  })
})
