/**
 * The control store's contract, on both engines: a decision and its intent commit together, and
 * decisions started at once (several connections: several machines, or processes) never let the
 * day's total pass a cap; policies with who set them; approvals that the maker cannot decide.
 * SQLite in a temporary config dir; PostgreSQL on the run's server (test/support/postgres.ts).
 */
import {afterEach, describe, expect, it} from 'vitest'
import {keyFingerprint} from '../../src/control/index.js'
import {PgControlStore} from '../../src/control/postgres.js'
import {initPgStore} from '../../src/control/pg-init.js'
import {SqliteControlStore} from '../../src/control/sqlite.js'
import type {ControlStore} from '../../src/control/types.js'
import {parseDatabaseUrl} from '../../src/control/url.js'
import {fakeClock} from '../support/cli.js'
import {tempDir} from '../support/env.js'
import {freshDatabase, type TestDatabase} from '../support/postgres.js'

const ENTITY = keyFingerprint('test_controlStoreEntity0001')

interface Engine {
  name: string
  /** Stores of different people (each its own connection), on the same store. */
  open(people: string[]): Promise<ControlStore[]>
  cleanup(): Promise<void>
}

const opened: ControlStore[] = []
const cleanups: Array<() => Promise<void>> = []
afterEach(async () => {
  for (const s of opened.splice(0)) await s.close()
  for (const c of cleanups.splice(0)) await c()
})

function sqliteEngine(clock = fakeClock()): Engine {
  const dir = tempDir('payops-test-controls-')
  return {
    name: 'sqlite',
    open: async (people) => people.map((actor) => SqliteControlStore.open({configDir: dir.path, entity: ENTITY, actor, now: () => clock.now()})),
    cleanup: async () => dir.cleanup(),
  }
}

async function pgEngine(): Promise<Engine & {db: TestDatabase; users: Map<string, string>}> {
  const db = await freshDatabase()
  await initPgStore({address: parseDatabaseUrl(db.url()), env: {}, entity: ENTITY})
  const users = new Map<string, string>()
  return {
    name: 'postgres',
    db,
    users,
    async open(people) {
      const stores: ControlStore[] = []
      for (const p of people) {
        const login = await db.login(p, ['payops_member', 'payops_admin'])
        users.set(p, login.user)
        stores.push(await PgControlStore.open({address: parseDatabaseUrl(login.url), env: {}, entity: ENTITY}))
      }
      return stores
    },
    cleanup: () => db.drop(),
  }
}

const engines: Array<[string, () => Promise<Engine>]> = [
  ['sqlite', async () => sqliteEngine()],
  ['postgres', pgEngine],
]

async function using(make: () => Promise<Engine>, people: string[]): Promise<ControlStore[]> {
  const engine = await make()
  cleanups.push(() => engine.cleanup())
  const stores = await engine.open(people)
  opened.push(...stores)
  return stores
}

/** Allows `amount` when today's total stays within `cap`, else records a refusal. */
const capped = (cap: number, amount: number) => (store: ControlStore) =>
  store.decide(async (view) => {
    const total = await view.totalToday('USD')
    const ok = total + amount <= cap
    return {value: ok, intent: {kind: 'move', currency: 'USD', amount, status: ok ? 'allowed' : 'refused'}}
  })

