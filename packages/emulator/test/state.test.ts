import {randomBytes} from 'node:crypto'
import {copyFileSync, existsSync, readFileSync, readdirSync, statSync, symlinkSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {openDatabase, type Database} from '../src/persist/db.js'
import {startEmulator, type RunningEmulator} from '../src/index.js'
import {KeyedMutex} from '../src/server/locks.js'
import {StateFile, loadState} from '../src/persist/index.js'
import {createSeededStore} from '../src/store/seed.js'
import {EmulatorError, UsageError} from '../src/lib/errors.js'
import {tempDir} from './support.js'
import {call, emulatorFixture} from './helpers.js'

const emu = emulatorFixture('payops-emulator-')
const start = (statePath?: string) => emu.start(statePath)
const tmp = tempDir('payops-emu-state-')
let n = 0
/** A fresh path in this file's temporary folder. */
const newPath = (name = 'state.db') => join(tmp.path, `${++n}-${name}`)

/** Every record of the store as the JSON state format shows it (a deep, order-aware comparison of two stores). */
const snapshot = (em: RunningEmulator) => JSON.parse(JSON.stringify(em.store))

/** Expects `p` to reject with a one-line usage error (exit 2) naming `path`, matching `pattern`. */
async function refused(p: Promise<unknown>, path: string, pattern: RegExp): Promise<string> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  )
  expect(err).toBeInstanceOf(UsageError)
  const message = (err as UsageError).message
  expect((err as UsageError).exitCode).toBe(2)
  expect(message).toContain(path)
  expect(message).not.toContain('\n')
  expect(message).toMatch(pattern)
  return message
}

/** The files of a folder (names), for "nothing else was created". */
const files = (dir: string) => readdirSync(dir).sort()

