/**
 * Reconciliation decisions, the book of names and watch alert state in a team store (a real
 * PostgreSQL, two config dirs for two members): a decision one member records is in force in the
 * other's reconciliation; a name one learns is shown by the other; two members' watches fire an
 * alert once and clear it for both. Every record carries the database role that wrote it, and a
 * member's forged insert, update or delete is refused by the database. When the store cannot be
 * reached, a decision refuses (exit 7) and reading goes on, saying so on one line.
 */
import {existsSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {BOOKS_SCHEMA} from '../../src/books/store.js'
import {readRecentNames} from '../../src/config/names.js'
import {openDatabase} from '../../src/db/index.js'
import {run, startEmulator, tempDir, type Emulator, type RunOptions} from '../support/index.js'
import {freshDatabase, type TestDatabase} from '../support/postgres.js'

let emu: Emulator
let db: TestDatabase
const anaDir = tempDir('payops-test-ana-')
const bobDir = tempDir('payops-test-bob-')
let anaRole: string
let bobRole: string
let bobUrl: string
let main: string
let reserve: string

const ana = (args: string[], opts: RunOptions = {}) => run(args, {configDir: anaDir.path, ...opts})
const bob = (args: string[], opts: RunOptions = {}) => run(args, {configDir: bobDir.path, ...opts})
const away = {env: {PAYOPS_TEAM_DATABASE_URL: 'postgres://someone:not-a-real-secret@127.0.0.1:1/payops'}}
const WATCH_SCHEMA = {
  purpose: 'watch',
  migrations: [
    `CREATE TABLE alert (scope TEXT NOT NULL, key TEXT NOT NULL, rule TEXT NOT NULL, def TEXT NOT NULL, active INTEGER NOT NULL, fired_at TEXT NOT NULL,
       cleared_at TEXT, fired INTEGER NOT NULL, PRIMARY KEY (scope, key)) WITHOUT ROWID;`,
  ],
}
const month = ['--from', '2026-03-01', '--to', '2026-03-31', '-o', 'json']

beforeAll(async () => {
  emu = await startEmulator()
  db = await freshDatabase()
  await ana(['profiles', 'add', 'ops', '--base-url', emu.baseUrl, '--key-stdin', '--use'], {input: emu.keys.test})
  await bob(['profiles', 'add', 'ops', '--base-url', emu.baseUrl, '--key-stdin', '--use'], {input: emu.keys.test})
  const init = await ana(['team', 'init', '--database-url', db.url()])
  expect(init.code, init.stderr).toBe(0)
  const anaLogin = await db.login('ana', ['payops_member'])
  const bobLogin = await db.login('bob', ['payops_member'])
  ;[anaRole, bobRole, bobUrl] = [anaLogin.user, bobLogin.user, bobLogin.url]
  expect((await ana(['profiles', 'set', 'ops', 'team', anaLogin.url])).code).toBe(0)
  expect((await bob(['profiles', 'set', 'ops', 'team', bobLogin.url])).code).toBe(0)
  const accounts = (await ana(['treasury', 'accounts', 'list'])).json() as Array<{id: string; label: string; currency_code: string}>
  main = accounts.find((a) => a.label === 'Main operating account')!.id
  reserve = accounts.find((a) => a.currency_code === 'USD' && a.id !== main)!.id
  await emu.control('POST', '/_emulator/bank-feed', {entity: 'test', enabled: true, fee_rate: 0, seed: 1})
})
afterAll(async () => {
  await emu?.stop()
  await db?.drop()
  anaDir.cleanup()
  bobDir.cleanup()
})

describe('reconciliation decisions in a team store', () => {
  it('ana\'s decision is in force in bob\'s reconciliation, stamped with her role; bob\'s later one replaces it in force and both stay on record', async () => {
    const line = (await emu.control('POST', '/_emulator/bank-lines', {account_id: main, amount_in_minor_units: 2300, direction: 'debit', description: 'TEAM FEE', transaction_date: '2026-03-12'})).data.id
    const key = `bank_only:${line}`
    const item = (r: {json(): any}) => r.json().items.find((i: {key: string}) => i.key === key)
    expect(item(await bob(['reconcile', main, ...month]))).toMatchObject({exception: true, resolution: null})
    expect(item(await ana(['reconcile', main, ...month]))).toMatchObject({exception: true})
    const d = await ana(['reconcile', 'resolve', key, '--as', 'fee', '--note', 'bank ticket 12', '-o', 'json'])
    expect(d.code, d.stderr).toBe(0)
    expect(d.json()).toMatchObject({key, label: 'fee', decided_by: anaRole, replaced: null})
    const seen = await bob(['reconcile', main, ...month])
    expect(item(seen)).toMatchObject({exception: false, resolution: {label: 'fee', note: 'bank ticket 12'}})
    // Bob names it by its short form (his own reconciliation found it): his decision replaces ana's in force.
    const again = await bob(['reconcile', 'resolve', line.slice(0, 8), '--as', 'bank fee', '-o', 'json'])
    expect(again.code, again.stderr).toBe(0)
    expect(again.json()).toMatchObject({key, label: 'bank fee', decided_by: bobRole, replaced: 'fee'})
    expect(item(await ana(['reconcile', main, ...month])).resolution).toMatchObject({label: 'bank fee'})
    expect(await db.query('SELECT key, label, actor, moved FROM payops.resolutions ORDER BY seq')).toEqual([
      {key, label: 'fee', actor: anaRole, moved: false},
      {key, label: 'bank fee', actor: bobRole, moved: false},
    ])

    // The store cannot be reached: deciding refuses (exit 7, naming it, nothing recorded); reading says so on one line.
    const refused = await bob(['reconcile', 'resolve', key, '--as', 'other'], away)
    expect(refused.code, refused.stderr).toBe(7)
    expect(refused.stderr).toContain('The team store 127.0.0.1:1/payops cannot be reached')
    expect(await db.query('SELECT 1 FROM payops.resolutions')).toHaveLength(2)
    // (A command that shows no names, -o json, does not consult the book: only reconcile says so there.)
    for (const argv of [['reconcile', main, ...month], ['reconcile', main, '--from', '2026-03-01', '--to', '2026-03-31', '-o', 'table'], ['position', '-o', 'table'], ['transfers', 'list', '-o', 'table']]) {
      const r = await bob(argv, away)
      expect(r.code, `${argv[0]}: ${r.stderr}`).toBeLessThan(10)
      expect([0, 9]).toContain(r.code)
      const said = r.stderr.split('\n').filter((l) => l.includes('cannot be reached'))
      expect(said, argv[0]).toEqual([expect.stringContaining("The team store 127.0.0.1:1/payops cannot be reached: the team's decisions (reconciliation decisions, names) are not shown")])
      for (const out of [r.stdout, r.stderr]) expect(out).not.toContain('not-a-real-secret')
    }
    // Without the team's decisions, the exception shows open.
    expect(item(await bob(['reconcile', main, ...month], away))).toMatchObject({exception: true, resolution: null})
  })
})

describe('the book of names in a team store', () => {
  it('a label ana\'s payops learns is shown by bob\'s, from the store, and offered by his completion', async () => {
    const label = 'Team reserve Q7'
    const renamed = await ana(['treasury', 'accounts', 'update-label', reserve, '--label', label, '--yes'])
    expect(renamed.code, renamed.stderr).toBe(0)
    expect(await db.query('SELECT name, kind, actor FROM payops.names WHERE id = $1 ORDER BY seq DESC LIMIT 1', [reserve])).toEqual([{name: label, kind: 'treasury-account', actor: anaRole}])
    const t = await ana(['transfers', 'create', '--from', main, '--to', reserve, '--amount-minor', '100', '--currency', 'USD', '--rail', 'wire', '--yes'])
    expect(t.code, t.stderr).toBe(0)
    // Bob lists transfers: the destination's name comes from the team's book (his own never saw it).
    const list = await bob(['transfers', 'list', '--limit', '5', '-o', 'table'], {columns: 200})
    expect(list.code, list.stderr).toBe(0)
    expect(list.stdout).toContain(`${label} (${reserve.slice(0, 8)}…)`)
    expect(readRecentNames(bobDir.path)).toEqual(expect.arrayContaining([{id: reserve, name: label, kind: 'treasury-account'}]))
    // What the team already has is not recorded again.
    const before = (await db.query('SELECT count(*)::int AS n FROM payops.names'))[0].n
    await bob(['transfers', 'list', '--limit', '5', '-o', 'json'])
    await ana(['treasury', 'accounts', 'list', '-o', 'json'])
    expect((await db.query('SELECT count(*)::int AS n FROM payops.names'))[0].n).toBe(before)
  })
})

describe('watch alert state in a team store', () => {
  it('two members\' watches fire an alert once; one clears it for both; started at once, only one fires', async () => {
    const sub = (await ana(['subaccounts', 'create', '--name', 'Team float'])).json().id
    const other = (await ana(['subaccounts', 'create', '--name', 'Team out'])).json().id
    const move = async (from: string, to: string, amount: string) => expect((await ana(['moves', 'create', '--from', from, '--to', to, '--amount', amount])).code).toBe(0)
    await move(other, sub, '100.00')
    for (const member of [ana, bob]) expect((await member(['profiles', 'set', 'ops', 'watch', 'min-balance', sub, '50.00', 'USD'])).code).toBe(0)
    const once = (member: typeof ana) => member(['watch', '--once', '-o', 'json'])
    await move(sub, other, '60.00')
    const first = await once(ana)
    expect(first.code, first.stderr).toBe(9)
    expect(first.stdout).toContain(`min-balance:${sub}`)
    const second = await once(bob)
    expect(second.code, second.stderr).toBe(0)
    expect(second.stdout).toBe('')
    // Bob's watch sees it clear; then crossed again, ana's fires again (the clearing held for her).
    await move(other, sub, '30.00')
    expect((await once(bob)).code).toBe(0)
    await move(sub, other, '30.00')
    expect((await once(ana)).code).toBe(9)
    expect((await once(bob)).code).toBe(0)
    // Cleared, then crossed with both watching at once: one fires, the other does not.
    await move(other, sub, '30.00')
    expect((await once(ana)).code).toBe(0)
    await move(sub, other, '30.00')
    const both = await Promise.all([once(ana), once(bob)])
    expect(both.map((r) => r.code).sort()).toEqual([0, 9])
    const events = await db.query<{event: string; actor: string}>('SELECT event, actor FROM payops.alert_events WHERE key = $1 ORDER BY seq', [`min-balance:${sub}`])
    expect(events.map((e) => e.event)).toEqual(['fired', 'cleared', 'fired', 'cleared', 'fired'])
    expect(events.slice(0, 2).map((e) => e.actor)).toEqual([anaRole, bobRole])
    // A store that cannot be reached: watch refuses (exit 7), naming it.
    const refused = await bob(['watch', '--once'], away)
    expect(refused.code, refused.stderr).toBe(7)
    expect(refused.stderr).toContain('The team store 127.0.0.1:1/payops cannot be reached')
  })
})

describe('a member\'s local records move into the team store once', () => {
  it('books.sqlite decisions, names.json and watch.sqlite move on first use, stamped with the member\'s role, renamed aside, never recorded twice', async () => {
    const carolDir = tempDir('payops-test-carol-')
    try {
      const carol = (args: string[], opts: RunOptions = {}) => run(args, {configDir: carolDir.path, ...opts})
      await carol(['profiles', 'add', 'ops', '--base-url', emu.baseUrl, '--key-stdin', '--use'], {input: emu.keys.test})
      const login = await db.login('carol', ['payops_member'])
      expect((await carol(['profiles', 'set', 'ops', 'team', login.url])).code).toBe(0)
      const books = openDatabase(join(carolDir.path, 'books.sqlite'), BOOKS_SCHEMA)
      books.prepare('INSERT INTO decisions (key, label, note, decided_at, profile) VALUES (?, ?, ?, ?, ?)').run('bank_only:carol-line', 'fee', 'on carol\'s machine', '2026-03-02T09:00:00.000Z', 'ops')
      books.close()
      writeFileSync(join(carolDir.path, 'names.json'), JSON.stringify({'carol-sub': ['Carol float', 'subaccount']}), {mode: 0o600})
      for (let i = 0; i < 2; i++) {
        const r = await carol(['reconcile', main, ...month])
        expect([0, 9], r.stderr).toContain(r.code)
        expect((await carol(['treasury', 'accounts', 'list', '-o', 'table'])).code).toBe(0)
      }
      expect(await db.query('SELECT key, label, note, actor, moved FROM payops.resolutions WHERE key = $1', ['bank_only:carol-line'])).toEqual([
        {key: 'bank_only:carol-line', label: 'fee', note: "on carol's machine", actor: login.user, moved: true},
      ])
      expect(await db.query('SELECT name, actor FROM payops.names WHERE id = $1', ['carol-sub'])).toEqual([{name: 'Carol float', actor: login.user}])
      expect(existsSync(join(carolDir.path, 'names.json'))).toBe(false)
      expect(existsSync(join(carolDir.path, 'names.json.moved'))).toBe(true)
      // watch.sqlite: an alert active on carol's machine moves into the team's state, so no member's watch fires it again.
      const empty = (await ana(['subaccounts', 'create', '--name', 'Carol empty'])).json().id
      for (const member of [carol, bob]) expect((await member(['profiles', 'set', 'ops', 'watch', 'min-balance', empty, '50.00', 'USD'])).code).toBe(0)
      const rule = {rule: 'min-balance', subaccount: empty, amount_in_minor_units: 5000, currency_code: 'USD'}
      const watchDb = openDatabase(join(carolDir.path, 'watch.sqlite'), WATCH_SCHEMA)
      watchDb.prepare('INSERT INTO alert (scope, key, rule, def, active, fired_at, cleared_at, fired) VALUES (?, ?, ?, ?, 1, ?, NULL, 1)').run('k:ops', `min-balance:${empty}`, `min-balance:${empty}`, JSON.stringify(rule), '2026-03-01T00:00:00.000Z')
      watchDb.close()
      for (const member of [carol, bob]) {
        const w = await member(['watch', '--once', '-o', 'json'])
        expect(w.code, w.stderr).toBe(0)
        expect(w.stdout).toBe('')
      }
      expect(existsSync(join(carolDir.path, 'watch.sqlite.moved'))).toBe(true)
      expect(await db.query('SELECT event, actor FROM payops.alert_events WHERE key = $1', [`min-balance:${empty}`])).toEqual([{event: 'fired', actor: login.user}])
      // Ana's payops knows carol's names from her next command.
      await ana(['treasury', 'accounts', 'list', '-o', 'table'])
      expect(readRecentNames(anaDir.path)).toEqual(expect.arrayContaining([{id: 'carol-sub', name: 'Carol float', kind: 'subaccount'}]))
    } finally {
      carolDir.cleanup()
    }
  })
})

describe('what a member cannot do', () => {
  it('a forged insert, update or delete on the records is refused by the database; the functions stamp the caller, never another', async () => {
    const forged = [
      `INSERT INTO payops.resolutions (entity, key, label, decided_at, actor) VALUES ('x', 'bank_only:forged', 'fee', now(), '${anaRole}')`,
      "UPDATE payops.resolutions SET label = 'forged'",
      'DELETE FROM payops.resolutions',
      `INSERT INTO payops.names (entity, id, name, actor) VALUES ('x', 'forged', 'Forged', '${anaRole}')`,
      "UPDATE payops.names SET name = 'Forged'",
      'DELETE FROM payops.names',
      `INSERT INTO payops.alert_events (entity, def, key, rule, event, actor) VALUES ('x', '{}', 'k', 'r', 'cleared', '${anaRole}')`,
      "UPDATE payops.alert_events SET event = 'cleared'",
      'DELETE FROM payops.alert_events',
    ]
    const before = await db.query('SELECT (SELECT count(*) FROM payops.resolutions) AS r, (SELECT count(*) FROM payops.names) AS n, (SELECT count(*) FROM payops.alert_events) AS a')
    for (const sql of forged) await expect(db.queryAs(bobUrl, sql), sql).rejects.toThrow(/permission denied/)
    expect(await db.query('SELECT (SELECT count(*) FROM payops.resolutions) AS r, (SELECT count(*) FROM payops.names) AS n, (SELECT count(*) FROM payops.alert_events) AS a')).toEqual(before)
    // Through the functions, the record is bob's whatever he passes.
    const [{entity}] = await db.query<{entity: string}>('SELECT entity FROM payops.binding')
    const [r] = await db.queryAs<{actor: string}>(bobUrl, "SELECT actor FROM payops.resolve_item($1, 'bank_only:x', 'fee', NULL, now(), 'ops', false)", [entity])
    expect(r.actor).toBe(bobRole)
    // Another entity is refused.
    await expect(db.queryAs(bobUrl, "SELECT payops.remember_names('not-the-entity', '[]'::jsonb)")).rejects.toThrow(/another entity/)
  })
})