describe.each(engines)('the control store (%s)', (_name, make) => {
  it('a decision appends its intent at the next position and counts allowed intents only', async () => {
    const [s] = await using(make, ['ana'])
    const first = await capped(150, 100)(s)
    const second = await capped(150, 100)(s)
    expect(first.value).toBe(true)
    expect(second.value).toBe(false)
    expect(second.intent!.seq).toBeGreaterThan(first.intent!.seq)
    expect((await s.intents()).map((i) => [i.amount, i.status])).toEqual([[100, 'allowed'], [100, 'refused']])
    expect(await s.decide(async (v) => ({value: await v.totalToday('USD')}))).toEqual({value: 100, intent: undefined})
  })

  it('an outcome is appended for its intent, stamped with who recorded it', async () => {
    const [ana, bob] = await using(make, ['ana', 'bob'])
    const {intent} = await capped(1000, 100)(ana)
    await bob.recordOutcome(intent!.seq, 'sent', {move_id: 'mv_1'})
    const outcomes = await ana.outcomes(intent!.seq)
    expect(outcomes).toEqual([expect.objectContaining({intent_seq: intent!.seq, status: 'sent', detail: {move_id: 'mv_1'}})])
    expect(outcomes[0].actor).not.toBe(intent!.actor)
    await expect(ana.recordOutcome(intent!.seq + 1000, 'sent')).rejects.toThrow()
  })

  it('a decision that throws records nothing', async () => {
    const [s] = await using(make, ['ana'])
    const refusal = new Error('refused before recording')
    await expect(s.decide(async () => {
      throw refusal
    })).rejects.toBe(refusal)
    expect(await s.intents()).toEqual([])
  })

  it('24 decisions started at once on 3 connections never take the day past the cap', async () => {
    const stores = await using(make, ['ana', 'bob', 'cyd'])
    const results = await Promise.all(Array.from({length: 24}, (_, i) => capped(500, 100)(stores[i % 3])))
    expect(results.filter((r) => r.value)).toHaveLength(5)
    const intents = await stores[0].intents()
    expect(intents).toHaveLength(24)
    expect(intents.filter((i) => i.status === 'allowed').reduce((n, i) => n + i.amount, 0)).toBe(500)
  })

  it('policies: the latest value per key, with who set it, read as limits', async () => {
    const [s] = await using(make, ['ana'])
    await s.setPolicy('daily-max', {USD: 100000})
    await s.setPolicy('daily-max', {USD: 200000})
    await s.setPolicy('allowed-destinations', ['0b6f2b1e-6c1a-4c57-9a64-1f7f3f1f0a01'])
    const policies = await s.policies()
    expect(policies.map((p) => [p.key, p.value])).toEqual([['allowed-destinations', ['0b6f2b1e-6c1a-4c57-9a64-1f7f3f1f0a01']], ['daily-max', {USD: 200000}]])
    expect(policies[0].set_by).toBeTruthy()
    expect(await s.limits()).toEqual({daily_max: {USD: 200000}, allowed_destinations: ['0b6f2b1e-6c1a-4c57-9a64-1f7f3f1f0a01']})
  })

  it('an approval request is decided by another person, never by its maker, and once', async () => {
    const [ana, bob] = await using(make, ['ana', 'bob'])
    const req = await ana.requestApproval({kind: 'move', currency: 'USD', amount: 250000, destination: null})
    expect(req.decision).toBeNull()
    await expect(ana.decideApproval(req.id, 'approved')).rejects.toMatchObject({exitCode: 3})
    const decided = await bob.decideApproval(req.id, 'approved', 'checked the invoice')
    expect(decided.decision).toMatchObject({decision: 'approved', note: 'checked the invoice'})
    expect(decided.decision!.checker).not.toBe(decided.maker)
    await expect(bob.decideApproval(req.id, 'rejected')).rejects.toMatchObject({exitCode: 5})
    expect((await ana.approvals()).map((a) => a.decision?.decision)).toEqual(['approved'])
  })

  it('import batches: one per digest unless it replaces the latest; a stale one is refused; the journal says where each key stands', async () => {
    const [ana, bob] = await using(make, ['ana', 'bob'])
    const digest = 'd'.repeat(64)
    expect(await ana.importBatch(digest)).toBeUndefined()
    await ana.recordImportBatch({digest, batch_id: 'b1', file: 'payroll.csv', rows: 2, replaces: null})
    // Bob looked before Ana's batch started: his is refused (exit 5); recorded again, Ana's is one record.
    await expect(bob.recordImportBatch({digest, batch_id: 'b2', file: 'copy.csv', rows: 2, replaces: null})).rejects.toMatchObject({exitCode: 5})
    await ana.recordImportBatch({digest, batch_id: 'b1', file: 'payroll.csv', rows: 2, replaces: null})
    expect(await bob.importBatchIds(digest)).toEqual(['b1'])
    const row = {fp: 'f', n: 1}
    await ana.recordImportRows('b1', [{key: 'k1', line: 2, state: 'sent', ...row}, {key: 'k2', line: 3, state: 'sent', ...row}])
    await ana.recordImportRows('b1', [{key: 'k1', line: 2, state: 'done', kind: 'created', move_id: 'm1', move_status: 'settled', http_status: 201, ...row}, {key: 'k1', line: 2, state: 'sent', ...row}])
    expect((await bob.importJournal('b1')).map((e) => [e.key, e.state, e.move_id])).toEqual([['k1', 'done', 'm1'], ['k2', 'sent', null]])
    expect(await bob.importBatch(digest, true)).toMatchObject({batch_id: 'b1', file: 'payroll.csv', rows: 2, sent: 2, settled: 1, finished_at: null})
    await bob.finishImportBatch('b1')
    expect((await ana.importBatch(digest))!.finished_at).not.toBeNull()
    // --new-batch: Bob's replaces Ana's, and is the latest; Ana's started_by stays hers.
    await bob.recordImportBatch({digest, batch_id: 'b2', file: 'copy.csv', rows: 2, replaces: 'b1'})
    expect(await ana.importBatch(digest)).toMatchObject({batch_id: 'b2', file: 'copy.csv', finished_at: null})
    expect(await ana.importBatchIds(digest)).toEqual(['b1', 'b2'])
  })
})