describe('state file', () => {
  it('keeps keys and data across a restart: subaccounts, moves, activity, idempotency keys, sequence', async () => {
    const path = newPath()
    const em1 = await start(path)
    const keys1 = em1.keys

    const a = (await call(em1, 'POST', '/api/subaccounts', {body: {name: 'Persisted A'}})).body.data
    const b = (await call(em1, 'POST', '/api/subaccounts', {body: {name: 'Persisted B'}})).body.data
    const settled = await call(em1, 'POST', '/api/subaccounts/move', {body: {from_subaccount_id: a.id, to_subaccount_id: b.id, amount_in_minor_units: 1500}})
    expect(settled.status).toBe(201)
    const pending = await call(em1, 'POST', '/api/subaccounts/move', {
      body: {from_subaccount_id: b.id, to_subaccount_id: a.id, amount_in_minor_units: 200, auto_approve: false},
      idem: 'persisted-key',
    })
    expect(pending.status).toBe(201)

    const aBefore = (await call(em1, 'GET', `/api/subaccounts/${a.id}`)).body.data
    const activityBefore = (await call(em1, 'GET', `/api/subaccounts/${a.id}/activity`)).body
    await em1.close()

    const em2 = await start(path)
    const keys2 = em2.keys
    expect(keys2.test === keys1.test && keys2.test_other === keys1.test_other && keys2.live === keys1.live).toBe(true)
    expect((await call(em2, 'GET', `/api/subaccounts/${a.id}`)).body.data).toEqual(aBefore)
    expect((await call(em2, 'GET', `/api/subaccounts/${a.id}/activity`)).body).toEqual(activityBefore)
    expect((await call(em2, 'GET', `/api/subaccounts/${a.id}`, {key: keys2.test_other})).status).toBe(404)

    // The idempotency key still names the pending move, which can still be approved.
    const replay = await call(em2, 'POST', '/api/subaccounts/move', {body: {from_subaccount_id: b.id, to_subaccount_id: a.id, amount_in_minor_units: 200, auto_approve: false}, idem: 'persisted-key'})
    expect(replay.status, JSON.stringify(replay.body)).toBe(200)
    // ...and still refuses another move under it.
    const other = await call(em2, 'POST', '/api/subaccounts/move', {body: {from_subaccount_id: b.id, to_subaccount_id: a.id, amount_in_minor_units: 201, auto_approve: false}, idem: 'persisted-key'})
    expect([other.status, other.body.error_code]).toEqual([409, 'IDEMPOTENCY_KEY_CONFLICT'])
    expect(replay.status).toBe(200)
    expect(replay.body.data).toMatchObject({id: pending.body.data.id, status: 'CREATED'})
    expect((await call(em2, 'POST', `/api/subaccounts/move/${pending.body.data.id}/approve`, {body: {}})).status).toBe(201)

    // Sequence numbers resume past the loaded data: the newest line comes first.
    const activity = (await call(em2, 'GET', `/api/subaccounts/${a.id}/activity`)).body
    expect(activity.total_count).toBe(2)
    expect(activity.data.map((x: any) => [x.direction, x.amount_in_cents])).toEqual([['credit', 200], ['debit', 1500]])
    const c = (await call(em2, 'POST', '/api/subaccounts', {body: {name: 'After reload'}})).body.data
    expect(c.account_number).not.toBe(a.account_number)
    await em2.close()

    const em3 = await start(path)
    expect((await call(em3, 'GET', `/api/subaccounts/${c.id}`)).body.data.name).toBe('After reload')
    expect(em3.store.entityByRole('test')!.moves.get(pending.body.data.id)!.status).toBe('settled')
    await em3.close()
  })

  it('gives back the same store after a restart, in every area (and after a reset)', async () => {
    const path = newPath()
    const em = await start(path)
    const store = em.store
    const test = store.entityByRole('test')!
    const [s1, s2] = test.subaccounts.items
    // Moves: settled, canceled, failed, pending with a key; kept lines; bank lines with a sandbox reference.
    for (let i = 0; i < 5; i++) {
      expect((await call(em, 'POST', '/api/subaccounts/move', {body: {from_subaccount_id: s1.id, to_subaccount_id: s2.id, amount_in_minor_units: 10 + i, client_metadata: {i: String(i)}}, idem: `k-${i}`})).status).toBe(201)
    }
    const pending = (await call(em, 'POST', '/api/subaccounts/move', {body: {from_subaccount_id: s2.id, to_subaccount_id: s1.id, amount_in_minor_units: 3, auto_approve: false}})).body.data
    expect((await call(em, 'DELETE', `/api/subaccounts/move/${pending.id}`)).status).toBe(200)
    const toFail = (await call(em, 'POST', '/api/subaccounts/move', {body: {from_subaccount_id: s2.id, to_subaccount_id: s1.id, amount_in_minor_units: 4, auto_approve: false}})).body.data
    expect((await call(em, 'POST', `/_emulator/moves/${toFail.id}/fail`, {key: null, body: {}})).status).toBe(200)
    expect((await call(em, 'POST', '/_emulator/bulk/activity', {key: null, body: {subaccount_id: s2.id, count: 25}})).status).toBe(200)
    const main = test.mainAccount()!
    const credit = await call(em, 'POST', `/api/treasury/accounts/${main.id}/simulate-inbound-credit`, {body: {rail: 'wire', amount_in_minor_units: 777, subaccount_id: s1.id}, idem: 'sandbox-ref-1'})
    expect(credit.status).toBe(201)
    expect((await call(em, 'POST', `/api/treasury/accounts/${main.id}/update-label`, {body: {label: 'Relabelled'}})).status).toBe(200)
    // Account transfers, async settings, payins advanced, webhooks changed and deleted, keys and the signing secret.
    const gbp = test.treasuryAccounts.items.find((x) => x.currency_code === 'GBP')!
    const t = await call(em, 'POST', '/api/treasury/account-transfers', {body: {from_account_id: main.id, to_account_id: gbp.id, amount_in_minor_units: 5000, currency_code: 'USD', rail: 'wire'}, idem: 'transfer-1'})
    expect(t.status).toBe(201)
    expect((await call(em, 'POST', `/_emulator/transfers/${t.body.data.id}/advance`, {key: null, body: {status: 'settled'}})).status).toBe(200)
    expect((await call(em, 'POST', '/_emulator/async-transfers', {key: null, body: {entity: 'test', enabled: true, delay_ms: 60_000}})).status).toBe(200)
    const payin = test.payins.items.find((p) => p.status === 'created')!
    expect((await call(em, 'POST', `/_emulator/payins/${payin.id}/advance`, {key: null, body: {status: 'settled'}})).status).toBe(200)
    const hook1 = store.webhooks.create(test, {url: 'https://example.com/a', description: 'a', event_types: ['payin.settled'], secret: 'whsec_a'})
    const hook2 = store.webhooks.create(test, {url: 'https://example.com/b', description: null, event_types: ['payin.failed'], secret: 'whsec_b'})
    store.webhooks.update(test, hook1, {is_active: false, event_types: ['payin.failed', 'payin.settled']})
    store.webhooks.delete(test, hook2.id)
    expect((await call(em, 'POST', '/_emulator/keys', {key: null, body: {entity: 'live', read_only: true}})).status).toBe(201)
    expect((await call(em, 'POST', '/api/session-tokens', {body: {payee_id: test.payees.items[0].id}})).status).toBe(200)
    const before = snapshot(em)
    expect(before.session_signing_secret).toMatch(/^[0-9a-f]{64}$/)
    await em.close()

    const again = await start(path)
    expect(snapshot(again)).toEqual(before)
    expect(again.store.entityByRole('test')!.webhooks.get(hook2.id)).toBeUndefined()
    // The sandbox reference is still used: a repeat is refused as a duplicate, naming the line it made.
    const repeatCredit = await call(again, 'POST', `/api/treasury/accounts/${main.id}/simulate-inbound-credit`, {body: {rail: 'wire', amount_in_minor_units: 777, subaccount_id: s1.id}, idem: 'sandbox-ref-1'})
    expect(repeatCredit.status).toBe(409)
    expect(repeatCredit.body.error_code).toBe('DUPLICATE_SANDBOX_REFERENCE')
    expect(repeatCredit.body.message).toContain(credit.body.data.bank_transaction_id)

    // A reset is kept too: the new seed, the same keys and entity ids.
    const reset = await call(again, 'POST', '/_emulator/reset', {key: null, body: {}})
    expect(reset.status).toBe(200)
    const afterReset = snapshot(again)
    await again.close()
    const third = await start(path)
    expect(snapshot(third)).toEqual(afterReset)
    expect(third.keys).toEqual(again.keys)
    expect(third.store.entityByRole('test')!.moves.size).toBe(0)
    await third.close()
  })

  it('has every answered write in the file before the answer: a copy taken right after, as a crash leaves it, holds them all', async () => {
    const path = newPath()
    const em = await start(path)
    const [a, b] = em.store.entityByRole('test')!.subaccounts.items
    const N = 40
    for (let i = 0; i < N; i++) {
      expect((await call(em, 'POST', '/api/subaccounts/move', {body: {from_subaccount_id: a.id, to_subaccount_id: b.id, amount_in_minor_units: 100}})).status).toBe(201)
    }
    // A change made outside a request (an async transfer's timer) is committed on the next turn.
    expect((await call(em, 'POST', '/_emulator/async-transfers', {key: null, body: {entity: 'test', enabled: true, delay_ms: 1}})).status).toBe(200)
    const entity = em.store.entityByRole('test')!
    const main = entity.mainAccount()!
    const gbp = entity.treasuryAccounts.items.find((x) => x.currency_code === 'GBP')!
    const t = await call(em, 'POST', '/api/treasury/account-transfers', {body: {from_account_id: main.id, to_account_id: gbp.id, amount_in_minor_units: 5000, currency_code: 'USD', rail: 'wire'}})
    expect(t.status).toBe(202)
    const deadline = Date.now() + 5000
    while (entity.accountTransfers.get(t.body.data.id)!.status !== 'settled' && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5))
    await new Promise((r) => setImmediate(r))

    // The database and its write-ahead log as they are on disk now (the emulator keeps running).
    const copy = newPath('crash-copy.db')
    copyFileSync(path, copy)
    if (existsSync(`${path}-wal`)) copyFileSync(`${path}-wal`, `${copy}-wal`)
    const loaded = (await loadState(copy))!
    const test = loaded.entityByRole('test')!
    expect(test.moves.size).toBe(N)
    expect(test.subaccounts.get(b.id)!.total_incoming_in_minor_units).toBe(100 * N)
    expect(test.activity.get(b.id)!.length).toBe(N)
    expect(test.accountTransfers.get(t.body.data.id)!.status).toBe('settled')
    expect(test.bankTransactions.get(gbp.id)!.items.at(-1)!.transfer_id).toBe(t.body.data.id)
    await em.close()
  })

  it('saves 200,000 moves of a bulk request and loads them back', async () => {
    const path = newPath()
    const em1 = await start(path)
    const [a, b] = em1.store.entityByRole('test')!.subaccounts.items
    const COUNT = 200_000
    const bulk = await call(em1, 'POST', '/_emulator/bulk/moves', {key: null, body: {from_subaccount_id: a.id, to_subaccount_id: b.id, count: COUNT, amount_in_minor_units: 3, idempotency_key_prefix: 'bulk-'}})
    expect(bulk.body).toEqual({created: COUNT})
    const more = await call(em1, 'POST', '/api/subaccounts/move', {body: {from_subaccount_id: b.id, to_subaccount_id: a.id, amount_in_minor_units: 5}})
    expect(more.status).toBe(201)
    await em1.close()

    const em2 = await start(path)
    const test = em2.store.entityByRole('test')!
    expect(test.moves.size).toBe(COUNT + 1)
    expect(test.moveIdempotencyKeys.size).toBe(COUNT)
    const sub = (await call(em2, 'GET', `/api/subaccounts/${b.id}`)).body.data
    expect(sub.total_incoming_in_minor_units).toBe(3 * COUNT)
    expect(sub.total_outgoing_in_minor_units).toBe(5)
    expect((await call(em2, 'GET', `/api/subaccounts/${b.id}/activity?limit=1`)).body.total_count).toBe(COUNT + 1)
    const newest = (await call(em2, 'GET', `/api/subaccounts/${a.id}/activity?limit=2`)).body.data
    expect(newest.map((l: any) => [l.direction, l.amount_in_cents])).toEqual([['credit', 5], ['debit', 3]])
    // A key of the bulk still names its move.
    const replay = await call(em2, 'POST', '/api/subaccounts/move', {body: {from_subaccount_id: a.id, to_subaccount_id: b.id, amount_in_minor_units: 3}, idem: `bulk-${(COUNT - 1).toString(16).padStart(32, '0')}`})
    expect(replay.status).toBe(200)
    expect(replay.body.data.id).toBe(test.moves.items[COUNT - 1].id)
    await em2.close()
  })

  it('creates the file with mode 0600 (its write-ahead log too), and no temporary file is left', async () => {
    const path = newPath()
    const em = await start(path)
    await call(em, 'POST', '/api/subaccounts', {body: {name: 'Mode'}})
    expect(statSync(path).mode & 0o777).toBe(0o600)
    for (const f of [`${path}-wal`, `${path}-shm`]) if (existsSync(f)) expect(statSync(f).mode & 0o777, f).toBe(0o600)
    expect(readFileSync(path).subarray(0, 16).toString('latin1')).toBe('SQLite format 3\0')
    await em.close()
    expect(files(tmp.path).filter((f) => f.startsWith('.'))).toEqual([])
  })

  it('reports a failing commit once, writes the whole store again once it can, and fails close() while it cannot', async () => {
    const store = createSeededStore()
    const e = store.entityByRole('test')!
    const logged: string[] = []
    const path = newPath()
    const file = new StateFile(path, store, (l) => logged.push(l))
    await file.init()
    file.watch()
    // Every COMMIT fails (as on a full disk) until `broken` is cleared.
    const db = (file as unknown as {db: Database}).db
    const exec = db.exec.bind(db)
    let broken = true
    db.exec = (sql: string) => {
      if (broken && sql === 'COMMIT') throw new Error('database or disk is full')
      exec(sql)
    }
    const a = store.subaccounts.create(e, {name: 'During the failure', currency_code: 'USD'})
    await new Promise((r) => setImmediate(r))
    const b = store.subaccounts.create(e, {name: 'Still failing', currency_code: 'USD'})
    await new Promise((r) => setTimeout(r, 50))
    expect(logged).toEqual([`emulator: could not save state to ${path}: database or disk is full; changes are not being saved.`])
    broken = false
    // The retry (after about a second) writes the whole store.
    const until = Date.now() + 5000
    while ((file as unknown as {failure?: string}).failure !== undefined && Date.now() < until) await new Promise((r) => setTimeout(r, 20))
    const c = store.subaccounts.create(e, {name: 'After it recovered', currency_code: 'USD'})
    await file.close()
    expect(logged).toHaveLength(1)
    const loaded = (await loadState(path))!.entityByRole('test')!
    for (const sub of [a, b, c]) expect(loaded.subaccounts.get(sub.id)?.name).toBe(sub.name)

    // A failure that lasts until close: close() fails (the command exits 1).
    const store2 = (await loadState(path))!
    const file2 = new StateFile(path, store2, () => undefined)
    await file2.init()
    file2.watch()
    const db2 = (file2 as unknown as {db: Database}).db
    const exec2 = db2.exec.bind(db2)
    db2.exec = (sql: string) => {
      if (sql === 'COMMIT') throw new Error('disk I/O error')
      exec2(sql)
    }
    store2.subaccounts.create(store2.entityByRole('test')!, {name: 'Lost', currency_code: 'USD'})
    const err = await file2.close().then(
      () => undefined,
      (x: unknown) => x,
    )
    expect(err).toBeInstanceOf(EmulatorError)
    expect((err as EmulatorError).exitCode).toBe(1)
    expect((err as Error).message).toBe(`Could not save the emulator state to ${path}: disk I/O error.`)
  })

  it('refuses a second emulator on a state file in use', async () => {
    const path = newPath()
    const em = await start(path)
    await refused(startEmulator({port: 0, statePath: path, log: () => undefined}), path, /in use by another process/)
    expect((await call(em, 'POST', '/api/subaccounts', {body: {name: 'Still mine'}})).status).toBe(201)
    await em.close()
  })
})

