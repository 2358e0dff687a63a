import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {defaultConfigDir, expectNothingSent, runAs, startEmulator, type Emulator, outcomeOf, expectOnlyRequests, subaccountLookup} from '../support/index.js'

let emu: Emulator
let a: string
let b: string

/** Runs `fn` and asserts the emulator received nothing and the (default) audit trail did not grow. */
const nothingSent = <T>(fn: () => Promise<T>) => expectNothingSent(emu, fn, defaultConfigDir())
/**
 * Runs `fn` and asserts the emulator received exactly `reads` ("GET /api/…" lookups, which change
 * nothing) and the audit trail did not grow: nothing that moves money was sent.
 */
const onlyReads = <T>(reads: string[], fn: () => Promise<T>) => expectOnlyRequests(emu, reads, fn, defaultConfigDir())
const lookup = subaccountLookup

async function createSub(name: string, key = 'test'): Promise<string> {
  const r = await runAs(emu, key, ['subaccounts', 'create', '--name', name])
  expect(r.code, r.stderr).toBe(0)
  return r.json().id
}

async function balance(id: string, key = 'test'): Promise<{incoming: number; outgoing: number}> {
  const r = await runAs(emu, key, ['subaccounts', 'get', id])
  const s = r.json()
  return {incoming: s.total_incoming_in_minor_units, outgoing: s.total_outgoing_in_minor_units}
}

beforeAll(async () => {
  emu = await startEmulator()
  a = await createSub('From')
  b = await createSub('To')
})
afterAll(async () => {
  await emu?.stop()
})

