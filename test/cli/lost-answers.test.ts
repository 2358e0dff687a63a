/**
 * Answers lost after the server acted (the emulator's fault queue, phase `after`), against an
 * emulator that honours Idempotency-Key only where the spec promises it (move create). Only a move
 * create is sent again; every other money request is not, and payops finds out instead: the ledger
 * (the transfer list, the bank lines, the subaccount totals) must show each movement made once, and
 * what payops says must be true of it.
 */
import {afterAll, afterEach, beforeAll, describe, expect, it} from 'vitest'
import {errorOf, fakeClock, outcomeOf, requestsDuring, runAs, steppedClock, startEmulator, type Emulator, type RunResult} from '../support/index.js'

let emu: Emulator
let main: string
let reserve: string
let inr: string
let a: string
let b: string

const faults = (cfg: Record<string, unknown>) => emu.control('POST', '/_emulator/faults', cfg)
const lose = (method: string, kind = '503') => faults({queue: [{kind, phase: 'after'}], methods: [method]})
/** The test entity's transfers that carry this key in client_metadata. */
const transfersWithKey = async (key: string) =>
  ((await runAs(emu, 'test', ['transfers', 'list', '--account', main, '--all', '-o', 'json'])).json() as any[]).filter((t) => t.client_metadata?.payops_idempotency_key === key)
/** The bank lines of an account, of this amount. */
const linesOf = async (account: string, minor: number) =>
  ((await runAs(emu, 'test', ['treasury', 'transactions', 'list', account, '--all', '-o', 'json'])).json() as any[]).filter((l) => l.amount_in_minor_units === minor)
