/**
 * Against an emulator that promises only what the spec says: a key reused for another move is
 * refused with nothing changed (exit 5 on every path that sends a move create), a replay does not
 * settle a move its settlement left `approved` (and no sentence says it did), and with the
 * documented drift on (`--drift`, here switched through the control API) every main command still
 * works and tells the truth. The ledger is read from the emulator's own store.
 */
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, afterEach, beforeAll, describe, expect, it} from 'vitest'
import {activityAmounts, outcomeOf, runAs, startEmulator, tempDir, type Emulator, type RunOptions} from '../support/index.js'

let emu: Emulator
const dir = tempDir()
let a: string
let b: string
let c: string

const cli = (args: string[], opts: RunOptions = {}) => runAs(emu, 'test', args, {configDir: dir.path, ...opts})
/** Another machine: its audit trail does not know this one's keys, so the server is what refuses a reused one. */
const elsewhere = tempDir()
const cliElsewhere = (args: string[], opts: RunOptions = {}) => cli(args, {configDir: elsewhere.path, ...opts})

/** The test entity's ledger: every move (status, amount, metadata) and every subaccount's totals. */
function ledger() {
  const e = emu.store!.entityByRole('test')!
  return {
    moves: e.moves.items.map((m) => `${m.id} ${m.status} ${m.amount_in_minor_units} ${JSON.stringify(m.client_metadata)}`),
    totals: e.subaccounts.items.map((s) => `${s.id} ${s.total_incoming_in_minor_units} ${s.total_outgoing_in_minor_units}`),
  }
}

const moveOf = (id: string) => emu.store!.entityByRole('test')!.moves.get(id)!
const totalsOf = (id: string) => {
  const s = emu.store!.entityByRole('test')!.subaccounts.get(id)!
  return {incoming: s.total_incoming_in_minor_units, outgoing: s.total_outgoing_in_minor_units}
}