describe('moves create', () => {
  it('settles at once with auto-approve and prints the generated Idempotency-Key on stderr', async () => {
    const before = await balance(b)
    const r = await runAs(emu, 'test', ['moves', 'create', '--from', a, '--to', b, '--amount', '12.34', '--metadata', 'invoice=INV-1'])
    expect(r.code, r.stderr).toBe(0)
    const move = r.json()
    expect(move.status).toBe('settled')
    expect(move.amount_in_minor_units).toBe(1234)
    expect(move.client_metadata).toEqual({invoice: 'INV-1'})
    expect(outcomeOf(r)).toMatchObject({kind: 'created', id: move.id, status: 'settled', idempotency_key: expect.stringMatching(/^[0-9a-f-]{36}$/)})
    expect((await balance(b)).incoming).toBe(before.incoming + 1234)
  })

  it('replaying the same Idempotency-Key returns the same move and moves nothing twice', async () => {
    const key = `replay-${Date.now()}`
    const first = await runAs(emu, 'test', ['moves', 'create', '--from', a, '--to', b, '--amount-minor', '500', '--idempotency-key', key])
    expect(first.code).toBe(0)
    const mid = await balance(b)
    const again = await runAs(emu, 'test', ['moves', 'create', '--from', a, '--to', b, '--amount-minor', '500', '--idempotency-key', key])
    expect(again.code).toBe(0)
    expect(again.json().id).toBe(first.json().id)
    expect(again.json().status).toBe('settled')
    expect(outcomeOf(again)).toEqual({kind: 'replayed', id: first.json().id, idempotency_key: key, status: 'settled'})
    expect(await balance(b)).toEqual(mid)
  })

  it('--no-auto-approve leaves it created; replay with auto-approve continues to settlement', async () => {
    const key = `cont-${Date.now()}`
    const created = await runAs(emu, 'test', ['moves', 'create', '--from', a, '--to', b, '--amount-minor', '700', '--no-auto-approve', '--idempotency-key', key])
    expect(created.json().status).toBe('created')
    const replay = await runAs(emu, 'test', ['moves', 'create', '--from', a, '--to', b, '--amount-minor', '700', '--idempotency-key', key])
    expect(replay.code).toBe(0)
    expect(replay.json().id).toBe(created.json().id)
    expect(replay.json().status).toBe('settled')
  })

  it('a canceled move\'s key is a conflict (exit 5)', async () => {
    const key = `cancel-${Date.now()}`
    const created = await runAs(emu, 'test', ['moves', 'create', '--from', a, '--to', b, '--amount-minor', '900', '--no-auto-approve', '--idempotency-key', key])
    const id = created.json().id
    const cancel = await runAs(emu, 'test', ['moves', 'cancel', id])
    expect(cancel.code, cancel.stderr).toBe(0)
    expect(cancel.json().status).toBe('canceled')
    const replay = await runAs(emu, 'test', ['moves', 'create', '--from', a, '--to', b, '--amount-minor', '900', '--idempotency-key', key])
    expect(replay.code).toBe(5)
    expect(replay.stderr).toMatch(/409 IDEMPOTENCY_KEY_CONFLICT/)
  })

  it('a forced settlement failure is a 207: warning on stderr, exit 6, JSON on stdout', async () => {
    await emu.control('POST', '/_emulator/fail-next-settlement', {count: 1})
    const r = await runAs(emu, 'test', ['moves', 'create', '--from', a, '--to', b, '--amount-minor', '100'])
    expect(r.code).toBe(6)
    expect(r.json().status).toBe('approved')
    expect(r.stderr).toMatch(/Warning:/)
  })

  it.each([
    ['1.234', /more than 2 decimal/],
    ['0', /zero/],
    ['-5', /negative/],
    ['abc', /not a decimal/],
    ['1e3', /not a decimal/],
  ])('rejects --amount %s before any request (exit 2)', async (amount, message) => {
    const r = await nothingSent(() => runAs(emu, 'test', ['moves', 'create', '--from', a, '--to', b, `--amount=${amount}`]))
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(message)
    expect(r.stderr).not.toMatch(/Idempotency-Key/)
  })

  it('rejects a --currency that differs from the subaccount\'s (exit 2)', async () => {
    // Refused once the source's currency is read: only that lookup is sent.
    const r = await onlyReads([lookup(a)], () => runAs(emu, 'test', ['moves', 'create', '--from', a, '--to', b, '--amount', '5', '--currency', 'JPY']))
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(/does not match/)
  })

  it('rejects bad --amount-minor, same from/to, bad metadata and both amounts (exit 2)', async () => {
    const before = await balance(b)
    const refused = async (args: string[]) => {
      const r = await nothingSent(() => runAs(emu, 'test', ['moves', 'create', ...args]))
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(2)
      expect(r.stdout).toBe('')
      return r
    }
    await refused(['--from', a, '--to', b, '--amount-minor', '12.5'])
    await refused(['--from', a, '--to', a, '--amount-minor', '100'])
    await refused(['--from', 'nope', '--to', b, '--amount-minor', '100'])
    await refused(['--from', a, '--to', b, '--amount-minor', '100', '--metadata', 'novalue'])
    const longKey = await refused(['--from', a, '--to', b, '--amount-minor', '100', '--metadata', `${'k'.repeat(41)}=v`])
    expect(longKey.stderr).toMatch(/longer than 40/)
    await refused(['--from', a, '--to', b, '--amount', '1', '--amount-minor', '100'])
    await refused(['--from', a, '--to', b])
    expect(await balance(b)).toEqual(before)
  })

  it('a subaccount of another entity is not found (exit 4)', async () => {
    const other = await createSub('Other entity', 'test_other')
    const r = await runAs(emu, 'test', ['moves', 'create', '--from', a, '--to', other, '--amount-minor', '100'])
    expect(r.code).toBe(4)
  })

  it('on a live key without a terminal it refuses (exit 3) and sends no move (only the lookups for its summary)', async () => {
    const unconfirmed = await nothingSent(() => runAs(emu, 'live', ['subaccounts', 'create', '--name', 'Live from']))
    expect(unconfirmed.code).toBe(3)
    const liveA = (await runAs(emu, 'live', ['subaccounts', 'create', '--name', 'LA', '--yes'])).json().id
    const liveB = (await runAs(emu, 'live', ['subaccounts', 'create', '--name', 'LB', '--yes'])).json().id
    // The summary it would have asked about needs the source's currency and the destination's name:
    // those two reads are sent, the move is not.
    const r = await onlyReads([lookup(liveA), lookup(liveB)], () => runAs(emu, 'live', ['moves', 'create', '--from', liveA, '--to', liveB, '--amount-minor', '100']))
    expect(r.code).toBe(3)
    expect(r.stderr).toMatch(/LIVE/)
    expect((await balance(liveB, 'live')).incoming).toBe(0)
    const yes = await runAs(emu, 'live', ['moves', 'create', '--from', liveA, '--to', liveB, '--amount-minor', '100', '--yes'])
    expect(yes.code, yes.stderr).toBe(0)
    expect((await balance(liveB, 'live')).incoming).toBe(100)
  })
})

