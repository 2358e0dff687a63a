/**
 * The emulator's compact records: a settled move's activity lines are read from the move (and
 * survive a reload as such), answers stay what they were, and state files saved before lines were
 * derived still load and answer exactly as the emulator that saved them did.
 */
import {copyFile, mkdtemp, readFile, rm} from 'node:fs/promises'
import {dirname, join} from 'node:path'
import {fileURLToPath} from 'node:url'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {startEmulator, type RunningEmulator} from '../src/index.js'
import {StateFile, loadState} from '../src/persist/index.js'
import {ActivityList, Store, flat, isFlow, lineId, newId, type ActivityRecord} from '../src/store/index.js'
import {call, emulatorFixture} from './helpers.js'

const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), 'fixtures')
const emu = emulatorFixture('payops-emulator-memory-')
const start = (statePath?: string) => emu.start(statePath)

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** Every line of a subaccount through the API, `limit` at a time, with the given filters. */
async function walk(em: RunningEmulator, sub: string, query: Record<string, string>, limit: number): Promise<Array<Record<string, unknown>>> {
  const out: Array<Record<string, unknown>> = []
  let cursor: string | undefined
  for (let guard = 0; guard < 1000; guard++) {
    const qs = new URLSearchParams({...query, limit: String(limit), ...(cursor ? {cursor} : {})})
    const page = await call(em, 'GET', `/api/subaccounts/${sub}/activity?${qs}`)
    expect(page.status).toBe(200)
    out.push(...page.body.data)
    if (!page.body.has_more) return out
    cursor = page.body.next_cursor
  }
  throw new Error('no last page')
}

describe('compact ids', () => {
  it('newId() is a flat, random version 4 UUID', () => {
    const ids = Array.from({length: 2000}, () => newId())
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
    expect(new Set(ids).size).toBe(ids.length)
  })

  it('flat() keeps every character, beyond Latin-1 and lone surrogates included', () => {
    for (const s of ['', 'payops-import-1234abcd-' + 'f'.repeat(32), 'clé-ü', 'ключ-€', 'a\ud800b', '\udfff']) expect(flat(s)).toBe(s)
  })

  it("a move's line ids are stable, distinct per side, and name-based UUIDs", () => {
    const move = newId()
    expect(lineId(move, 'debit')).toBe(lineId(move, 'debit'))
    expect(lineId(move, 'debit')).not.toBe(lineId(move, 'credit'))
    expect(lineId(move, 'credit')).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
  })
})