describe('state file: what is refused, and left untouched', () => {
  it('a symlink, at the file or at its write-ahead log', async () => {
    const real = newPath('real.db')
    const em = await start(real)
    await em.close()
    const link = newPath('link.db')
    symlinkSync(real, link)
    await refused(startEmulator({port: 0, statePath: link}), link, /symbolic link/)
    const dangling = newPath('dangling.db')
    symlinkSync(join(tmp.path, 'nowhere.db'), dangling)
    await refused(startEmulator({port: 0, statePath: dangling}), dangling, /symbolic link/)
    expect(existsSync(join(tmp.path, 'nowhere.db'))).toBe(false)
    const victim = newPath('victim.txt')
    writeFileSync(victim, 'untouched')
    symlinkSync(victim, `${real}-wal`)
    await refused(startEmulator({port: 0, statePath: real}), `${real}-wal`, /symbolic link/)
    expect(readFileSync(victim, 'utf8')).toBe('untouched')
  })

  it('a new state file where the write-ahead log of a removed one is left', async () => {
    const path = newPath()
    writeFileSync(`${path}-wal`, randomBytes(4096))
    const before = files(tmp.path)
    await refused(startEmulator({port: 0, statePath: path}), `${path}-wal`, /left by a removed state file/)
    expect(files(tmp.path)).toEqual(before)
  })

  it('a JSON state file of an earlier payops, named as such with the way to convert it', async () => {
    const path = newPath('old-state.json')
    const text = JSON.stringify(createSeededStore())
    writeFileSync(path, text)
    const before = files(tmp.path)
    const message = await refused(startEmulator({port: 0, statePath: path}), path, /is a JSON state file written by an earlier payops/)
    expect(message).toContain('--import-state')
    expect(readFileSync(path, 'utf8')).toBe(text)
    expect(files(tmp.path)).toEqual(before)
  })

  it('a JSON file that is no state, random bytes, an empty file, a broken SQLite file, another payops database', async () => {
    const cases: Array<[string, Buffer, RegExp]> = [
      ['wrong-shape.json', Buffer.from(JSON.stringify({version: 99, entities: [], api_keys: []})), /not a valid state: unsupported state version 99/],
      ['random.bin', Buffer.concat([Buffer.from([0x01]), randomBytes(8191)]), /not a valid state: it is neither an SQLite nor a JSON state file/],
      ['empty.db', Buffer.alloc(0), /not a valid state: it is empty/],
      ['broken.db', Buffer.concat([Buffer.from('SQLite format 3\0', 'latin1'), randomBytes(4080)]), /not a payops emulator-state database/],
    ]
    for (const [name, bytes, pattern] of cases) {
      const path = newPath(name)
      writeFileSync(path, bytes)
      const before = files(tmp.path)
      await refused(startEmulator({port: 0, statePath: path}), path, pattern)
      expect(readFileSync(path).equals(bytes), name).toBe(true)
      expect(files(tmp.path), name).toEqual(before)
    }
    const other = newPath('journal.db')
    openDatabase(other, {purpose: 'import-journal', migrations: ['CREATE TABLE journal (key TEXT)']}).close()
    const bytes = readFileSync(other)
    await refused(startEmulator({port: 0, statePath: other}), other, /is a payops import-journal database, not a emulator-state one/)
    expect(readFileSync(other).equals(bytes)).toBe(true)
  })
})

