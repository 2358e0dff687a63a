import {mkdtemp, readFile, rm, stat, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {startEmulator, type RunningEmulator} from '../../src/emulator/index.js'
import {KeyedMutex} from '../../src/emulator/locks.js'
import type {SavedMove} from '../../src/emulator/store/index.js'
import {call, emulatorFixture, type ActivityLine, type EntityView, type Res} from './emulator-helpers.js'

const emu = emulatorFixture('payops-emulator-')
const start = (statePath?: string) => emu.start(statePath)

async function waitFor(check: () => Promise<boolean>, ms = 3000): Promise<void> {
  const until = Date.now() + ms
  while (Date.now() < until) {
    if (await check()) return
    await new Promise((r) => setTimeout(r, 25))
  }
  throw new Error('condition not reached in time')
}

/** What the test reads of a state file: each entity's subaccounts and moves. */
interface SavedState {
  version: number
  entities: Array<{role: string; subaccounts: Array<{name: string}>; moves: SavedMove[]}>
}

describe('state file', () => {
  it('round-trips keys, entities, subaccounts, moves, activity and idempotency keys', async () => {
    const path = join(emu.dir, 'state.json')
    const em1 = await start(path)
    // A fresh start is saved at once (the keys must survive a crash), owner-only.
    const mode = (await stat(path)).mode & 0o777
    expect(mode).toBe(0o600)
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

    // Saved by the debounced writer, before any close.
    await waitFor(async () => (await readFile(path, 'utf8')).includes(pending.body.data.id))

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
    const replay = await call(em2, 'POST', '/api/subaccounts/move', {body: {auto_approve: false}, idem: 'persisted-key'})
    expect(replay.status).toBe(200)
    expect(replay.body.data).toMatchObject({id: pending.body.data.id, status: 'CREATED'})
    expect((await call(em2, 'POST', `/api/subaccounts/move/${pending.body.data.id}/approve`, {body: {}})).status).toBe(201)

    // Sequence numbers resume past the loaded data: the newest line comes first.
    const activity = (await call(em2, 'GET', `/api/subaccounts/${a.id}/activity`)).body
    expect(activity.total_count).toBe(2)
    expect(activity.data.map((x: ActivityLine) => [x.direction, x.amount_in_cents])).toEqual([['credit', 200], ['debit', 1500]])
    const c = (await call(em2, 'POST', '/api/subaccounts', {body: {name: 'After reload'}})).body.data
    expect(c.account_number).not.toBe(a.account_number)
    await em2.close()

    // The close wrote the final state.
    const saved: SavedState = JSON.parse(await readFile(path, 'utf8'))
    expect(saved.version).toBe(1)
    const test = saved.entities.find((e) => e.role === 'test')!
    expect(test.subaccounts.map((s) => s.name)).toContain('After reload')
    expect(test.moves.find((m) => m.id === pending.body.data.id)!.status).toBe('settled')
  })

  it('refuses to start over a state file that is not a valid state', async () => {
    const path = join(emu.dir, 'broken.json')
    await writeFile(path, '{"version": 1, "entities": "nope"')
    await expect(startEmulator({port: 0, statePath: path})).rejects.toThrow(/not a valid state/)
    await writeFile(path, JSON.stringify({version: 99, entities: [], api_keys: []}))
    await expect(startEmulator({port: 0, statePath: path})).rejects.toThrow(/unsupported state version 99/)
    // The file was left alone.
    expect(JSON.parse(await readFile(path, 'utf8')).version).toBe(99)
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
    expect(entitiesAfter.map((e: EntityView) => e.id)).toEqual(entitiesBefore.map((e: EntityView) => e.id))
    expect(entitiesAfter.map((e: EntityView) => e.subaccount_ids.length)).toEqual([3, 1, 2])
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