const incoming = async (id: string) => (await runAs(emu, 'test', ['subaccounts', 'get', id])).json().total_incoming_in_minor_units as number
/** The argv of a `payops …` command as the error names it (no quoted arguments in these). */
const argvOf = (command: string) => {
  expect(command).not.toMatch(/'/)
  return command.split(' ').slice(1)
}

beforeAll(async () => {
  emu = await startEmulator()
  const accounts = (await runAs(emu, 'test', ['treasury', 'accounts', 'list'])).json()
  main = accounts.find((x: any) => x.label === 'Main operating account').id
  reserve = accounts.find((x: any) => x.currency_code === 'USD' && x.id !== main).id
  inr = accounts.find((x: any) => x.currency_code === 'INR').id
  a = (await runAs(emu, 'test', ['subaccounts', 'create', '--name', 'Lost-A'])).json().id
  b = (await runAs(emu, 'test', ['subaccounts', 'create', '--name', 'Lost-B'])).json().id
})
afterEach(async () => {
  await emu.control('DELETE', '/_emulator/faults')
})
afterAll(async () => {
  await emu?.stop()
})

describe('transfers create whose answer is lost', () => {
  it('is sent once, found in the list by its key, and reported once as made by this run (exit 0)', async () => {
    await lose('POST')
    const {result: r, sent} = await requestsDuring(emu, () =>
      runAs(emu, 'test', ['transfers', 'create', '--from', main, '--to', reserve, '--amount-minor', '4101', '--currency', 'USD', '--rail', 'wire', '-o', 'json'], {clock: fakeClock()}),
    )
    expect(r.code, r.stderr).toBe(0)
    expect(sent.filter((s) => s === 'POST /api/treasury/account-transfers')).toHaveLength(1)
    const outcome = outcomeOf(r)
    expect(outcome).toMatchObject({kind: 'created', id: r.json().id})
    const listed = await transfersWithKey(outcome.idempotency_key!)
    // The ledger: exactly one transfer carries this run's key, the one reported.
    expect(listed.map((t) => t.id)).toEqual([outcome.id])
    expect(listed[0]).toMatchObject({amount_in_minor_units: 4101, to_account_id: reserve})
  })

  it('a reset after the commit too; the sentence says the answer was lost and the list showed it', async () => {
    await lose('POST', 'reset')
    const r = await runAs(emu, 'test', ['transfers', 'create', '--from', main, '--to', reserve, '--amount-minor', '4102', '--currency', 'USD', '--rail', 'wire', '--idempotency-key', 'lost-reset-4102', '-o', 'table'], {
      clock: fakeClock(),
    })
    expect(r.code, r.stderr).toBe(0)
    expect(r.stderr).toMatch(/Created account transfer \S+: 41\.02 USD .* The answer was lost; it was not sent again, and the account transfer list shows it with this request's key lost-reset-4102: it was made once, by this run\./)
    expect(await transfersWithKey('lost-reset-4102')).toHaveLength(1)
  })

  it('not in the list: exit 7 naming the commands that find out; re-running the named one makes it once', async () => {
    // A 503 before the handler: nothing was made, and nothing shows in the list.
    await faults({queue: [{kind: '503', phase: 'before'}], methods: ['POST']})
    const r = await runAs(emu, 'test', ['transfers', 'create', '--from', main, '--to', reserve, '--amount-minor', '4103', '--currency', 'USD', '--rail', 'wire', '--idempotency-key', 'lost-none-4103', '-o', 'json'], {
      clock: fakeClock(),
    })
    expect(r.code, r.stderr).toBe(7)
    const error = errorOf(r)
    expect(error).toMatchObject({type: 'OutcomeUnknownError', exit_code: 7, kind: 'unknown', status: 503})
    expect(error.message).toMatch(/It is unknown whether the account transfer was made: it was not sent again .* not \(yet\) in the transfer list/)
    expect(error.message).toContain(`payops transfers list --account ${main} --created-at-gte `)
    expect(error.settle).toBe(`payops transfers create --from ${main} --to ${reserve} --amount-minor 4103 --currency USD --rail wire --idempotency-key lost-none-4103`)
    expect(await transfersWithKey('lost-none-4103')).toHaveLength(0)
    const again = await runAs(emu, 'test', [...argvOf(error.settle), '-o', 'json'])
    expect(again.code, again.stderr).toBe(0)
    expect(outcomeOf(again)).toMatchObject({kind: 'created'})
    const third = await runAs(emu, 'test', [...argvOf(error.settle), '-o', 'json'])
    expect(third.code, third.stderr).toBe(0)
    expect(outcomeOf(third)).toMatchObject({kind: 'replayed', id: again.json().id})
    expect(await transfersWithKey('lost-none-4103')).toHaveLength(1)
  })

  it('the emulator honours no key on a transfer create: a repeated key makes another transfer', async () => {
    const body = {from_account_id: main, to_account_id: reserve, amount_in_minor_units: 4104, currency_code: 'USD', rail: 'wire'}
    const post = () =>
      fetch(`${emu.baseUrl}/api/treasury/account-transfers`, {method: 'POST', headers: {'content-type': 'application/json', 'x-api-key': emu.keys.test, 'idempotency-key': 'raw-4104'}, body: JSON.stringify(body)})
    const one = await post()
    const two = await post()
    expect([one.status, two.status]).toEqual([201, 201])
    expect((await one.json()).data.id).not.toBe((await two.json()).data.id)
  })
})

describe('treasury simulate-credit whose answer is lost', () => {
  it('is not sent again: exit 7 naming the same request; re-running it sends nothing while the account shows a credit that could be it (exit 7, naming it)', async () => {
    await lose('POST')
    const {result: r, sent} = await requestsDuring(emu, () => runAs(emu, 'test', ['treasury', 'simulate-credit', main, '--rail', 'wire', '--amount-minor', '777', '--sender-info', 'Lost', '-o', 'json'], {clock: fakeClock()}))
    expect(r.code, r.stderr).toBe(7)
    expect(sent.filter((s) => s.endsWith('/simulate-inbound-credit'))).toHaveLength(1)
    const error = errorOf(r)
    expect(error.message).toMatch(/It is unknown whether the account was credited: the credit was not sent again/)
    expect(error.settle).toMatch(new RegExp(`^payops treasury simulate-credit ${main} --rail wire --amount-minor 777 --sender-info Lost --transaction-date \\d{4}-\\d{2}-\\d{2} --idempotency-key [0-9a-f-]{36}$`))
    expect(error.message).toContain(error.settle)
    expect(await linesOf(main, 777)).toHaveLength(1)

    const [line] = await linesOf(main, 777)
    const {result: again, sent: resent} = await requestsDuring(emu, () => runAs(emu, 'test', [...argvOf(error.settle), '-o', 'table']))
    expect(again.code, again.stderr).toBe(7)
    expect(resent.filter((s) => s.startsWith('POST'))).toEqual([])
    expect(again.stderr).toMatch(/Not sent: this machine sent the same simulated credit with Idempotency-Key \S+ at \S+ and its answer was lost; a bank line carries nothing that ties it to a request/)
    expect(again.stderr).toContain(`Candidates: bank line ${line.id}: 7.77 USD credit`)
    expect(again.stderr).toContain(`${error.settle} --send-anyway`)
    expect(await linesOf(main, 777)).toHaveLength(1)
  })

  it('a reference used for another credit stays a conflict (exit 5), nothing credited', async () => {
    const first = await runAs(emu, 'test', ['treasury', 'simulate-credit', main, '--rail', 'wire', '--amount-minor', '778', '--idempotency-key', 'ref-778', '-o', 'json'])
    expect(first.code, first.stderr).toBe(0)
    // The same reference again, even with the same body: the emulator does not replay a credit.
    const same = await runAs(emu, 'test', ['treasury', 'simulate-credit', main, '--rail', 'wire', '--amount-minor', '778', '--idempotency-key', 'ref-778', '-o', 'json'])
    expect(same.code, same.stderr).toBe(0)
    expect(outcomeOf(same)).toMatchObject({kind: 'replayed', id: first.json().bank_transaction_id})
    const other = await runAs(emu, 'test', ['treasury', 'simulate-credit', main, '--rail', 'wire', '--amount-minor', '779', '--idempotency-key', 'ref-778', '-o', 'json'])
    expect(other.code, other.stderr).toBe(5)
    expect(errorOf(other)).toMatchObject({status: 409, error_code: 'DUPLICATE_SANDBOX_REFERENCE'})
    expect(await linesOf(main, 778)).toHaveLength(1)
    expect(await linesOf(main, 779)).toHaveLength(0)
  })
})

describe('moves cancel and approve whose answer is lost', () => {
  const pendingMove = async (minor: number) => {
    const r = await runAs(emu, 'test', ['moves', 'create', '--from', a, '--to', b, '--amount-minor', String(minor), '--no-auto-approve', '-o', 'json'])
    expect(r.code, r.stderr).toBe(0)
    return r.json().id as string
  }

  it('a cancel is not sent again (exit 7 naming the command); the re-run says it was already canceled (exit 0)', async () => {
    const id = await pendingMove(611)
    await lose('DELETE')
    const {result: r, sent} = await requestsDuring(emu, () => runAs(emu, 'test', ['moves', 'cancel', id, '-o', 'json'], {clock: fakeClock()}))
    expect(r.code, r.stderr).toBe(7)
    expect(sent).toEqual([`DELETE /api/subaccounts/move/${id}`])
    expect(errorOf(r)).toMatchObject({settle: `payops moves cancel ${id}`, status: 503})
    expect(errorOf(r).message).toMatch(new RegExp(`It is unknown whether move ${id} was canceled; it was not sent again\\. Find out with: payops moves cancel ${id}`))

    const json = await runAs(emu, 'test', ['moves', 'cancel', id, '-o', 'json'])
    expect(json.code, json.stderr).toBe(0)
    expect(outcomeOf(json)).toMatchObject({kind: 'replayed', id, status: 'canceled'})
    const table = await runAs(emu, 'test', ['moves', 'cancel', id, '-o', 'table'])
    expect(table.code, table.stderr).toBe(0)
    expect(table.stderr).toMatch(
      new RegExp(`Move ${id} \\(6\\.11 USD\\) is already canceled: it will not move money\\. Nothing was changed now\\. The cancel this machine sent at \\S+ \\S+ lost its answer; it took effect, unless another request canceled the move first\\.`),
    )
    // Nothing else changed: the move cannot be approved any more, and B received nothing.
    const approve = await runAs(emu, 'test', ['moves', 'approve', id])
    expect(approve.code).toBe(8)
  })

  it('a cancel of a move canceled elsewhere says so without claiming this machine did it', async () => {
    const id = await pendingMove(612)
    const direct = await fetch(`${emu.baseUrl}/api/subaccounts/move/${id}`, {method: 'DELETE', headers: {'x-api-key': emu.keys.test}})
    expect(direct.status).toBe(200)
    const r = await runAs(emu, 'test', ['moves', 'cancel', id, '-o', 'table'])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stderr).toMatch(new RegExp(`Move ${id} \\(6\\.12 USD\\) is already canceled: it will not move money\\. Nothing was changed now\\. It was canceled before this request\\.`))
    expect(r.stderr).not.toMatch(/this machine sent/)
  })

  it('an approve is not sent again (exit 7), the money moved once, and the re-run says it was already settled (exit 0)', async () => {
    const id = await pendingMove(613)
    const before = await incoming(b)
    await lose('POST')
    const {result: r, sent} = await requestsDuring(emu, () => runAs(emu, 'test', ['moves', 'approve', id, '-o', 'json'], {clock: fakeClock()}))
    expect(r.code, r.stderr).toBe(7)
    expect(sent).toEqual([`POST /api/subaccounts/move/${id}/approve`])
    expect(r.stderr).toContain(`Find out with: payops moves approve ${id}`)
    expect(await incoming(b)).toBe(before + 613)

    const again = await runAs(emu, 'test', ['moves', 'approve', id, '-o', 'table'])
    expect(again.code, again.stderr).toBe(0)
    expect(again.stderr).toMatch(new RegExp(`Move ${id} \\(6\\.13 USD\\) is already settled\\. Nothing was moved now\\. The approve this machine sent at \\S+ \\S+ lost its answer; it took effect, unless another request settled the move first\\.`))
    expect(await incoming(b)).toBe(before + 613)
  })

  it('a refusal in another state stays what it is: a cancel of a settled move is exit 8', async () => {
    const id = await pendingMove(614)
    expect((await runAs(emu, 'test', ['moves', 'approve', id])).code).toBe(0)
    const r = await runAs(emu, 'test', ['moves', 'cancel', id])
    expect(r.code).toBe(8)
    expect(r.stderr).toMatch(/cannot be canceled in status settled/)
  })

  it('a transfer approve whose answer is lost is not sent again; the re-run says it was already approved', async () => {
    const t = (await runAs(emu, 'test', ['transfers', 'create', '--from', main, '--to', reserve, '--amount-minor', '615', '--currency', 'USD', '--rail', 'wire', '--no-auto-approve', '-o', 'json'])).json()
    await lose('POST')
    const {result: r, sent} = await requestsDuring(emu, () => runAs(emu, 'test', ['transfers', 'approve', t.id, '-o', 'json'], {clock: fakeClock()}))
    expect(r.code, r.stderr).toBe(7)
    expect(sent).toEqual([`POST /api/treasury/account-transfers/${t.id}/approve`])
    const again = await runAs(emu, 'test', ['transfers', 'approve', t.id, '-o', 'json'])
    expect(again.code, again.stderr).toBe(0)
    expect(outcomeOf(again)).toMatchObject({kind: 'replayed', id: t.id, status: 'approved'})
  })
})

describe('other writes are not re-sent after an answer that may come after the commit', () => {
  it('`payops api POST` outside move create, even with an Idempotency-Key header: one request', async () => {
    await lose('POST')
    const {result: r, sent} = await requestsDuring(emu, () => runAs(emu, 'test', ['api', 'POST', '/api/subaccounts', '-f', 'name=Once', '-H', 'Idempotency-Key: once-1'], {clock: fakeClock()}))
    expect(r.code).toBe(1)
    expect(sent).toEqual(['POST /api/subaccounts'])
  })

  it('a webhook endpoint create: one request', async () => {
    await lose('POST', '502')
    const {result: r, sent} = await requestsDuring(emu, () =>
      runAs(emu, 'test', ['webhooks', 'create', '--url', 'https://example.com/once', '--event-types', 'payin.settled'], {clock: fakeClock()}),
    )
    expect(r.code).toBe(1)
    expect(sent).toEqual(['POST /api/webhooks'])
  })
})

describe('a move create is still re-sent with its key (the spec promises it)', () => {
  it('a 503 after the commit: re-sent once, one move, created by this run', async () => {
    const before = await incoming(b)
    await lose('POST')
    const {result: r, sent} = await requestsDuring(emu, () => runAs(emu, 'test', ['moves', 'create', '--from', a, '--to', b, '--amount-minor', '616', '-o', 'json'], {clock: fakeClock()}))
    expect(r.code, r.stderr).toBe(0)
    expect(sent.filter((s) => s === 'POST /api/subaccounts/move')).toHaveLength(2)
    expect(outcomeOf(r)).toMatchObject({kind: 'created'})
    expect(await incoming(b)).toBe(before + 616)
  })
})


describe('transfers create --wait with async initiation (case 9)', () => {
  const setAsync = (enabled: boolean) => emu.control('POST', '/_emulator/async-transfers', {entity: 'test', enabled, delay_ms: 60_000})

  async function waitedFor(minor: number, output: string): Promise<RunResult> {
    const clock = steppedClock()
    const pending = runAs(emu, 'test', ['transfers', 'create', '--from', main, '--to', inr, '--amount-minor', String(minor), '--currency', 'USD', '--rail', 'wire', '--wait', '--poll-interval', '200', '-o', output], {clock})
    await clock.asleep()
    const listed = (await runAs(emu, 'test', ['transfers', 'list', '--account', inr, '--status', 'approved', '--amount-minor-gte', String(minor), '--amount-minor-lte', String(minor)])).json()
    expect(listed).toHaveLength(1)
    await emu.control('POST', `/_emulator/transfers/${listed[0].id}/advance`, {status: 'settled'})
    clock.wake()
    return pending
  }

  it('the table, the sentence and the JSON outcome all tell the final state', async () => {
    await setAsync(true)
    try {
      const json = await waitedFor(617, 'json')
      expect(json.code, json.stderr).toBe(0)
      expect(json.json().status).toBe('settled')
      expect(outcomeOf(json)).toMatchObject({kind: 'created', id: json.json().id, status: 'settled'})

      const table = await waitedFor(618, 'table')
      expect(table.code, table.stderr).toBe(0)
      expect(table.stdout).toMatch(/settled/)
      expect(table.stdout).not.toMatch(/approved/)
      expect(table.stderr).toMatch(/Created account transfer \S+: 6\.18 USD .*, settled\./)
      expect(table.stderr).not.toMatch(/queued for initiation/)
    } finally {
      await setAsync(false)
    }
  })
})