describe('derived activity lines', () => {
  it('reads a settled move\'s lines from the move, pages and filters them with kept lines as before, and derives them again after a reload', async () => {
    const em = await start()
    const a = (await call(em, 'POST', '/api/subaccounts', {body: {name: 'Derived A'}})).body.data.id
    const b = (await call(em, 'POST', '/api/subaccounts', {body: {name: 'Derived B'}})).body.data.id
    const entity = em.store.entityByRole('test')!
    const moves: string[] = []
    for (let i = 0; i < 23; i++) {
      const res = await call(em, 'POST', '/api/subaccounts/move', {body: {from_subaccount_id: i % 3 ? a : b, to_subaccount_id: i % 3 ? b : a, amount_in_minor_units: 10 + i}, idem: `derived-${i}`})
      expect(res.status).toBe(201)
      moves.push(res.body.data.id)
      if (i % 5 === 0) em.store.subaccounts.addActivity(entity, a, {source: 'bai2', direction: 'credit', amount_in_minor_units: 1000 + i})
      if (i === 11) await sleep(5)
    }
    const list = entity.activity.get(a)!
    expect(list.length).toBe(23 + 5)
    // The moves' lines are references to the moves, not records.
    expect(Array.from({length: list.length}, (_, i) => isFlow(list.at(i))).filter(Boolean)).toHaveLength(23)

    const lines: ActivityRecord[] = list.toJSON()
    expect(lines.map((l) => l.seq)).toEqual([...lines.map((l) => l.seq)].sort((x, y) => x - y))
    for (const l of lines.filter((x) => x.source === 'transfer')) {
      const m = entity.moves.get(l.reference_id!)!
      expect(l.id).toBe(lineId(m.id, l.direction))
      expect(l.direction).toBe(m.from_subaccount_id === a ? 'debit' : 'credit')
      expect(l.effective_at).toBe(new Date(m.settled_ms).toISOString())
    }
    const view = (l: ActivityRecord) => ({id: l.id, source: l.source, direction: l.direction, amount_in_cents: l.amount_in_minor_units, effective_at: l.effective_at, currency_code: l.currency_code})
    const mid = lines[12].effective_at
    const cases: Array<[Record<string, string>, (l: ActivityRecord) => boolean]> = [
      [{}, () => true],
      [{direction: 'debit'}, (l) => l.direction === 'debit'],
      [{direction: 'credit', amount_gte: '20'}, (l) => l.direction === 'credit' && l.amount_in_minor_units >= 20],
      [{amount_lte: '25', effective_at_gte: mid}, (l) => l.amount_in_minor_units <= 25 && l.effective_at >= mid],
      [{effective_at_lte: mid}, (l) => l.effective_at <= mid],
    ]
    for (const [query, keep] of cases) {
      const expected = lines.filter(keep).map(view)
      for (const order of ['asc', 'desc'] as const) {
        const want = order === 'asc' ? expected : [...expected].reverse()
        expect(await walk(em, a, {...query, order}, 4)).toEqual(want)
      }
    }

    // Saved as records (the shape on disk is unchanged), loaded back as references.
    const saved = JSON.parse(JSON.stringify(em.store))
    const savedA: ActivityRecord[] = saved.entities.find((e: {role: string}) => e.role === 'test').activity[a]
    expect(savedA).toEqual(lines)
    expect(Object.keys(savedA[0])).toEqual(['id', 'seq', 'subaccount_id', 'source', 'direction', 'amount_in_minor_units', 'currency_code', 'effective_at', 'created_at', 'reference_id'])
    const savedMove = saved.entities.find((e: {role: string}) => e.role === 'test').moves.find((m: {id: string}) => m.id === moves[0])
    expect(Object.keys(savedMove)).toEqual(['id', 'seq', 'from_subaccount_id', 'to_subaccount_id', 'amount_in_minor_units', 'currency_code', 'status', 'status_recorded_at', 'client_metadata', 'idempotency_key', 'settled_at', 'created_at', 'updated_at'])
    const reloaded = Store.fromJSON(saved).entityByRole('test')!
    const again = reloaded.activity.get(a)!
    expect(again.toJSON()).toEqual(lines)
    expect(Array.from({length: again.length}, (_, i) => isFlow(again.at(i))).filter(Boolean)).toHaveLength(23)
    expect(JSON.parse(JSON.stringify(reloaded))).toEqual(saved.entities.find((e: {role: string}) => e.role === 'test'))
  })

  it('keeps a line as a record when it is not exactly what its move derives', () => {
    const store = new Store()
    const e = store.addEntity({role: 'test', name: 'E', mode: 'test'})
    const x = store.subaccounts.create(e, {name: 'x', currency_code: 'USD'})
    const y = store.subaccounts.create(e, {name: 'y', currency_code: 'USD'})
    const m = store.moves.create(e, {from_subaccount_id: x.id, to_subaccount_id: y.id, amount_in_minor_units: 5, currency_code: 'USD'})
    store.moves.setStatus(m, 'approved')
    store.moves.settle(e, m)
    const saved = JSON.parse(JSON.stringify(e))
    saved.activity[y.id][0].amount_in_minor_units = 6
    const list = Store.fromJSON({...JSON.parse(JSON.stringify(store)), entities: [saved]}).entities.get(e.id)!.activity
    expect(isFlow(list.get(x.id)!.at(0))).toBe(true)
    expect(isFlow(list.get(y.id)!.at(0))).toBe(false)
    expect(list.get(y.id)!.toJSON()).toEqual(saved.activity[y.id])
  })

  it('an empty list pages like an empty table', () => {
    const list = new ActivityList(newId())
    expect(list.length).toBe(0)
    expect(list.toJSON()).toEqual([])
  })
})

