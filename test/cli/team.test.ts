/**
 * The team store against a real PostgreSQL (one server for the run, a database per test): `team
 * init` (idempotent, two at once), the roles and what the database itself refuses a member, the
 * entity binding, `team status` and `team policy`, passwords from the URL, PGPASSWORD and
 * ~/.pgpass never printed, and an unreachable store (exit 7). Two config dirs stand for two machines.
 */
import {chmodSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'
import {PG_MIGRATIONS} from '../../src/control/migrations.js'
import {runCli, tempDir, type RunResult} from '../support/index.js'
import {freshDatabase, type TestDatabase} from '../support/postgres.js'

/** The schema's versions, 1 to the latest. */
const VERSIONS = PG_MIGRATIONS.map((_, i) => i + 1)

const KEY_A = 'test_teamEntityA0000000001'
const KEY_B = 'test_teamEntityB0000000002'

let db: TestDatabase
beforeEach(async () => {
  db = await freshDatabase()
})
afterEach(async () => {
  await db.drop()
})

/** A machine: its own config dir. */
function machine() {
  const dir = tempDir('payops-test-machine-')
  return {
    dir: dir.path,
    run: (args: string[], env: Record<string, string | undefined> = {}) => runCli(args, {configDir: dir.path, env: {PAYOPS_API_KEY: KEY_A, ...env}}),
  }
}

const noSecret = (r: RunResult, ...secrets: string[]) => {
  for (const s of secrets) {
    expect(r.stdout).not.toContain(s)
    expect(r.stderr).not.toContain(s)
  }
}

async function init(url = db.url(), key = KEY_A): Promise<RunResult> {
  const r = await machine().run(['team', 'init', '--database-url', url, '-o', 'json'], {PAYOPS_API_KEY: key})
  return r
}

describe('team init', () => {
  it('creates the schema, the three group roles and the binding; a second run applies nothing', async () => {
    const first = await init()
    expect(first.code, first.stderr).toBe(0)
    expect(first.json()).toMatchObject({schema_version: VERSIONS.length, applied: VERSIONS, roles: ['payops_member', 'payops_worker', 'payops_admin'], bound: true})
    const roles = await db.query<{rolname: string; rolcanlogin: boolean}>(`SELECT rolname, rolcanlogin FROM pg_roles WHERE rolname LIKE 'payops\\_%' ORDER BY rolname`)
    expect(roles).toEqual([
      {rolname: 'payops_admin', rolcanlogin: false},
      {rolname: 'payops_member', rolcanlogin: false},
      {rolname: 'payops_worker', rolcanlogin: false},
    ])
    const second = await init()
    expect(second.code, second.stderr).toBe(0)
    expect(second.json()).toMatchObject({applied: [], bound: false})
    // The fingerprint is stored, never the key.
    const [bound] = await db.query<{entity: string}>('SELECT entity FROM payops.binding')
    expect(bound.entity).toMatch(/^[0-9a-f]{64}$/)
    expect(JSON.stringify(await db.query('SELECT * FROM payops.binding'))).not.toContain(KEY_A)
  })

  it('two inits started at once apply each version once and both succeed', async () => {
    const [a, b] = await Promise.all([init(), init()])
    expect([a.code, b.code], a.stderr + b.stderr).toEqual([0, 0])
    expect([...a.json().applied, ...b.json().applied].sort((x, y) => x - y)).toEqual(VERSIONS)
    expect(await db.query('SELECT version FROM payops.schema_versions ORDER BY version')).toEqual(VERSIONS.map((version) => ({version})))
  })

  it('refuses a profile of another entity: init and status under another key', async () => {
    expect((await init()).code).toBe(0)
    const again = await init(db.url(), KEY_B)
    expect(again.code).toBe(2)
    expect(again.stderr).toMatch(/serves another entity/)
    const status = await machine().run(['team', 'status'], {PAYOPS_API_KEY: KEY_B, PAYOPS_TEAM_DATABASE_URL: db.url()})
    expect(status.code).toBe(2)
    expect(status.stderr).toMatch(/serves another entity/)
  })
})

describe('roles: what the database itself refuses a member', () => {
  it('a member cannot insert, update or delete a record, nor set a policy; its records carry its own name', async () => {
    expect((await init()).code).toBe(0)
    const ana = await db.login('ana', ['payops_member'])
    const bob = await db.login('bob', ['payops_member'])
    const [{entity}] = await db.query<{entity: string}>('SELECT entity FROM payops.binding')
    // Through the definer function the record is stamped with the role that logged in.
    const [rec] = await db.queryAs<{actor: string}>(ana.url, `SELECT * FROM payops.append_intent($1, 'move', 'USD', 100, NULL, 'allowed', '{}')`, [entity])
    expect(rec.actor).toBe(ana.user)
    const forged = [
      `INSERT INTO payops.intents (day, actor, entity, kind, currency, amount, status) VALUES (current_date, '${bob.user}', '${entity}', 'move', 'USD', 1, 'allowed')`,
      `UPDATE payops.intents SET actor = '${bob.user}'`,
      'DELETE FROM payops.intents',
      `UPDATE payops.daily_totals SET total = 0`,
      `INSERT INTO payops.policies (actor, key, value) VALUES ('${bob.user}', 'daily-max', '{"USD": 1}')`,
      `SELECT payops.set_policy('daily-max', '{"USD": 999999999}')`,
      // The helpers behind the definer functions are the owner's alone.
      `SELECT payops.check_limits('${entity}', 'USD', 1, NULL)`,
    ]
    for (const sql of forged) await expect(db.queryAs(ana.url, sql), sql).rejects.toMatchObject({code: '42501'})
    expect(await db.query('SELECT actor, amount FROM payops.intents')).toEqual([{actor: ana.user, amount: '100'}])
    expect(await db.query('SELECT count(*)::int AS n FROM payops.policies')).toEqual([{n: 0}])
  })

  it('a maker cannot decide its own approval request; another member can, once', async () => {
    expect((await init()).code).toBe(0)
    const ana = await db.login('ana', ['payops_member'])
    const bob = await db.login('bob', ['payops_member'])
    const [{entity}] = await db.query<{entity: string}>('SELECT entity FROM payops.binding')
    const [req] = await db.queryAs<{id: string; maker: string}>(ana.url, `SELECT * FROM payops.request_approval($1, 'move', 'USD', 5000, NULL, '{}')`, [entity])
    expect(req.maker).toBe(ana.user)
    await expect(db.queryAs(ana.url, `SELECT payops.decide_approval($1, 'approved', NULL)`, [req.id])).rejects.toMatchObject({code: '42501'})
    const [d] = await db.queryAs<{checker: string}>(bob.url, `SELECT * FROM payops.decide_approval($1, 'approved', NULL)`, [req.id])
    expect(d.checker).toBe(bob.user)
    await expect(db.queryAs(bob.url, `SELECT payops.decide_approval($1, 'rejected', NULL)`, [req.id])).rejects.toThrow(/already decided/)
  })

  it('the store refuses an intent over the team daily-max, whatever the client checked', async () => {
    expect((await init()).code).toBe(0)
    const ana = await db.login('ana', ['payops_member'])
    const admin = await db.login('admin', ['payops_admin'])
    const [{entity}] = await db.query<{entity: string}>('SELECT entity FROM payops.binding')
    await db.queryAs(admin.url, `SELECT payops.set_policy('daily-max', '{"USD": 1000}')`)
    const append = (amount: number) => db.queryAs(ana.url, `SELECT * FROM payops.append_intent($1, 'move', 'USD', $2, NULL, 'allowed', '{}')`, [entity, amount])
    await append(600)
    await expect(append(500)).rejects.toThrow(/daily-max/)
    await append(400)
    expect(await db.query(`SELECT total FROM payops.daily_totals`)).toEqual([{total: '1000'}])
  })
})

describe('team status and team policy, two machines', () => {
  it('an admin sets and removes a policy on one machine, recorded with its role; a member sees it on another and may not change it', async () => {
    expect((await init()).code).toBe(0)
    const admin = await db.login('admin', ['payops_admin'])
    const ana = await db.login('ana', ['payops_member'])
    const one = machine()
    const two = machine()
    const set = await one.run(['team', 'policy', 'set', 'daily-max', '5000.00', 'USD', '-o', 'json'], {PAYOPS_TEAM_DATABASE_URL: admin.url})
    expect(set.code, set.stderr).toBe(0)
    expect(set.stderr).toContain(`set by ${admin.user}`)
    noSecret(set, admin.password)

    const show = await two.run(['team', 'policy', 'show', '-o', 'json'], {PAYOPS_TEAM_DATABASE_URL: ana.url})
    expect(show.code, show.stderr).toBe(0)
    expect(show.json()).toEqual([expect.objectContaining({key: 'daily-max', value: {USD: 500000}, set_by: admin.user})])

    const refused = await two.run(['team', 'policy', 'set', 'daily-max', '9000000.00', 'USD'], {PAYOPS_TEAM_DATABASE_URL: ana.url})
    expect(refused.code).toBe(3)
    expect(refused.stderr).toMatch(/refused: permission denied for function set_policy: team policies are set by a role granted payops_admin\. Nothing was changed/)
    expect(await db.query<{n: number}>('SELECT count(*)::int AS n FROM payops.policies')).toEqual([{n: 1}])

    const notHers = await two.run(['team', 'policy', 'unset', 'daily-max'], {PAYOPS_TEAM_DATABASE_URL: ana.url})
    expect(notHers.code).toBe(3)
    const unset = await one.run(['team', 'policy', 'unset', 'daily-max', 'USD', '-o', 'json'], {PAYOPS_TEAM_DATABASE_URL: admin.url})
    expect(unset.code, unset.stderr).toBe(0)
    expect(unset.json()).toEqual([])
    const nothing = await one.run(['team', 'policy', 'unset', 'daily-max'], {PAYOPS_TEAM_DATABASE_URL: admin.url})
    expect(nothing.code).toBe(2)
    expect(nothing.stderr).toContain('The team store has no daily-max to remove.')
    expect(await db.query('SELECT actor, value FROM payops.policies ORDER BY seq')).toEqual([
      {actor: admin.user, value: {USD: 500000}},
      {actor: admin.user, value: null},
    ])

    const status = await two.run(['team', 'status', '-o', 'json'], {PAYOPS_TEAM_DATABASE_URL: ana.url})
    expect(status.code, status.stderr).toBe(0)
    expect(status.json()).toMatchObject({engine: 'postgres', store: `${db.host}:${db.port}/${db.name}`, actor: ana.user, roles: ['payops_member'], schema_version: VERSIONS.length})
    noSecret(status, ana.password)
  })

  it('a profile bound with `profiles set NAME team URL` is used, its password never shown', async () => {
    expect((await init()).code).toBe(0)
    const ana = await db.login('ana', ['payops_member'])
    const m = machine()
    expect((await m.run(['profiles', 'add', 'prod', '--api-key', KEY_A, '--base-url', 'http://127.0.0.1:9'])).code).toBe(0)
    const bind = await m.run(['profiles', 'set', 'prod', 'team', ana.url])
    expect(bind.code, bind.stderr).toBe(0)
    expect(bind.stderr).toContain(`${db.host}:${db.port}/${db.name}`)
    noSecret(bind, ana.password)
    const shown = await m.run(['profiles', 'show', 'prod', '-o', 'json'])
    expect(shown.json().team).toBe(`postgres://${ana.user}:***@${db.host}:${db.port}/${db.name}`)
    const status = await m.run(['team', 'status', '--profile', 'prod', '--debug', '-o', 'json'], {PAYOPS_API_KEY: undefined})
    expect(status.code, status.stderr).toBe(0)
    expect(status.json()).toMatchObject({actor: ana.user, bound_by: 'profile "prod"'})
    noSecret(status, ana.password)
    expect(JSON.parse(readFileSync(join(m.dir, 'config.json'), 'utf8')).profiles.prod.team_database_url).toBe(ana.url)
    // What this run would use, and where it comes from: the environment over the profile.
    const inEffect = await m.run(['profiles', 'show', '-o', 'json'], {PAYOPS_PROFILE: 'prod', PAYOPS_TEAM_DATABASE_URL: db.url()})
    expect(inEffect.json()).toMatchObject({team: `postgres://postgres:***@${db.host}:${db.port}/${db.name}`, team_source: 'PAYOPS_TEAM_DATABASE_URL'})
    noSecret(inEffect, ana.password)
    const bad = await m.run(['profiles', 'set', 'prod', 'team', 'mysql://root:hunter2hunter2@db/x'])
    expect(bad.code).toBe(2)
    expect(bad.stderr).toMatch(/the team store is PostgreSQL/)
    noSecret(bad, 'hunter2hunter2')
    const unset = await m.run(['profiles', 'unset', 'prod', 'team'])
    expect(unset.code, unset.stderr).toBe(0)
    expect(JSON.parse(readFileSync(join(m.dir, 'config.json'), 'utf8')).profiles.prod.team_database_url).toBeUndefined()
  })

  it('the password comes from PGPASSWORD, or from ~/.pgpass (mode 0600), when the URL has none', async () => {
    expect((await init()).code).toBe(0)
    const ana = await db.login('ana', ['payops_member'])
    const bare = db.url(ana.user, '')
    const m = machine()
    const viaEnv = await m.run(['team', 'status', '-o', 'json'], {PAYOPS_TEAM_DATABASE_URL: bare, PGPASSWORD: ana.password})
    expect(viaEnv.code, viaEnv.stderr).toBe(0)
    expect(viaEnv.json().actor).toBe(ana.user)
    const home = tempDir('payops-test-home-')
    writeFileSync(join(home.path, '.pgpass'), `# a comment\n${db.host}:${db.port}:${db.name}:${ana.user}:${ana.password}\n`)
    chmodSync(join(home.path, '.pgpass'), 0o600)
    const viaFile = await m.run(['team', 'status', '-o', 'json'], {PAYOPS_TEAM_DATABASE_URL: bare, PGPASSWORD: undefined, HOME: home.path})
    expect(viaFile.code, viaFile.stderr).toBe(0)
    expect(viaFile.json().actor).toBe(ana.user)
    const none = await m.run(['team', 'status'], {PAYOPS_TEAM_DATABASE_URL: bare, PGPASSWORD: undefined, HOME: tempDir('payops-test-home-').path})
    expect(none.code).toBe(3)
    const wrong = await m.run(['team', 'status', '--debug'], {PAYOPS_TEAM_DATABASE_URL: db.url(ana.user, 'not-the-password-1234')})
    expect(wrong.code).toBe(3)
    noSecret(wrong, 'not-the-password-1234', ana.password)
  })

  it('an unreachable store: team status says so, exit 7, naming HOST:PORT/DATABASE without the password', async () => {
    const m = machine()
    const dead = `postgres://ana:s3cret-pass-word-42@127.0.0.1:1/payops_nowhere`
    const r = await m.run(['team', 'status', '--debug'], {PAYOPS_TEAM_DATABASE_URL: dead})
    expect(r.code).toBe(7)
    expect(r.stderr).toContain('127.0.0.1:1/payops_nowhere')
    expect(r.stderr).toMatch(/cannot be reached/)
    noSecret(r, 's3cret-pass-word-42')
  })
})