describe('state file: converting a JSON state of an earlier payops', () => {
  it('loads it once into a new SQLite file, which then starts on its own; the JSON file is only read', async () => {
    const json = newPath('old.json')
    const old = createSeededStore()
    const e = old.entityByRole('test')!
    const [a, b] = e.subaccounts.items
    const m = old.moves.create(e, {from_subaccount_id: a.id, to_subaccount_id: b.id, amount_in_minor_units: 42, currency_code: 'USD', idempotency_key: 'old-key'})
    old.moves.setStatus(m, 'approved')
    old.moves.settle(e, m)
    const text = JSON.stringify(old)
    writeFileSync(json, text)
    const path = newPath('converted.db')

    await refused(startEmulator({port: 0, importState: json}), json, /--import-state needs --state NEW_FILE/)
    const existing = newPath('existing.db')
    writeFileSync(existing, '')
    await refused(startEmulator({port: 0, statePath: existing, importState: json}), existing, /already exists/)

    const em1 = await startEmulator({port: 0, statePath: path, importState: json})
    try {
      expect(em1.keys).toEqual(old.keys())
      expect(snapshot(em1)).toEqual(JSON.parse(text))
      expect((await call(em1, 'GET', `/api/subaccounts/${b.id}/activity`)).body.data[0]).toMatchObject({direction: 'credit', amount_in_cents: 42})
    } finally {
      await em1.close()
    }
    expect(readFileSync(json, 'utf8')).toBe(text)
    const em2 = await start(path)
    expect(snapshot(em2)).toEqual(JSON.parse(text))
    expect((await call(em2, 'POST', '/api/subaccounts/move', {body: {from_subaccount_id: a.id, to_subaccount_id: b.id, amount_in_minor_units: 42}, idem: 'old-key'})).status).toBe(200)
    await em2.close()
  })

  it('StateFile.save() writes a complete new state file that loadState() reads', async () => {
    const path = newPath()
    const store = createSeededStore()
    await new StateFile(path, store, () => undefined).save()
    expect(statSync(path).mode & 0o777).toBe(0o600)
    const loaded = (await loadState(path))!
    expect(loaded.keys()).toEqual(store.keys())
    expect(JSON.parse(JSON.stringify(loaded))).toEqual(JSON.parse(JSON.stringify(store)))
  })
})

