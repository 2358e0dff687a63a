/**
 * `audit list --team`: with a team store bound (a real PostgreSQL), the team's side of the trail —
 * every member's money decisions (intents, with the database role that recorded them) and their
 * outcomes — read from the store; without one, or with the store unreachable, a clear refusal.
 */
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {readAudit} from '../../src/audit/index.js'
import {run, startEmulator, tempDir, type Emulator, type RunOptions} from '../support/index.js'
import {freshDatabase, type TestDatabase} from '../support/postgres.js'

let emu: Emulator
let db: TestDatabase
const dir = tempDir('payops-audit-team-')
let ana: {url: string; user: string}
let a: string
let b: string

const anaRun = (args: string[], opts: RunOptions = {}) => run(args, {configDir: dir.path, ...opts, env: {PAYOPS_TEAM_DATABASE_URL: ana.url, ...opts.env}})

beforeAll(async () => {
  emu = await startEmulator()
  await run(['profiles', 'add', 'ops', '--base-url', emu.baseUrl, '--key-stdin', '--use'], {configDir: dir.path, input: emu.keys.test})
  a = (await run(['subaccounts', 'create', '--name', 'Trail A'], {configDir: dir.path})).json().id
  b = (await run(['subaccounts', 'create', '--name', 'Trail B'], {configDir: dir.path})).json().id
  db = await freshDatabase()
  const init = await run(['team', 'init', '--database-url', db.url(), '-o', 'json'], {configDir: dir.path})
  expect(init.code, init.stderr).toBe(0)
  ana = await db.login('ana', ['payops_member'])
})
afterAll(async () => {
  await db?.drop()
  await emu?.stop()
  dir.cleanup()
})

describe('audit list --team', () => {
  it('lists the team store\'s intents and outcomes, with the role that recorded them; the plain list stays this machine\'s trail', async () => {
    const made = await anaRun(['moves', 'create', '--from', a, '--to', b, '--amount', '1.25'])
    expect(made.code, made.stderr).toBe(0)
    const id = made.json().id as string
    const team = await anaRun(['audit', 'list', '--team', '-o', 'json'])
    expect(team.code, team.stderr).toBe(0)
    const rows = team.json() as Array<Record<string, unknown>>
    expect(rows).toEqual([
      expect.objectContaining({record: 'intent', actor: ana.user, kind: 'move.create', status: 'allowed', amount: 125, currency: 'USD', destination: b}),
      expect.objectContaining({record: 'outcome', actor: ana.user, kind: 'move.create', resource_id: id}),
    ])
    expect(rows[1].intent_seq).toBe(rows[0].seq)
    const table = await anaRun(['audit', 'list', '--team', '-o', 'table'])
    expect(table.stdout).toContain('1.25 USD')
    expect(table.stderr).toMatch(/The team store .*: its records are kept by the database/)
    // This machine's trail is what `audit list` shows without --team: the request's own records.
    const local = await anaRun(['audit', 'list', '-o', 'json'])
    expect((local.json() as Array<{resource_id?: string}>).some((r) => r.resource_id === id)).toBe(true)
    expect(readAudit(dir.path).filter((r) => r.path === '/api/subaccounts/move')).toHaveLength(2)
  })

  it('without a team store is exit 2; an unreachable one is exit 7 naming it', async () => {
    const none = await run(['audit', 'list', '--team'], {configDir: dir.path})
    expect(none.code).toBe(2)
    expect(none.stderr).toContain('No team store is bound')
    const dead = await run(['audit', 'list', '--team'], {configDir: dir.path, env: {PAYOPS_TEAM_DATABASE_URL: 'postgres://nobody@127.0.0.1:1/payops_nowhere'}})
    expect(dead.code, dead.stderr).toBe(7)
    expect(dead.stderr).toContain('127.0.0.1:1/payops_nowhere')
  })
})