describe('moves approve and cancel', () => {
  async function pending(amount: number): Promise<string> {
    const r = await runAs(emu, 'test', ['moves', 'create', '--from', a, '--to', b, '--amount-minor', String(amount), '--no-auto-approve'])
    expect(r.code, r.stderr).toBe(0)
    return r.json().id
  }

  it('approves several ids and reports each', async () => {
    const ids = [await pending(101), await pending(102)]
    const r = await runAs(emu, 'test', ['moves', 'approve', ...ids])
    expect(r.code, r.stderr).toBe(0)
    const report = r.json()
    expect(report.map((x: any) => x.id)).toEqual(ids)
    expect(report.every((x: any) => x.result === 'ok' && x.move.status === 'settled')).toBe(true)
    expect(report[0].move.from_subaccount_id).toBe(a)
  })

  it('reads ids from stdin with -', async () => {
    const ids = [await pending(201), await pending(202)]
    const r = await runAs(emu, 'test', ['moves', 'approve', '-'], {input: ids.join('\n') + '\n'})
    expect(r.code, r.stderr).toBe(0)
    expect(r.json().map((x: any) => x.move.status)).toEqual(['settled', 'settled'])
  })

  it('a mix of good and bad ids is exit 6 with each reported', async () => {
    const good = await pending(301)
    const r = await runAs(emu, 'test', ['moves', 'approve', good, '00000000-0000-4000-8000-000000000000', '-o', 'table'])
    expect(r.code).toBe(6)
    expect(r.stdout).toMatch(/ok/)
    expect(r.stdout).toMatch(/404 NOT_FOUND/)
  })

  it('approving a settled move again: the API refuses it "in status settled", which is reported as already settled (exit 0), nothing moved', async () => {
    const id = await pending(401)
    expect((await runAs(emu, 'test', ['moves', 'approve', id])).code).toBe(0)
    const again = await runAs(emu, 'test', ['moves', 'approve', id])
    expect(again.code, again.stderr).toBe(0)
    expect(outcomeOf(again)).toMatchObject({kind: 'replayed', id, status: 'settled'})
    const table = await runAs(emu, 'test', ['moves', 'approve', id, '-o', 'table'])
    expect(table.code, table.stderr).toBe(0)
    expect(table.stderr).toMatch(new RegExp(`Move ${id} \\(4\\.01 USD\\) is already settled\\. Nothing was moved now\\. It was settled before this request\\.`))
  })

  it('approving a canceled move stays a rejection (exit 8): it is not what was asked', async () => {
    const id = await pending(402)
    expect((await runAs(emu, 'test', ['moves', 'cancel', id])).code).toBe(0)
    const again = await runAs(emu, 'test', ['moves', 'approve', id])
    expect(again.code).toBe(8)
    expect(again.stderr).toMatch(/Could not approve .*400 VALIDATION_ERROR.*in status canceled/)
  })

  it('approve with a forced settlement failure is exit 6 (207)', async () => {
    const id = await pending(501)
    await emu.control('POST', '/_emulator/fail-next-settlement', {count: 1})
    const r = await runAs(emu, 'test', ['moves', 'approve', id])
    expect(r.code).toBe(6)
    expect(r.json()[0].result).toBe('partial')
    expect(r.stderr).toMatch(/Warning/)
  })

  it('another entity\'s move is not found (exit 4)', async () => {
    const id = await pending(601)
    expect((await runAs(emu, 'test_other', ['moves', 'approve', id])).code).toBe(4)
    expect((await runAs(emu, 'test_other', ['moves', 'cancel', id])).code).toBe(4)
  })

  it('cancel of a settled move is rejected (exit 8); no ids is exit 2', async () => {
    const id = await pending(701)
    await runAs(emu, 'test', ['moves', 'approve', id])
    expect((await runAs(emu, 'test', ['moves', 'cancel', id])).code).toBe(8)
    expect((await nothingSent(() => runAs(emu, 'test', ['moves', 'approve']))).code).toBe(2)
    expect((await nothingSent(() => runAs(emu, 'test', ['moves', 'approve', '-'], {input: '\n'}))).code).toBe(2)
  })
})
