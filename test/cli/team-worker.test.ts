/**
 * Members without the key (a real PostgreSQL; config dirs for machines): ana's and bob's
 * profiles hold no API key, only the team store; two cron hosts hold the key and run the worker.
 * A member's money command records a request and sends nothing; another member approves it; the
 * worker carries it out once (a second pass, or a second worker at once, does nothing); its maker
 * cannot approve it; the store lost mid-approval records nothing (exit 7) and a retry completes
 * it; a member's forged records are refused by the database.
 */
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import pg from 'pg'
import {afterAll, afterEach, beforeAll, beforeEach, describe, expect, it} from 'vitest'
import {activityAmounts, expectNothingSent, run, startCli, startEmulator, tempDir, until, type Emulator, type RunOptions} from '../support/index.js'
import {freshDatabase, type TestDatabase} from '../support/postgres.js'

let emu: Emulator
let db: TestDatabase
const anaDir = tempDir('payops-test-ana-')
const bobDir = tempDir('payops-test-bob-')
const cronDir = tempDir('payops-test-cron-')
const cron2Dir = tempDir('payops-test-cron2-')
let a: string
let b: string
let ana$: {user: string; url: string}
let bob$: {user: string; url: string}

const ana = (args: string[], opts: RunOptions = {}) => run(args, {configDir: anaDir.path, ...opts})
const bob = (args: string[], opts: RunOptions = {}) => run(args, {configDir: bobDir.path, ...opts})
const worker = (args: string[] = [], dir = cronDir.path) => run(['team', 'worker', '--once', '-o', 'json', ...args], {configDir: dir})

beforeAll(async () => {
  emu = await startEmulator()
  for (const dir of [cronDir.path, cron2Dir.path]) expect((await run(['profiles', 'add', 'ops', '--base-url', emu.baseUrl, '--key-stdin', '--use'], {configDir: dir, input: emu.keys.test})).code).toBe(0)
  a = (await run(['subaccounts', 'create', '--name', 'Worker A'], {configDir: cronDir.path})).json().id
  b = (await run(['subaccounts', 'create', '--name', 'Worker B'], {configDir: cronDir.path})).json().id
})
afterAll(async () => {
  await emu?.stop()
  for (const d of [anaDir, bobDir, cronDir, cron2Dir]) d.cleanup()
})

beforeEach(async () => {
  db = await freshDatabase()
  expect((await run(['team', 'init', '--database-url', db.url()], {configDir: cronDir.path})).code).toBe(0)
  ana$ = await db.login('ana', ['payops_member'])
  bob$ = await db.login('bob', ['payops_member'])
  const w1 = await db.login('cron', ['payops_worker'])
  const w2 = await db.login('cron2', ['payops_worker'])
  const added = await ana(['profiles', 'add', 'ana', '--team', ana$.url, '--use', '--force'])
  expect(added.code, added.stderr).toBe(0)
  expect(added.stderr).toContain('a team member\'s, without an API key')
  expect((await bob(['profiles', 'add', 'bob', '--team', bob$.url, '--use', '--force'])).code).toBe(0)
  expect((await run(['profiles', 'set', 'ops', 'team', w1.url], {configDir: cronDir.path})).code).toBe(0)
  expect((await run(['profiles', 'set', 'ops', 'team', w2.url], {configDir: cron2Dir.path})).code).toBe(0)
})
afterEach(async () => {
  for (const dir of [cronDir.path, cron2Dir.path]) await run(['profiles', 'unset', 'ops', 'team'], {configDir: dir})
  await db.drop()
})

/** Ana asks for a move; nothing is sent. */
async function requested(amount = '50.00'): Promise<string> {
  const r = await expectNothingSent(emu, () => ana(['moves', 'create', '--from', a, '--to', b, '--amount', amount, '--currency', 'USD', '-o', 'json']), anaDir.path)
  expect(r.code, r.stderr).toBe(0)
  expect(r.stderr).toContain('requested: awaits a checker')
  expect(r.json()).toMatchObject({status: 'requested', maker: ana$.user, from_subaccount_id: a, to_subaccount_id: b})
  return r.json().id
}

const executions = () => db.query('SELECT e.worker, o.status, o.resource_id FROM payops.executions e LEFT JOIN payops.execution_outcomes o ON o.request_id = e.request_id ORDER BY o.seq')