describe('state files saved before activity lines were derived', () => {
  it('convert (--import-state), and answer exactly as the emulator that saved them did; new moves append after their lines', async () => {
    const json = join(emu.dir, 'old.json')
    await copyFile(join(FIXTURES, 'emulator-state-before-derived-lines.json'), json)
    const {subaccounts, pending, answers} = JSON.parse(await readFile(join(FIXTURES, 'emulator-state-before-derived-lines.answers.json'), 'utf8'))
    // A JSON state is converted once into a new SQLite state file, which later starts on its own.
    const path = join(emu.dir, 'converted.db')
    const em = await startEmulator({port: 0, statePath: path, importState: json})
    const answered: Record<string, unknown> = {}
    const [a, b] = subaccounts as string[]
    for (const s of [a, b]) {
      answered[`subaccount ${s}`] = (await call(em, 'GET', `/api/subaccounts/${s}`)).body
      for (const q of ['', '?order=asc', '?limit=2', '?direction=debit', '?amount_gte=102&order=asc']) answered[`activity ${s}${q}`] = (await call(em, 'GET', `/api/subaccounts/${s}/activity${q}`)).body
    }
    for (const k of ['old-key-0', 'old-key-2', 'old-key-5', 'old-key-canceled']) {
      // Each key replayed with its own move's details (a key used for one move cannot be used for another).
      const m = em.store.moves.byIdempotencyKey(em.store.entityByRole('test')!, k)!
      const body = {from_subaccount_id: m.from_subaccount_id, to_subaccount_id: m.to_subaccount_id, amount_in_minor_units: m.amount_in_minor_units, client_metadata: m.client_metadata ?? {}}
      const r = await call(em, 'POST', '/api/subaccounts/move', {body, idem: k})
      answered[`replay ${k}`] = {status: r.status, body: r.body}
    }
    // Every error carries its own request id.
    const withoutRequestIds = (o: Record<string, unknown>) => JSON.parse(JSON.stringify(o, (k, v) => (k === 'request_id' ? undefined : v)))
    expect(withoutRequestIds(answered)).toEqual(withoutRequestIds(answers))

    // Lines saved as records stay records; a move settled now is read from the move, after them.
    const approved = await call(em, 'POST', `/api/subaccounts/move/${pending}/approve`, {body: {}})
    expect(approved.status).toBe(201)
    const list = em.store.entityByRole('test')!.activity.get(a)!
    expect(isFlow(list.at(list.length - 1))).toBe(true)
    expect(Array.from({length: list.length - 1}, (_, i) => isFlow(list.at(i))).some(Boolean)).toBe(false)
    const all = await walk(em, a, {order: 'asc'}, 3)
    expect(all.slice(0, -1)).toEqual([...(answers[`activity ${a}?order=asc`] as {data: unknown[]}).data])
    expect(all.at(-1)).toMatchObject({direction: 'debit', amount_in_cents: 55})
    await em.close()
    const em2 = await start(path)
    expect(await walk(em2, a, {order: 'asc'}, 2)).toEqual(all)
    // The lines kept as records stay records after the round trip through SQLite.
    const list2 = em2.store.entityByRole('test')!.activity.get(a)!
    expect(Array.from({length: list2.length}, (_, i) => isFlow(list2.at(i)))).toEqual(Array.from({length: list.length}, (_, i) => isFlow(list.at(i))))
    await em2.close()
  })

  it('keep a move read into one side only as it was, through an SQLite state', async () => {
    const store = new Store()
    for (const role of ['test', 'test_other', 'live'] as const) store.issueKey(store.addEntity({role, name: role, mode: role === 'live' ? 'live' : 'test'}))
    const e = store.entityByRole('test')!
    const x = store.subaccounts.create(e, {name: 'x', currency_code: 'USD'})
    const y = store.subaccounts.create(e, {name: 'y', currency_code: 'USD'})
    for (const amount of [5, 7]) {
      const m = store.moves.create(e, {from_subaccount_id: x.id, to_subaccount_id: y.id, amount_in_minor_units: amount, currency_code: 'USD'})
      store.moves.setStatus(m, 'approved')
      store.moves.settle(e, m)
    }
    const saved = JSON.parse(JSON.stringify(store))
    const savedE = saved.entities.find((s: {role: string}) => s.role === 'test')
    savedE.activity[y.id][0].amount_in_minor_units = 6
    const oneSided = Store.fromJSON(saved)
    const path = join(emu.dir, 'one-sided.db')
    await new StateFile(path, oneSided, () => undefined).save()
    const loaded = (await loadState(path))!
    const flows = (s: Store, sub: string) => {
      const l = s.entityByRole('test')!.activity.get(sub)!
      return Array.from({length: l.length}, (_, i) => isFlow(l.at(i)))
    }
    expect(flows(loaded, x.id)).toEqual([true, true])
    expect(flows(loaded, y.id)).toEqual([false, true])
    expect(JSON.parse(JSON.stringify(loaded))).toEqual(JSON.parse(JSON.stringify(oneSided)))
  })
})

