/**
 * What an earlier payops kept in files moves into the control store (controls.sqlite) once, on
 * first use, and the old file is left renamed aside: reconciliation decisions (books.sqlite's
 * `decisions`, renamed `decisions_moved`), the book of names (names.json → names.json.moved) and
 * watch's alert state (watch.sqlite → watch.sqlite.moved). A move cut short and run again records
 * nothing twice.
 */
import {existsSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {keyIdOf} from '../../src/api/redact.js'
import {readRecentNames} from '../../src/config/names.js'
import {ruleId, type WatchRule} from '../../src/controls/rules.js'
import {openDatabase} from '../../src/db/index.js'
import {BOOKS_SCHEMA} from '../../src/books/store.js'
import {CONTROLS_SCHEMA} from '../../src/control/sqlite.js'
import {run, startEmulator, tempDir, type Emulator, type RunOptions} from '../support/index.js'

let emu: Emulator
const dir = tempDir('payops-test-moved-')
const cli = (args: string[], opts: RunOptions = {}) => run(args, {configDir: dir.path, ...opts})
let main: string
let sub: string
let other: string
let line: string

/** Runs SQL on a SQLite file of the config dir (what an earlier payops left there). */
function onFile<T>(file: string, schema: {purpose: string; migrations: string[]}, fn: (db: ReturnType<typeof openDatabase>) => T): T {
  const db = openDatabase(join(dir.path, file), schema)
  try {
    return fn(db)
  } finally {
    db.close()
  }
}
const WATCH_SCHEMA = {
  purpose: 'watch',
  migrations: [
    `CREATE TABLE alert (scope TEXT NOT NULL, key TEXT NOT NULL, rule TEXT NOT NULL, def TEXT NOT NULL, active INTEGER NOT NULL, fired_at TEXT NOT NULL,
       cleared_at TEXT, fired INTEGER NOT NULL, PRIMARY KEY (scope, key)) WITHOUT ROWID;`,
  ],
}
const resolutions = () => onFile('controls.sqlite', CONTROLS_SCHEMA, (db) => db.prepare('SELECT key, label, note, decided_at, moved FROM resolutions ORDER BY seq').all())

beforeAll(async () => {
  emu = await startEmulator()
  await cli(['profiles', 'add', 'ops', '--base-url', emu.baseUrl, '--key-stdin', '--use'], {input: emu.keys.test})
  main = (await cli(['treasury', 'accounts', 'list'])).json().find((a: {label: string}) => a.label === 'Main operating account').id
  sub = (await cli(['subaccounts', 'create', '--name', 'Moved float'])).json().id
  other = (await cli(['subaccounts', 'create', '--name', 'Moved out'])).json().id
  await emu.control('POST', '/_emulator/bank-feed', {entity: 'test', enabled: true, fee_rate: 0, seed: 1})
  line = (await emu.control('POST', '/_emulator/bank-lines', {account_id: main, amount_in_minor_units: 1700, direction: 'debit', description: 'MOVED FEE', transaction_date: '2026-03-12'})).data.id
})
afterAll(async () => {
  await emu?.stop()
  dir.cleanup()
})

describe('local records move into controls.sqlite once', () => {
  it('reconciliation decisions: books.sqlite\'s decisions move, the table is renamed aside, and a second or interrupted move records nothing twice', async () => {
    const key = `bank_only:${line}`
    const reconcile = () => cli(['reconcile', main, '--from', '2026-03-01', '--to', '2026-03-31', '-o', 'json'])
    expect((await reconcile()).json().items.find((i: {key: string}) => i.key === key)).toMatchObject({resolution: null, exception: true})
    // An earlier payops kept its decision in books.sqlite.
    onFile('books.sqlite', BOOKS_SCHEMA, (db) => {
      db.exec('ALTER TABLE decisions_moved RENAME TO decisions')
      db.prepare('INSERT INTO decisions (key, label, note, decided_at, profile) VALUES (?, ?, ?, ?, ?)').run(key, 'fee', 'kept in books.sqlite', '2026-03-13T10:00:00.000Z', 'ops')
    })
    const r = await reconcile()
    expect(r.json().items.find((i: {key: string}) => i.key === key)).toMatchObject({resolution: {label: 'fee', note: 'kept in books.sqlite', decided_at: '2026-03-13T10:00:00.000Z'}, exception: false})
    expect(resolutions()).toEqual([{key, label: 'fee', note: 'kept in books.sqlite', decided_at: '2026-03-13T10:00:00.000Z', moved: 1}])
    const tables = onFile('books.sqlite', BOOKS_SCHEMA, (db) => db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'decisions%'").all())
    expect(tables).toEqual([{name: 'decisions_moved'}])
    expect((await reconcile()).code).toBeLessThan(10)
    expect(resolutions()).toHaveLength(1)
    // A move cut short (the table not yet renamed): moved again, nothing recorded twice.
    onFile('books.sqlite', BOOKS_SCHEMA, (db) => db.exec('ALTER TABLE decisions_moved RENAME TO decisions'))
    await reconcile()
    expect(resolutions()).toHaveLength(1)
    // A decision made now goes to the store (it is in force over the moved one).
    const d = await cli(['reconcile', 'resolve', key, '--as', 'bank fee', '-o', 'json'])
    expect(d.code, d.stderr).toBe(0)
    expect(d.json()).toMatchObject({key, label: 'bank fee', replaced: 'fee'})
    expect(resolutions()).toHaveLength(2)
    expect((await reconcile()).json().items.find((i: {key: string}) => i.key === key).resolution).toMatchObject({label: 'bank fee'})
  })

  it('the names book: names.json moves once and is renamed names.json.moved; its names are shown and offered', async () => {
    writeFileSync(join(dir.path, 'names.json'), JSON.stringify({[other]: ['Legacy out', 'subaccount'], plain: 'Plain legacy'}), {mode: 0o600})
    const list = await cli(['treasury', 'accounts', 'list', '-o', 'table'])
    expect(list.code, list.stderr).toBe(0)
    expect(existsSync(join(dir.path, 'names.json'))).toBe(false)
    expect(JSON.parse(readFileSync(join(dir.path, 'names.json.moved'), 'utf8'))).toMatchObject({plain: 'Plain legacy'})
    expect(readRecentNames(dir.path)).toEqual(expect.arrayContaining([{id: 'plain', name: 'Plain legacy'}]))
    const names = () => onFile('controls.sqlite', CONTROLS_SCHEMA, (db) => db.prepare('SELECT id, name, kind FROM names WHERE id IN (?, ?)').all(other, 'plain'))
    expect(names()).toHaveLength(2)
    // Completion offers it from the store.
    const done = await cli(['__complete', 'subaccounts', 'get', ''])
    expect(done.stdout).toContain(other)
    expect(names()).toHaveLength(2)
  })

  it('watch alert state: watch.sqlite moves once (an alert active there does not fire again) and is renamed watch.sqlite.moved', async () => {
    expect((await cli(['profiles', 'set', 'ops', 'watch', 'min-balance', sub, '50.00', 'USD'])).code).toBe(0)
    const rule = (JSON.parse(readFileSync(join(dir.path, 'config.json'), 'utf8')).profiles.ops.watch as WatchRule[])[0]
    // The float is below its floor, and an earlier payops already fired that alert.
    expect((await cli(['moves', 'create', '--from', other, '--to', sub, '--amount', '40.00'])).code).toBe(0)
    onFile('watch.sqlite', WATCH_SCHEMA, (db) =>
      db.prepare('INSERT INTO alert (scope, key, rule, def, active, fired_at, cleared_at, fired) VALUES (?, ?, ?, ?, 1, ?, NULL, 1)').run(`${keyIdOf(emu.keys.test)}:ops`, `min-balance:${sub}`, ruleId(rule), JSON.stringify(rule), '2026-03-01T00:00:00.000Z'),
    )
    const w = await cli(['watch', '--once', '-o', 'json'])
    expect(w.code, w.stderr).toBe(0)
    expect(w.stdout).toBe('')
    expect(existsSync(join(dir.path, 'watch.sqlite'))).toBe(false)
    expect(existsSync(join(dir.path, 'watch.sqlite.moved'))).toBe(true)
    const alerts = () => onFile('controls.sqlite', CONTROLS_SCHEMA, (db) => db.prepare('SELECT key, active, fired FROM alerts').all())
    expect(alerts()).toEqual([{key: `min-balance:${sub}`, active: 1, fired: 1}])
    // Cleared, then crossed again: it fires once, from the store's state.
    expect((await cli(['moves', 'create', '--from', other, '--to', sub, '--amount', '30.00'])).code).toBe(0)
    expect((await cli(['watch', '--once', '-o', 'json'])).code).toBe(0)
    expect((await cli(['moves', 'create', '--from', sub, '--to', other, '--amount', '30.00'])).code).toBe(0)
    expect((await cli(['watch', '--once', '-o', 'json'])).code).toBe(9)
    expect(alerts()).toEqual([{key: `min-balance:${sub}`, active: 1, fired: 2}])
  })
})