describe('the SQLite engine', () => {
  it('counts towards the day of the command\'s clock: a new UTC day starts at zero', async () => {
    const clock = fakeClock(Date.parse('2026-11-23T23:59:00Z'))
    const engine = sqliteEngine(clock)
    cleanups.push(() => engine.cleanup())
    const [s] = await engine.open(['ana'])
    opened.push(s)
    expect((await capped(100, 100)(s)).value).toBe(true)
    expect((await capped(100, 100)(s)).value).toBe(false)
    await clock.sleep(120_000)
    const next = await capped(100, 100)(s)
    expect(next.value).toBe(true)
    expect(next.intent!.day).toBe('2026-11-24')
  })
})

describe('the PostgreSQL engine', () => {
  it('a member\'s direct append_intent waits for the decision in progress, then is judged against a total that includes it', async () => {
    const engine = await pgEngine()
    cleanups.push(() => engine.cleanup())
    const [ana] = await engine.open(['ana'])
    opened.push(ana)
    await ana.setPolicy('daily-max', {USD: 350})
    const bob = await engine.db.login('bob', ['payops_member'])
    let direct: Promise<unknown> | undefined
    const result = await ana.decide(async (view) => {
      const total = await view.totalToday('USD')
      // Another member calls the function directly (psql, at READ COMMITTED, no lock of its own):
      // it waits for this decision's lock, and is judged after it commits.
      direct = engine.db.queryAs(bob.url, `SELECT payops.append_intent($1, 'move', 'USD', 300, NULL, 'allowed', '{}')`, [ENTITY]).then(
        () => 'recorded',
        (err: Error) => err.message,
      )
      await new Promise((r) => setTimeout(r, 300))
      return {value: total, intent: {kind: 'move', currency: 'USD', amount: 100, status: 'allowed'}}
    })
    expect(result.value).toBe(0)
    // 100 allowed first; 100 + 300 is past the 350 cap: the database refuses the direct call.
    expect(await direct).toMatch(/would take today's total past the team's daily-max/)
    expect(await engine.db.query('SELECT total FROM payops.daily_totals')).toEqual([{total: '100'}])
  })

  it('a group\'s intents appended in one statement are each judged by the database after the ones before them', async () => {
    const engine = await pgEngine()
    cleanups.push(() => engine.cleanup())
    const [ana] = await engine.open(['ana'])
    opened.push(ana)
    await ana.setPolicy('daily-max', {USD: 100})
    // Within the cap one by one, each seen by the next: 40 + 40 recorded.
    const two = await ana.decide(() => ({value: null, intents: [40, 40].map((amount) => ({kind: 'move', currency: 'USD', amount, status: 'allowed' as const}))}))
    expect(two.intents!.map((i) => i.amount)).toEqual([40, 40])
    expect(two.intents![1].seq).toBeGreaterThan(two.intents![0].seq)
    // A group whose client judged wrongly (each row alone fits): the database's own check sees the
    // earlier rows of the same statement and refuses the group; nothing of it is recorded.
    await expect(ana.decide(() => ({value: null, intents: [10, 40].map((amount) => ({kind: 'move', currency: 'USD', amount, status: 'allowed' as const}))}))).rejects.toThrow(/daily-max/)
    expect(await engine.db.query('SELECT total FROM payops.daily_totals')).toEqual([{total: '80'}])
    expect(await engine.db.query('SELECT count(*)::int AS n FROM payops.intents')).toEqual([{n: 2}])
  })

  it('two members\' direct append_intent calls at once cannot both pass a cap that fits only one', async () => {
    const engine = await pgEngine()
    cleanups.push(() => engine.cleanup())
    const [ana] = await engine.open(['ana'])
    opened.push(ana)
    await ana.setPolicy('daily-max', {USD: 500})
    const members = await Promise.all(['bob', 'cy', 'di', 'ed'].map((n) => engine.db.login(n, ['payops_member'])))
    const calls = await Promise.all(
      members.map((m) =>
        engine.db.queryAs(m.url, `SELECT payops.append_intent($1, 'move', 'USD', 300, NULL, 'allowed', '{}')`, [ENTITY]).then(
          () => 'recorded',
          () => 'refused',
        ),
      ),
    )
    expect(calls.filter((c) => c === 'recorded')).toHaveLength(1)
    expect(await engine.db.query('SELECT total FROM payops.daily_totals')).toEqual([{total: '300'}])
  })
})