describe('POST /_emulator/bulk/moves', () => {
  it('creates settled moves through the store, bound to their keys, and refuses bad requests before writing', async () => {
    const em = await start()
    const a = (await call(em, 'POST', '/api/subaccounts', {body: {name: 'Bulk A'}})).body.data.id
    const b = (await call(em, 'POST', '/api/subaccounts', {body: {name: 'Bulk B'}})).body.data.id
    const bulk = (body: unknown) => call(em, 'POST', '/_emulator/bulk/moves', {body, key: null})
    expect((await bulk({from_subaccount_id: a, to_subaccount_id: b, count: 250, amount_in_minor_units: 7, idempotency_key_prefix: 'bulk-'})).body).toEqual({created: 250})
    expect((await call(em, 'GET', `/api/subaccounts/${b}`)).body.data.total_incoming_in_minor_units).toBe(1750)
    expect((await call(em, 'GET', `/api/subaccounts/${a}/activity?limit=1`)).body.total_count).toBe(250)
    const replay = await call(em, 'POST', '/api/subaccounts/move', {body: {from_subaccount_id: a, to_subaccount_id: b, amount_in_minor_units: 7}, idem: `bulk-${'0'.repeat(29)}0f9`})
    expect(replay.status).toBe(200)
    expect(replay.body.data).toMatchObject({status: 'SETTLED', amount_in_minor_units: 7})

    expect((await bulk({from_subaccount_id: a, to_subaccount_id: b, count: 3, idempotency_key_prefix: 'bulk-'})).status).toBe(400)
    expect((await bulk({from_subaccount_id: a, to_subaccount_id: a, count: 3})).status).toBe(400)
    expect((await bulk({from_subaccount_id: a, to_subaccount_id: newId(), count: 3})).status).toBe(404)
    expect((await bulk({from_subaccount_id: a, to_subaccount_id: b, count: 1_000_001})).status).toBe(400)
    expect((await bulk({from_subaccount_id: a, to_subaccount_id: b, count: 2, amount_in_minor_units: 1_000_000_000})).status).toBe(200)
    expect((await call(em, 'GET', `/api/subaccounts/${a}/activity?limit=1`)).body.total_count).toBe(252)
    const gc = await call(em, 'POST', '/_emulator/gc', {body: {}, key: null})
    expect(gc.status).toBe(200)
    expect(gc.body.memory.rss).toBeGreaterThan(0)
  })
})