describe('control: reset', () => {
  it('re-seeds all data, keeps every key working, and disarms settlement failures', async () => {
    const em = await start()
    const keysBefore = em.keys
    const ro = (await call(em, 'POST', '/_emulator/keys', {key: null, body: {entity: 'test', read_only: true}})).body.key as string
    const entitiesBefore = (await call(em, 'GET', '/_emulator/entities', {key: null})).body.data
    const made = (await call(em, 'POST', '/api/subaccounts', {body: {name: 'Gone after reset'}})).body.data
    await call(em, 'POST', '/_emulator/fail-next-settlement', {key: null, body: {count: 3}})

    const reset = await call(em, 'POST', '/_emulator/reset', {key: null, body: {}})
    expect(reset.status).toBe(200)

    const keysAfter = em.keys
    expect(keysAfter.test === keysBefore.test && keysAfter.live === keysBefore.live && keysAfter.test_other === keysBefore.test_other).toBe(true)
    expect((await call(em, 'GET', `/api/subaccounts/${made.id}`)).status).toBe(404)
    const entitiesAfter = (await call(em, 'GET', '/_emulator/entities', {key: null})).body.data
    expect(entitiesAfter.map((e: any) => e.id)).toEqual(entitiesBefore.map((e: any) => e.id))
    expect(entitiesAfter.map((e: any) => e.subaccount_ids.length)).toEqual([3, 1, 2])
    expect(entitiesAfter[0].subaccount_ids).not.toEqual(entitiesBefore[0].subaccount_ids)

    const [s1, s2] = entitiesAfter[0].subaccount_ids
    expect((await call(em, 'GET', `/api/subaccounts/${s1}`, {key: ro})).status).toBe(200)
    expect((await call(em, 'POST', '/api/subaccounts', {key: ro, body: {name: 'x'}})).status).toBe(403)
    const moved = await call(em, 'POST', '/api/subaccounts/move', {body: {from_subaccount_id: s1, to_subaccount_id: s2, amount_in_minor_units: 1}})
    expect(moved.status).toBe(201)
    expect(moved.body.data.status).toBe('settled')
  })
})