/** A raw API call with the test key, as the service would answer it. */
async function api(method: string, path: string, body?: unknown): Promise<{status: number; body: any}> {
  const r = await fetch(emu.baseUrl + path, {
    method,
    headers: {'x-api-key': emu.keys.test, 'content-type': 'application/json'},
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  return {status: r.status, body: await r.json()}
}

const drift = (on: boolean) => emu.control('POST', '/_emulator/faults', {drift: on})

beforeAll(async () => {
  emu = await startEmulator()
  ;[a, b, c] = await Promise.all(['S-A', 'S-B', 'S-C'].map(async (name) => (await cli(['subaccounts', 'create', '--name', name])).json().id as string))
})
afterEach(async () => {
  await drift(false)
})
afterAll(async () => {
  await emu?.stop()
  dir.cleanup()
  elsewhere.cleanup()
})

describe('a key used for one move cannot be used for another', () => {
  it('moves create from another machine: another destination and amount are refused by the API (exit 5, naming the key), and the ledger is unchanged', async () => {
    const key = `reuse-${Date.now()}`
    const first = await cli(['moves', 'create', '--from', a, '--to', b, '--amount', '1.00', '--no-auto-approve', '--idempotency-key', key])
    expect(first.code, first.stderr).toBe(0)
    const before = ledger()
    const r = await cliElsewhere(['moves', 'create', '--from', a, '--to', c, '--amount', '9.99', '--idempotency-key', key])
    expect(r.code, r.stderr).toBe(5)
    expect(r.stdout).toBe('')
    // This machine's trail does not know the key: the API's 409 is what says so.
    expect(r.stderr).toContain(`The API refused Idempotency-Key ${key}: 409 IDEMPOTENCY_KEY_CONFLICT: A key that was used for one move cannot be used for another move`)
    expect(r.stderr).toContain(`This request (9.99 USD ${a} → ${c}) was not carried out; nothing was moved by it.`)
    const err = JSON.parse(r.stderr.split('\n').find((l) => l.startsWith('{"error"'))!).error
    expect(err).toMatchObject({type: 'ConflictError', exit_code: 5, kind: 'conflict', idempotency_key: key})
    // Nothing changed: the first move is still created (not settled), nothing reached C.
    expect(ledger()).toEqual(before)
    expect(moveOf(first.json().id).status).toBe('created')
  })

  it('moves create: other --metadata only is refused too (exit 5), and the move keeps its own metadata', async () => {
    const key = `meta-${Date.now()}`
    const first = await cli(['moves', 'create', '--from', a, '--to', b, '--amount', '2.00', '--metadata', 'ref=one', '--idempotency-key', key])
    expect(first.code, first.stderr).toBe(0)
    const before = ledger()
    const r = await cliElsewhere(['moves', 'create', '--from', a, '--to', b, '--amount', '2.00', '--metadata', 'ref=two', '--idempotency-key', key, '-o', 'table'])
    expect(r.code, r.stderr).toBe(5)
    expect(r.stderr).toMatch(new RegExp(`The API refused Idempotency-Key ${key}\\b.*nothing was moved by it`))
    expect(r.stderr).not.toMatch(/Replayed/)
    expect(ledger()).toEqual(before)
    expect(moveOf(first.json().id).client_metadata).toEqual({ref: 'one'})
    // The same details are a replay, as before.
    const same = await cli(['moves', 'create', '--from', a, '--to', b, '--amount', '2.00', '--metadata', 'ref=one', '--idempotency-key', key])
    expect(same.code, same.stderr).toBe(0)
    expect(outcomeOf(same)).toMatchObject({kind: 'replayed', id: first.json().id})
  })

  it('payops api on the move path: another body under the key is exit 5, nothing moved', async () => {
    const key = `api-${Date.now()}`
    const body = (amount: number, to: string) => JSON.stringify({from_subaccount_id: a, to_subaccount_id: to, amount_in_minor_units: amount})
    const first = await cli(['api', 'POST', '/api/subaccounts/move', '--input', '-', '-H', `Idempotency-Key: ${key}`], {input: body(300, b)})
    expect(first.code, first.stderr).toBe(0)
    const before = ledger()
    const r = await cliElsewhere(['api', 'POST', '/api/subaccounts/move', '--input', '-', '-H', `Idempotency-Key: ${key}`], {input: body(301, b)})
    expect(r.code, r.stderr).toBe(5)
    expect(r.stderr).toMatch(new RegExp(`The API refused Idempotency-Key ${key}.*409 IDEMPOTENCY_KEY_CONFLICT.*not carried out; nothing was moved by it`))
    expect(ledger()).toEqual(before)
  })

  it('moves import: a row whose key names another move is refused as the API\'s conflict, naming the key, and moves nothing', async () => {
    const key = `imp-${Date.now()}`
    const first = await cli(['moves', 'create', '--from', a, '--to', b, '--amount', '4.00', '--idempotency-key', key])
    expect(first.code, first.stderr).toBe(0)
    const file = join(dir.path, `reuse-${Date.now()}.csv`)
    writeFileSync(file, `from,to,amount,idempotency_key\n${a},${c},44.00,${key}\n`)
    const before = ledger()
    const r = await cli(['moves', 'import', file, '--yes'])
    // A bulk command with a failed row ends 6 (DESIGN); the row itself is the API's 409, named as such.
    expect(r.code, r.stderr).toBe(6)
    const out = r.json()
    expect(out).toMatchObject({created: 0, replayed: 0, advanced: 0, failed: 1})
    expect(out.failures).toHaveLength(1)
    expect(out.failures[0]).toMatchObject({line: 2, key})
    expect(out.failures[0].message).toMatch(new RegExp(`^The API refused Idempotency-Key ${key}: 409 IDEMPOTENCY_KEY_CONFLICT: A key that was used for one move cannot be used for another move .*This request \\(44\\.00 USD ${a} → ${c}\\) was not carried out; nothing was moved by it\\.`))
    expect(ledger()).toEqual(before)
    expect(totalsOf(c).incoming).toBe(0)
  })
})

describe('a replay continues only a created move', () => {
  it('after a 207 the replay returns the approved move as it is: exit 6, nothing settled, and the sentences are true', async () => {
    const key = `stuck-${Date.now()}`
    const before = totalsOf(c)
    await emu.control('POST', '/_emulator/fail-next-settlement', {count: 1})
    const made = await cli(['moves', 'create', '--from', a, '--to', c, '--amount', '5.00', '--idempotency-key', key, '-o', 'table'])
    expect(made.code, made.stderr).toBe(6)
    expect(made.stderr).toMatch(/approved but not settled\. Its settlement failed: it stays approved: .*replaying its create returns it as it is; ask the provider to settle or fail it/)
    expect(made.stderr).not.toMatch(/re-run this command|continue it/)
    const id = /Created move ([0-9a-f-]{36})/.exec(made.stderr)![1]
    for (const format of ['table', 'json']) {
      const replay = await cli(['moves', 'create', '--from', a, '--to', c, '--amount', '5.00', '--idempotency-key', key, '-o', format])
      expect(replay.code, replay.stderr).toBe(6)
      expect(replay.stderr).not.toMatch(/settled it now|this run approved/)
      if (format === 'table') expect(replay.stderr).toContain(`Replayed: Idempotency-Key ${key} already names move ${id} (5.00 USD`)
      else expect(outcomeOf(replay)).toMatchObject({kind: 'replayed', id, status: 'approved'})
    }
    expect(moveOf(id).status).toBe('approved')
    expect(totalsOf(c)).toEqual(before)
  })
})

describe('--drift: the documented drift, absorbed', () => {
  it('the emulator answers in the drift: approve without amounts, legacy names only, no optional fields', async () => {
    const made = await api('POST', '/api/subaccounts/move', {from_subaccount_id: a, to_subaccount_id: b, amount_in_minor_units: 5, auto_approve: false})
    await drift(true)
    const approved = await api('POST', `/api/subaccounts/move/${made.body.data.id}/approve`, {})
    expect(approved.status).toBe(201)
    expect(Object.keys(approved.body.data).sort()).toEqual(['currency_code', 'destination_subaccount_id', 'id', 'settled_at', 'source_subaccount_id', 'status'])
    expect(approved.body.data.status).toBe('SETTLED')
    expect(approved.body).not.toHaveProperty('warning')
    const created = await api('POST', '/api/subaccounts/move', {from_subaccount_id: a, to_subaccount_id: b, amount_in_minor_units: 6})
    expect(created.body.data).toMatchObject({amount_in_cents: 6, status: 'settled'})
    expect(created.body.data).not.toHaveProperty('amount_in_minor_units')
    expect(created.body.data).not.toHaveProperty('client_metadata')
    const sub = (await api('GET', `/api/subaccounts/${b}`)).body.data
    expect(sub).toHaveProperty('total_incoming_cents')
    expect(sub).toHaveProperty('routing_number')
    for (const gone of ['total_incoming_in_minor_units', 'total_outgoing_in_minor_units', 'routing_numbers']) expect(sub).not.toHaveProperty(gone)
    const page = (await api('GET', `/api/subaccounts/${b}/activity?limit=1`)).body
    expect(page.has_more).toBe(true)
    expect(typeof page.next_cursor).toBe('string')
    expect(page).not.toHaveProperty('total_count')
    expect(page).not.toHaveProperty('previous_cursor')
    // Off again: the full shape.
    await drift(false)
    expect((await api('GET', `/api/subaccounts/${b}`)).body.data).toHaveProperty('total_incoming_in_minor_units')
  })

  it('every main command works against it and tells the truth', async () => {
    await drift(true)
    const x = (await cli(['subaccounts', 'create', '--name', 'Drift-X'])).json().id as string
    const y = (await cli(['subaccounts', 'create', '--name', 'Drift-Y'])).json().id as string

    // moves create (auto-approve): the legacy amount is read as the amount.
    const settled = await cli(['moves', 'create', '--from', x, '--to', y, '--amount', '12.34'])
    expect(settled.code, settled.stderr).toBe(0)
    expect(settled.json()).toMatchObject({amount_in_minor_units: 1234, status: 'settled'})
    expect(outcomeOf(settled)).toMatchObject({kind: 'created', status: 'settled'})

    // moves create --no-auto-approve, then approve: the answer has no amount; it comes from the audit trail.
    const key = `drift-${Date.now()}`
    const pending = await cli(['moves', 'create', '--from', x, '--to', y, '--amount', '7.00', '--no-auto-approve', '--idempotency-key', key])
    expect(pending.code, pending.stderr).toBe(0)
    const pendingId = pending.json().id as string

    // approvals: lists it with its amount.
    const queue = await cli(['approvals', '-o', 'json'])
    expect(queue.code, queue.stderr).toBe(0)
    expect(queue.json()).toContainEqual(expect.objectContaining({kind: 'move', id: pendingId, amount_in_minor_units: 700}))

    // replay of the created move without auto-approve: upper-case CREATED read as created.
    const replay = await cli(['moves', 'create', '--from', x, '--to', y, '--amount', '7.00', '--no-auto-approve', '--idempotency-key', key])
    expect(replay.code, replay.stderr).toBe(0)
    expect(outcomeOf(replay)).toMatchObject({kind: 'replayed', id: pendingId, status: 'created'})

    const approve = await cli(['moves', 'approve', pendingId, '-o', 'table'])
    expect(approve.code, approve.stderr).toBe(0)
    expect(approve.stderr).toMatch(new RegExp(`Approved move ${pendingId} \\(7\\.00 USD .*\\): settled now\\.`))
    expect(approve.stdout).toMatch(/7\.00 USD/)
    expect(`${approve.stdout}${approve.stderr}`).not.toMatch(/undefined|amount unknown/)
    expect(moveOf(pendingId).status).toBe('settled')

    // A move this machine never recorded: approved, its amount shown as unknown, never a crash.
    const elsewhere = await api('POST', '/api/subaccounts/move', {from_subaccount_id: x, to_subaccount_id: y, amount_in_minor_units: 100, auto_approve: false})
    const unknown = await cli(['moves', 'approve', elsewhere.body.data.id, '-o', 'table'])
    expect(unknown.code, unknown.stderr).toBe(0)
    expect(unknown.stderr).toContain(`Approved move ${elsewhere.body.data.id} (amount unknown`)
    expect(`${unknown.stdout}${unknown.stderr}`).not.toMatch(/undefined|NaN/)
    const unknownJson = await cli(['moves', 'approve', (await api('POST', '/api/subaccounts/move', {from_subaccount_id: x, to_subaccount_id: y, amount_in_minor_units: 1, auto_approve: false})).body.data.id])
    expect(unknownJson.code, unknownJson.stderr).toBe(0)

    // moves cancel
    const toCancel = await cli(['moves', 'create', '--from', x, '--to', y, '--amount-minor', '50', '--no-auto-approve'])
    const cancel = await cli(['moves', 'cancel', toCancel.json().id])
    expect(cancel.code, cancel.stderr).toBe(0)
    expect(cancel.json()).toMatchObject({id: toCancel.json().id, status: 'canceled', amount_in_minor_units: 50})

    // subaccounts get: the legacy totals and routing number read as the current ones, and true.
    const got = await cli(['subaccounts', 'get', y])
    expect(got.code, got.stderr).toBe(0)
    expect(got.json()).toMatchObject({total_incoming_in_minor_units: 1234 + 700 + 100 + 1, total_outgoing_in_minor_units: 0})
    expect(got.json().routing_numbers.ach).toBe(got.json().routing_number)
    const table = await cli(['subaccounts', 'get', y, '-o', 'table'])
    expect(table.code, table.stderr).toBe(0)
    expect(table.stdout).toMatch(/20\.35 USD/)

    // subaccounts activity: every page followed, amounts from the legacy field.
    expect((await activityAmounts(emu, y, 'credit', {configDir: dir.path})).sort((p, q) => p - q)).toEqual([1, 100, 700, 1234])
    const paged = await cli(['subaccounts', 'activity', y, '--limit', '1', '--all', '-o', 'ndjson'])
    expect(paged.code, paged.stderr).toBe(0)
    expect(paged.stdout.trim().split('\n')).toHaveLength(4)

    // treasury: a simulated credit, its bank transaction listed and read.
    const accounts = (await cli(['treasury', 'accounts', 'list'])).json() as Array<{id: string; label: string}>
    const main = accounts.find((t) => t.label === 'Main operating account')!
    const credit = await cli(['treasury', 'simulate-credit', main.id, '--rail', 'wire', '--amount', '3.21'])
    expect(credit.code, credit.stderr).toBe(0)
    const txns = await cli(['treasury', 'transactions', 'list', main.id, '--all', '-o', 'json'])
    expect(txns.code, txns.stderr).toBe(0)
    expect(txns.json()).toContainEqual(expect.objectContaining({id: credit.json().bank_transaction_id, amount_in_minor_units: 321}))

    // transfers list
    const transfers = await cli(['transfers', 'list', '-o', 'json'])
    expect(transfers.code, transfers.stderr).toBe(0)
    expect(Array.isArray(transfers.json())).toBe(true)

    // payers, payees, payins: optional fields absent, the deprecated payin amount read as the amount.
    const payees = await cli(['payees', 'list', '--limit', '2', '-o', 'json'])
    expect(payees.code, payees.stderr).toBe(0)
    const payee = await cli(['payees', 'get', payees.json()[0].id])
    expect(payee.code, payee.stderr).toBe(0)
    expect(payee.json()).toMatchObject({id: payees.json()[0].id, name: payees.json()[0].name})
    expect((await cli(['payers', 'list', '--limit', '2'])).code).toBe(0)
    const seeded = (await emu.control<{data: Array<{id: string; amount_in_minor_units: number}>}>('GET', '/_emulator/payins?entity=test')).data[0]
    const payin = await cli(['payins', 'get', seeded.id])
    expect(payin.code, payin.stderr).toBe(0)
    expect(payin.json()).toMatchObject({id: seeded.id, amount_in_minor_units: seeded.amount_in_minor_units})
  }, 60_000)
})

describe('emulator start --drift', () => {
  it('starts drifting, and a reset or DELETE /_emulator/faults returns to drifting; {"drift": false} turns it off', async () => {
    const started = await startEmulator(['--drift'])
    try {
      const create = async () => {
        const r = await fetch(`${started.baseUrl}/api/subaccounts`, {method: 'POST', headers: {'x-api-key': started.keys.test, 'content-type': 'application/json'}, body: JSON.stringify({name: 'D'})})
        return ((await r.json()) as {data: Record<string, unknown>}).data
      }
      expect(await create()).not.toHaveProperty('total_incoming_in_minor_units')
      expect((await started.control('GET', '/_emulator/faults')).data.drift).toBe(true)
      await started.control('POST', '/_emulator/faults', {drift: false})
      expect(await create()).toHaveProperty('total_incoming_in_minor_units')
      await started.reset()
      expect(await create()).toMatchObject({total_incoming_cents: 0, routing_number: expect.any(String)})
      expect(await create()).not.toHaveProperty('routing_numbers')
    } finally {
      expect(await started.stop()).toBe(0)
    }
  }, 30_000)
})