describe('members without the key', () => {
  it('ana requests, bob approves, the worker carries it out once: a second pass and a second worker at once do nothing', async () => {
    const before = await activityAmounts(emu, b, 'credit')
    const ref = await requested()
    expect((await ana(['approvals', 'show', ref, '-o', 'json'])).json()).toMatchObject({id: ref, state: 'requested', maker: ana$.user, amount_in_minor_units: 5000})
    // Not approved yet: the worker has nothing to do.
    const idle = await expectNothingSent(emu, () => worker())
    expect(idle.code, idle.stderr).toBe(0)
    expect(idle.stderr).toContain('No approved request awaits the worker')

    const ok = await bob(['approvals', 'review', ref], {tty: true, answers: ['50.00']})
    expect(ok.code, ok.stderr).toBe(0)
    expect(ok.stderr).toContain(`requested:  by ${ana$.user}`)
    expect(ok.stderr).toContain('approved: ')
    expect((await ana(['approvals', 'show', ref, '-o', 'json'])).json()).toMatchObject({state: 'approved', checker: bob$.user})

    // Two cron hosts at once: one carries it out, the other finds it taken or done.
    const [one, two] = await Promise.all([worker(), worker([], cron2Dir.path)])
    for (const w of [one, two]) expect(w.code, w.stderr).toBe(0)
    const rows = [...one.json(), ...two.json()] as Array<{result: string; id: string | null}>
    expect(rows.filter((r) => r.result === 'carried_out')).toHaveLength(1)
    expect(rows.filter((r) => r.result !== 'carried_out').every((r) => r.result === 'skipped')).toBe(true)
    expect(one.stderr + two.stderr).toMatch(/carried out: req-\d+ \(move of 50\.00 USD/)
    expect(await activityAmounts(emu, b, 'credit')).toEqual([5000, ...before])
    const moveId = rows.find((r) => r.result === 'carried_out')!.id
    expect(await executions()).toEqual([expect.objectContaining({status: 'carried_out', resource_id: moveId})])

    const shown = await ana(['approvals', 'show', ref, '-o', 'json'])
    expect(shown.json()).toMatchObject({state: 'carried out', carried_out_as: moveId, checker: bob$.user})
    expect(shown.stderr).toContain(`was carried out by`)
    const again = await expectNothingSent(emu, () => worker())
    expect(again.code).toBe(0)
    expect(again.json()).toEqual([])
    expect(await activityAmounts(emu, b, 'credit')).toEqual([5000, ...before])
  })

  it('--interval: a request approved while the worker runs is carried out on its next pass; Ctrl-C ends it with exit 130', async () => {
    const before = await activityAmounts(emu, b, 'credit')
    const running = startCli(['team', 'worker', '--interval', '1s', '-o', 'json'], {configDir: cronDir.path})
    await until(() => running.stderr().includes('No approved request awaits the worker'), () => `the first pass: ${running.stderr()}`)
    const ref = await requested('33.00')
    expect((await bob(['approvals', 'review', ref, '--yes'])).code).toBe(0)
    await until(() => running.stderr().includes(`carried out: ${ref}`), () => `the request carried out: ${running.stderr()}`)
    running.interrupt()
    const r = await running.done
    expect(r.code, r.stderr).toBe(130)
    expect(await activityAmounts(emu, b, 'credit')).toEqual([3300, ...before])
    expect((await ana(['approvals', 'show', ref, '-o', 'json'])).json()).toMatchObject({state: 'carried out'})
  })

  it('an account transfer requested without the key is carried out with its key in the transfer', async () => {
    const [from, to] = ((await run(['treasury', 'accounts', 'list'], {configDir: cronDir.path})).json() as Array<{id: string; currency_code: string}>).filter((x) => x.currency_code === 'USD')
    const r = await expectNothingSent(emu, () => ana(['transfers', 'create', '--from', from.id, '--to', to.id, '--amount', '12.00', '--currency', 'USD', '--rail', 'wire', '-o', 'json']))
    expect(r.code, r.stderr).toBe(0)
    expect(r.json()).toMatchObject({status: 'requested', rail: 'wire', from_account_id: from.id})
    expect((await bob(['approvals', 'review', r.json().id, '--yes'])).code).toBe(0)
    const w = await worker()
    expect(w.code, w.stderr).toBe(0)
    const [row] = w.json()
    expect(row).toMatchObject({result: 'carried_out', amount_in_minor_units: 1200})
    const listed = await run(['transfers', 'list', '--account-id', from.id, '-o', 'json', '--all'], {configDir: cronDir.path})
    const made = (listed.json() as Array<{id: string; client_metadata?: Record<string, unknown>}>).find((t) => t.id === row.id)
    expect(made?.client_metadata?.payops_idempotency_key).toBe(r.json().idempotency_key)
  })

  it('a transfer claimed by a worker that died: resumed by its key, sent only when the list shows it was not, never twice', async () => {
    const [from, to] = ((await run(['treasury', 'accounts', 'list'], {configDir: cronDir.path})).json() as Array<{id: string; currency_code: string}>).filter((x) => x.currency_code === 'USD')
    const ask = async (amount: string) => {
      const r = await ana(['transfers', 'create', '--from', from.id, '--to', to.id, '--amount', amount, '--currency', 'USD', '--rail', 'wire', '-o', 'json'])
      expect(r.code, r.stderr).toBe(0)
      expect((await bob(['approvals', 'review', r.json().id, '--yes'])).code).toBe(0)
      // A worker claimed it and died eleven minutes ago: the claim stands without an outcome.
      await db.query("INSERT INTO payops.executions (request_id, worker, idempotency_key, at) VALUES ($1, 'gone', $2, now() - interval '11 minutes')", [Number(r.json().id.slice(4)), r.json().idempotency_key])
      return r.json() as {id: string; idempotency_key: string}
    }
    const withKey = async (key: string) => ((await run(['transfers', 'list', '--account-id', from.id, '--all', '-o', 'json'], {configDir: cronDir.path})).json() as Array<{id: string; client_metadata?: Record<string, unknown>}>).filter((t) => t.client_metadata?.payops_idempotency_key === key)
    // Never sent: the list shows nothing that could be it, so the worker sends it once.
    // Claimed a moment ago: it may still be in flight, so it is left alone.
    const fresh = await ana(['transfers', 'create', '--from', from.id, '--to', to.id, '--amount', '13.03', '--currency', 'USD', '--rail', 'wire', '-o', 'json'])
    expect((await bob(['approvals', 'review', fresh.json().id, '--yes'])).code).toBe(0)
    await db.query("INSERT INTO payops.executions (request_id, worker, idempotency_key) VALUES ($1, 'busy', $2)", [Number(fresh.json().id.slice(4)), fresh.json().idempotency_key])
    const unsent = await ask('13.01')
    // Sent before the worker died: the list shows it by its key, so it is not sent again.
    const sent = await ask('13.02')
    const direct = await run(['transfers', 'create', '--from', from.id, '--to', to.id, '--amount', '13.02', '--currency', 'USD', '--rail', 'wire', '--idempotency-key', sent.idempotency_key, '-o', 'json'], {configDir: cron2Dir.path})
    expect(direct.code, direct.stderr).toBe(0)
    const w = await worker()
    expect(w.code, w.stderr).toBe(0)
    const rows = w.json() as Array<{request: string; result: string; id: string}>
    expect(rows.map((x) => x.result)).toEqual(['skipped', 'carried_out', 'carried_out'])
    expect(w.stderr).toContain(`skipped: ${fresh.json().id}`)
    expect(await withKey(fresh.json().idempotency_key)).toEqual([])
    expect(await withKey(unsent.idempotency_key)).toHaveLength(1)
    expect(await withKey(sent.idempotency_key)).toEqual([expect.objectContaining({id: direct.json().id})])
    expect(rows.find((x) => x.request === sent.id)?.id).toBe(direct.json().id)
    expect(await db.query('SELECT status FROM payops.execution_outcomes ORDER BY seq')).toEqual([{status: 'carried_out'}, {status: 'carried_out'}])
  })

  it('a payroll imported without the key: each row a request, the same rows under another name refused, listed for checkers, carried out once', async () => {
    const csv = `from,to,amount,currency\n${a},${b},11.00,USD\n${a},${b},12.00,USD\n`
    const file = join(anaDir.path, 'payroll.csv')
    const renamed = join(anaDir.path, 'payroll-final.csv')
    writeFileSync(file, csv)
    writeFileSync(renamed, csv)
    const before = await activityAmounts(emu, b, 'credit')
    const r = await expectNothingSent(emu, () => ana(['moves', 'import', file, '--yes', '-o', 'json']))
    expect(r.code, r.stderr).toBe(0)
    expect(r.stderr).toContain('requested: awaits a checker')
    const refs = (r.json() as Array<{request: string; amount_in_minor_units: number}>).map((x) => x.request)
    expect(r.json().map((x: {amount_in_minor_units: number}) => x.amount_in_minor_units)).toEqual([1100, 1200])
    const again = await expectNothingSent(emu, () => ana(['moves', 'import', renamed, '--yes']))
    expect(again.code).toBe(5)
    expect(again.stderr).toMatch(/recorded in the team store .* by ana_\w+ .*Nothing was requested/)
    const queue = await bob(['approvals', '-o', 'json'])
    expect(queue.code, queue.stderr).toBe(0)
    expect(queue.json().map((i: {id: string}) => i.id)).toEqual(refs)
    expect(queue.json()[0]).toMatchObject({source: 'team', maker: ana$.user, amount_in_minor_units: 1100})
    for (const ref of refs) expect((await bob(['approvals', 'review', ref, '--yes'])).code).toBe(0)
    const w = await worker()
    expect(w.code, w.stderr).toBe(0)
    expect(w.json().map((x: {result: string}) => x.result)).toEqual(['carried_out', 'carried_out'])
    expect((await activityAmounts(emu, b, 'credit')).slice(0, 2).sort()).toEqual([1100, 1200])
    expect(await activityAmounts(emu, b, 'credit')).toHaveLength(before.length + 2)
    expect((await bob(['approvals', '-o', 'json'])).json()).toEqual([])
  })

  it('its maker cannot approve it, in payops or in the database; a decision by its maker is never carried out', async () => {
    const ref = await requested('40.00')
    const own = await ana(['approvals', 'review', ref, '--yes'])
    expect(own.code).toBe(3)
    expect(own.stderr).toContain(`was requested by ${ana$.user}, who cannot also approve it`)
    const id = Number(ref.slice(4))
    await expect(db.queryAs(ana$.url, "SELECT payops.decide_approval($1, 'approved', null)", [id])).rejects.toThrow(/may not decide it/)
    // A decision by its maker written past the functions (the tables' owner can): the worker refuses it, and so does the store.
    await db.query("INSERT INTO payops.approval_decisions (request_id, checker, decision) VALUES ($1, $2, 'approved')", [id, ana$.user])
    const w = await expectNothingSent(emu, () => worker(), cronDir.path)
    expect(w.code).toBe(1)
    expect(w.json()).toEqual([expect.objectContaining({request: ref, result: 'refused'})])
    expect(w.stderr).toContain('approved by its own maker')
    expect(await executions()).toEqual([])
    expect((await ana(['approvals', 'show', ref, '-o', 'json'])).json()).toMatchObject({state: 'approved by its own maker (never carried out)'})
  })

  it('a member\'s forged records are refused by the database: no claim, no outcome, no change', async () => {
    const ref = await requested('30.00')
    const id = Number(ref.slice(4))
    const [{entity}] = await db.query<{entity: string}>('SELECT entity FROM payops.binding')
    const tries = [
      ['SELECT payops.claim_request($1, $2)', [entity, id]],
      ["SELECT payops.record_execution($1, $2, 'carried_out', 'forged', '{}')", [entity, id]],
      ["INSERT INTO payops.executions (request_id, worker, idempotency_key) VALUES ($1, 'someone', 'k')", [id]],
      ["INSERT INTO payops.approval_decisions (request_id, checker, decision) VALUES ($1, 'someone', 'approved')", [id]],
      ['UPDATE payops.approval_requests SET amount = 1 WHERE id = $1', [id]],
      ['DELETE FROM payops.approval_requests WHERE id = $1', [id]],
    ] as const
    for (const [sql, params] of tries) await expect(db.queryAs(bob$.url, sql, [...params]), sql).rejects.toThrow(/permission denied|may not/)
    expect(await executions()).toEqual([])
    expect((await db.query('SELECT amount::int AS amount, maker FROM payops.approval_requests'))).toEqual([{amount: 3000, maker: ana$.user}])
  })

  it('the store lost mid-approval: nothing half-recorded, exit 7; a retry once it is back completes it', async () => {
    const ref = await requested('20.00')
    const id = Number(ref.slice(4))
    // The request's row held by another transaction: bob's decision waits on it, and its connection is then ended.
    const holder = new pg.Client({connectionString: db.url()})
    holder.on('error', () => undefined)
    await holder.connect()
    try {
      await holder.query('BEGIN')
      await holder.query('SELECT id FROM payops.approval_requests WHERE id = $1 FOR UPDATE', [id])
      const review = bob(['approvals', 'review', ref, '--yes'])
      let pid: number | undefined
      for (let i = 0; i < 200 && !pid; i++) {
        const rows = await db.query<{pid: number}>("SELECT pid FROM pg_stat_activity WHERE usename = $1 AND wait_event_type = 'Lock'", [bob$.user])
        pid = rows[0]?.pid
        if (!pid) await new Promise((r) => setTimeout(r, 25))
      }
      expect(pid, 'bob\'s decision waiting on the row').toBeDefined()
      await db.query('SELECT pg_terminate_backend($1)', [pid])
      const r = await review
      expect(r.code, r.stderr).toBe(7)
      expect(r.stderr).toContain(`The team store ${db.host}:${db.port}/${db.name} cannot be reached`)
      await holder.query('ROLLBACK')
    } finally {
      await holder.end()
    }
    expect(await db.query('SELECT * FROM payops.approval_decisions')).toEqual([])
    expect((await ana(['approvals', 'show', ref, '-o', 'json'])).json()).toMatchObject({state: 'requested'})
    const retry = await bob(['approvals', 'review', ref, '--yes'])
    expect(retry.code, retry.stderr).toBe(0)
    expect(await db.query('SELECT checker, decision FROM payops.approval_decisions')).toEqual([{checker: bob$.user, decision: 'approved'}])
  })

  it('bad input to the worker and to a member profile: one line, exit 2, nothing written', async () => {
    const cases: Array<[string[], RegExp]> = [
      [['team', 'worker', '--interval', 'banana'], /--interval "banana" is not a duration from 1s to 24h/],
      [['team', 'worker', '--interval', '0s'], /--interval "0s" is not a duration from 1s to 24h/],
      [['team', 'worker', '--once', '--interval', '1m'], /--interval=1m cannot also be provided when using --once/],
      [['profiles', 'add', 'm1', '--team', 'notaurl'], /--team "notaurl" is not a URL: give postgres:\/\/\[USER@\]HOST\[:PORT\]\/DATABASE\./],
      [['profiles', 'add', 'm2', '--team', 'postgres://ana@127.0.0.1:1/x', '--key-stdin'], /--team=.* cannot also be provided when using --key-stdin/],
    ]
    for (const [args, message] of cases) {
      const r = await run(args, {configDir: cronDir.path, input: 'not-a-key'})
      expect(r.code, args.join(' ')).toBe(2)
      expect(r.stderr.split('\n')[0]).toMatch(message)
    }
    const profiles = await run(['profiles', 'list', '-o', 'json'], {configDir: cronDir.path})
    expect(JSON.stringify(profiles.json())).not.toMatch(/"m1"|"m2"/)
  })

  it('without the key: other commands say they need it (one line), a move without --currency is refused, nothing sent', async () => {
    const approve = await expectNothingSent(emu, () => ana(['moves', 'approve', '00000000-0000-4000-8000-000000000000', '--yes']))
    expect(approve.code).toBe(3)
    // One line (beside the JSON error line of a non-terminal run).
    expect(approve.stderr.trim().split('\n').filter((l) => !l.startsWith('{"error"'))).toHaveLength(1)
    expect(approve.stderr).toContain('is a team member\'s without the key, and this command needs it')
    const list = await ana(['subaccounts', 'get', a])
    expect(list.code).toBe(3)
    expect(list.stderr).toContain('is a team member\'s without the key')
    const noCurrency = await expectNothingSent(emu, () => ana(['moves', 'create', '--from', a, '--to', b, '--amount', '1.00']))
    expect(noCurrency.code).toBe(2)
    expect(noCurrency.stderr).toContain('give --currency')
    expect(await db.query('SELECT * FROM payops.approval_requests')).toEqual([])
    const status = await ana(['team', 'status', '-o', 'json'])
    expect(status.code, status.stderr).toBe(0)
    expect(status.json()).toMatchObject({actor: ana$.user, roles: ['payops_member']})
    const unknown = await ana(['approvals', 'show', 'req-999999'])
    expect(unknown.code).toBe(4)
    // The store out of reach: the request refuses (exit 7, naming it without its password), nothing recorded or sent.
    const away = {env: {PAYOPS_TEAM_DATABASE_URL: 'postgres://ana:not-a-real-secret@127.0.0.1:1/payops'}}
    const lost = await expectNothingSent(emu, () => ana(['moves', 'create', '--from', a, '--to', b, '--amount', '1.00', '--currency', 'USD'], away))
    expect(lost.code).toBe(7)
    expect(lost.stderr).toContain('The team store 127.0.0.1:1/payops cannot be reached')
    expect(lost.stderr).not.toContain('not-a-real-secret')
    const noWorker = await run(['team', 'worker', '--once'], {configDir: cronDir.path, env: away.env})
    expect(noWorker.code).toBe(7)
  })
})