describe('close', () => {
  it('returns promptly with idle keep-alive connections open, and twice', async () => {
    const em = await start()
    await Promise.all(Array.from({length: 5}, () => call(em, 'GET', '/_emulator/entities', {key: null})))
    const t0 = Date.now()
    await em.close()
    expect(Date.now() - t0).toBeLessThan(1000)
    await em.close()
    await expect(fetch(`${em.baseUrl}/_emulator/entities`)).rejects.toThrow()
  })
})

describe('start', () => {
  it('rejects with EADDRINUSE when the port is taken, leaving the running emulator serving', async () => {
    const em = await start()
    const port = Number(new URL(em.baseUrl).port)
    await expect(startEmulator({port})).rejects.toMatchObject({code: 'EADDRINUSE'})
    expect((await call(em, 'GET', '/_emulator/entities', {key: null})).status).toBe(200)
  })
})

describe('KeyedMutex', () => {
  it('runs work of one key in order and other keys independently, surviving failures', async () => {
    const m = new KeyedMutex()
    const log: string[] = []
    const job = (name: string, ms: number, fail = false) => async () => {
      log.push(`start ${name}`)
      await new Promise((r) => setTimeout(r, ms))
      log.push(`end ${name}`)
      if (fail) throw new Error(name)
      return name
    }
    const results = await Promise.allSettled([m.run('k', job('a', 20, true)), m.run('k', job('b', 1)), m.run('other', job('c', 1))])
    expect(results.map((r) => r.status)).toEqual(['rejected', 'fulfilled', 'fulfilled'])
    expect(log.indexOf('start b')).toBeGreaterThan(log.indexOf('end a'))
    expect(log.indexOf('end c')).toBeLessThan(log.indexOf('end a'))
    expect(m.size).toBe(0)
  })
})
