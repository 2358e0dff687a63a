/**
 * Against the emulator's `--strict` mode: a server that does only what the spec promises, read in
 * its least generous way (no `client_metadata` in lists, minimal answers where the spec shows
 * none, 202 with an empty body, webhook creates without the secret, sandbox references ignored).
 * Nothing is sent twice without proof, and answers the spec does not show are read by their status
 * code; the ledger is read from the emulator's own store.
 */
import {afterAll, afterEach, beforeAll, beforeEach, describe, expect, it} from 'vitest'
import {errorOf, fakeClock, knownSecrets, outcomeOf, requestsDuring, runAs, startCli, startEmulator, tempDir, type Emulator, type RunOptions, type RunResult} from '../support/index.js'

let emu: Emulator
let main: string
let reserve: string
let a: string
let b: string

const strict = (on: boolean) => emu.control('POST', '/_emulator/faults', {strict: on})
const lose = (method: string, phase: 'after' | 'before' = 'after') => emu.control('POST', '/_emulator/faults', {queue: [{kind: '503', phase}], methods: [method]})
const cli = (args: string[], opts: RunOptions = {}) => runAs(emu, 'test', args, opts)
/** The argv of a `payops …` command as an error names it. */
const argvOf = (command: string) => command.split(' ').slice(1)
const entity = () => emu.store!.entityByRole('test')!
/** The ledger's account transfers of this amount. */
const transfersOf = (minor: number) => entity().accountTransfers.items.filter((t) => t.amount_in_minor_units === minor)
/** The ledger's bank lines of an account, of this amount. */
const linesOf = (account: string, minor: number) => (entity().bankTransactions.get(account)?.items ?? []).filter((l) => l.amount_in_minor_units === minor)
const createTransfer = (minor: number, ...more: string[]) => ['transfers', 'create', '--from', main, '--to', reserve, '--amount-minor', String(minor), '--currency', 'USD', '--rail', 'wire', ...more]

beforeAll(async () => {
  emu = await startEmulator()
  const accounts = (await cli(['treasury', 'accounts', 'list'])).json()
  main = accounts.find((x: any) => x.label === 'Main operating account').id
  reserve = accounts.find((x: any) => x.currency_code === 'USD' && x.id !== main).id
  a = (await cli(['subaccounts', 'create', '--name', 'Strict-A'])).json().id
  b = (await cli(['subaccounts', 'create', '--name', 'Strict-B'])).json().id
})
beforeEach(async () => {
  await strict(true)
})
afterEach(async () => {
  await emu.control('DELETE', '/_emulator/faults')
  await emu.control('POST', '/_emulator/async-transfers', {entity: 'test', enabled: false})
})
afterAll(async () => {
  await emu?.stop()
})

describe('emulator start --strict', () => {
  it('serves the least generous reading: no client_metadata in lists, 202 with an empty body; {"strict": false} turns it off, a reset returns to it', async () => {
    const started = await startEmulator(['--strict'])
    try {
      const api = (method: string, path: string, body?: unknown) =>
        fetch(started.baseUrl + path, {method, headers: {'x-api-key': started.keys.test, 'content-type': 'application/json'}, body: body === undefined ? undefined : JSON.stringify(body)})
      expect((await started.control('GET', '/_emulator/faults')).data.strict).toBe(true)
      const accounts = (await (await api('GET', '/api/treasury/accounts')).json()).data as any[]
      const [from, to] = accounts.filter((x) => x.currency_code === 'USD' && x.label !== 'Unsimulated USD account').map((x) => x.id)
      const body = {from_account_id: from, to_account_id: to, amount_in_minor_units: 901, currency_code: 'USD', rail: 'wire', client_metadata: {po: '7'}}
      expect((await api('POST', '/api/treasury/account-transfers', body)).status).toBe(201)
      const listed = async () => ((await (await api('GET', `/api/treasury/account-transfers?account_id=${from}`)).json()).data as any[]).find((t) => t.amount_in_minor_units === 901)
      expect(await listed()).not.toHaveProperty('client_metadata')
      await started.control('POST', '/_emulator/async-transfers', {entity: 'test', enabled: true, delay_ms: 60_000})
      const accepted = await api('POST', '/api/treasury/account-transfers', {...body, amount_in_minor_units: 902})
      expect(accepted.status).toBe(202)
      expect(await accepted.text()).toBe('')
      await started.control('POST', '/_emulator/faults', {strict: false})
      expect((await listed()).client_metadata).toEqual({po: '7'})
      await started.control('DELETE', '/_emulator/faults')
      expect((await started.control('GET', '/_emulator/faults')).data.strict).toBe(true)
      expect(await listed()).not.toHaveProperty('client_metadata')
    } finally {
      expect(await started.stop()).toBe(0)
    }
  })
})

describe('nothing is sent twice without proof (--strict)', () => {
  it('a transfer whose answer was lost: the named re-run sends nothing while the list shows one that could be it (exit 7, naming it); the ledger holds one', async () => {
    await lose('POST')
    const r = await cli([...createTransfer(4201, '--idempotency-key', 'strict-4201'), '-o', 'json'], {clock: fakeClock()})
    expect(r.code, r.stderr).toBe(7)
    expect(transfersOf(4201)).toHaveLength(1)
    const settle = errorOf(r).settle as string
    expect(settle).toContain('--idempotency-key strict-4201')
    const {result: again, sent} = await requestsDuring(emu, () => cli([...argvOf(settle), '-o', 'table']))
    expect(again.code, again.stderr).toBe(7)
    expect(sent.filter((s) => s.startsWith('POST'))).toEqual([])
    expect(again.stderr).toContain(`Candidates: transfer ${transfersOf(4201)[0].id}: 42.01 USD ${main} → ${reserve} by wire`)
    expect(again.stderr).toContain(`${settle} --send-anyway`)
    expect(transfersOf(4201)).toHaveLength(1)
    // The suggestion of the refusal reads, and sends nothing.
    expect(errorOf(await cli([...argvOf(settle), '-o', 'json'])).settle).toMatch(/^payops transfers list --account \S+ --created-at-gte \S+ -o json$/)

    const anyway = await cli([...argvOf(settle), '--send-anyway', '-o', 'table'])
    expect(anyway.code, anyway.stderr).toBe(0)
    expect(anyway.stderr).toMatch(/Sent anyway \(--send-anyway\): if the earlier attempt with Idempotency-Key strict-4201, whose answer was lost, took effect, this is a second account transfer\./)
    expect(transfersOf(4201)).toHaveLength(2)
  })

  it('payops api on the transfer route: the re-run after a lost answer is refused the same way (exit 7, nothing sent) and --send-anyway sends it; elsewhere the flag is refused before sending', async () => {
    const argv = ['api', 'POST', '/api/treasury/account-transfers', '-f', `from_account_id=${main}`, '-f', `to_account_id=${reserve}`, '-F', 'amount_in_minor_units=4209', '-f', 'currency_code=USD', '-f', 'rail=wire', '-H', 'Idempotency-Key: strict-4209']
    await lose('POST')
    const r = await cli([...argv, '-o', 'json'], {clock: fakeClock()})
    expect(r.code, r.stderr).toBe(7)
    expect(transfersOf(4209)).toHaveLength(1)
    const {result: again, sent} = await requestsDuring(emu, () => cli([...argv, '-o', 'json']))
    expect(again.code, again.stderr).toBe(7)
    expect(sent.filter((s) => s.startsWith('POST'))).toEqual([])
    expect(again.stderr).toContain('--send-anyway')
    expect(transfersOf(4209)).toHaveLength(1)
    const anyway = await cli([...argv, '--send-anyway', '-o', 'json'])
    expect(anyway.code, anyway.stderr).toBe(0)
    expect(transfersOf(4209)).toHaveLength(2)
    const {result: misplaced, sent: none} = await requestsDuring(emu, () => cli(['api', 'GET', '/api/treasury/accounts', '--send-anyway']))
    expect(misplaced.code).toBe(2)
    expect(misplaced.stderr).toMatch(/--send-anyway goes with an account transfer or simulated credit create/)
    expect(none).toEqual([])
  })

  it('a lost answer where nothing was made: the re-run finds no transfer that could be it and sends once', async () => {
    await lose('POST', 'before')
    const r = await cli([...createTransfer(4202, '--idempotency-key', 'strict-4202'), '-o', 'json'], {clock: fakeClock()})
    expect(r.code, r.stderr).toBe(7)
    const again = await cli([...argvOf(errorOf(r).settle), '-o', 'json'])
    expect(again.code, again.stderr).toBe(0)
    expect(outcomeOf(again)).toMatchObject({kind: 'created', id: transfersOf(4202)[0].id})
    expect(transfersOf(4202)).toHaveLength(1)
  })

  it('a transfer answered earlier is replayed from this machine\'s trail and not sent again, though the list shows no key', async () => {
    const first = await cli([...createTransfer(4203, '--idempotency-key', 'strict-4203'), '-o', 'json'])
    expect(first.code, first.stderr).toBe(0)
    const {result: again, sent} = await requestsDuring(emu, () => cli([...createTransfer(4203, '--idempotency-key', 'strict-4203'), '-o', 'json']))
    expect(again.code, again.stderr).toBe(0)
    expect(sent.filter((s) => s.startsWith('POST'))).toEqual([])
    expect(outcomeOf(again)).toMatchObject({kind: 'replayed', id: first.json().id})
    expect(transfersOf(4203)).toHaveLength(1)
  })

  it('a list that cannot be read proves nothing: the re-run after a lost answer is exit 7 and sends nothing', async () => {
    await lose('POST')
    const r = await cli([...createTransfer(4204, '--idempotency-key', 'strict-4204'), '-o', 'json'], {clock: fakeClock()})
    expect(r.code, r.stderr).toBe(7)
    // The account lookup of the plan goes through (a latency of 0); every read of the transfer list fails.
    await emu.control('POST', '/_emulator/faults', {latency_ms: 0, queue: [{kind: 'latency'}, ...Array.from({length: 6}, () => ({kind: '500', phase: 'before'}))], methods: ['GET']})
    const {result: again, sent} = await requestsDuring(emu, () => cli([...argvOf(errorOf(r).settle), '-o', 'json'], {clock: fakeClock()}))
    expect(again.code, again.stderr).toBe(7)
    expect(sent.filter((s) => s.startsWith('POST'))).toEqual([])
    expect(errorOf(again).message).toMatch(/the list could not be read to its end \(reading it failed: /)
    expect(transfersOf(4204)).toHaveLength(1)
  })

  it('a simulated credit whose answer was lost is not credited again by the named re-run while the account shows a credit that could be it', async () => {
    await lose('POST')
    const r = await cli(['treasury', 'simulate-credit', main, '--rail', 'wire', '--amount-minor', '4205', '--sender-info', 'Strict', '-o', 'json'], {clock: fakeClock()})
    expect(r.code, r.stderr).toBe(7)
    expect(linesOf(main, 4205)).toHaveLength(1)
    const {result: again, sent} = await requestsDuring(emu, () => cli([...argvOf(errorOf(r).settle), '-o', 'json']))
    expect(again.code, again.stderr).toBe(7)
    expect(sent.filter((s) => s.startsWith('POST'))).toEqual([])
    expect(errorOf(again).message).toContain(`Candidates: bank line ${linesOf(main, 4205)[0].id}: 42.05 USD credit`)
    expect(linesOf(main, 4205)).toHaveLength(1)
  })
})

describe('answers the spec does not show (--strict)', () => {
  const pendingMove = async (minor: number) => {
    const r = await cli(['moves', 'create', '--from', a, '--to', b, '--amount-minor', String(minor), '--no-auto-approve', '-o', 'json'])
    expect(r.code, r.stderr).toBe(0)
    return r.json().id as string
  }

  it('moves approve answered {}: settled by its 201, with the amount this machine recorded; nothing says undefined', async () => {
    const id = await pendingMove(4301)
    const r = await cli(['moves', 'approve', id, '-o', 'table'])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stderr).toContain(`Approved move ${id} (43.01 USD Strict-A (${a.slice(0, 8)}…) → Strict-B (${b.slice(0, 8)}…)): settled now.`)
    expect(r.stdout + r.stderr).not.toMatch(/undefined/)
    expect(entity().moves.get(id)!.status).toBe('settled')
    const json = await cli(['moves', 'approve', await pendingMove(4302), '-o', 'json'])
    expect(outcomeOf(json)).toMatchObject({kind: 'advanced', status: 'settled'})
  })

  it('moves cancel and transfers approve answered without a body: canceled, approved', async () => {
    const id = await pendingMove(4303)
    const cancel = await cli(['moves', 'cancel', id, '-o', 'json'])
    expect(cancel.code, cancel.stderr).toBe(0)
    expect(outcomeOf(cancel)).toMatchObject({id, status: 'canceled'})
    const made = await cli([...createTransfer(4304, '--no-auto-approve'), '-o', 'json'])
    expect(made.code, made.stderr).toBe(0)
    const approve = await cli(['transfers', 'approve', made.json().id, '-o', 'table'])
    expect(approve.code, approve.stderr).toBe(0)
    expect(approve.stderr).toMatch(new RegExp(`Approved account transfer ${made.json().id} \\(43\\.04 USD .*\\): now approved, queued for initiation\\.`))
    expect(approve.stdout + approve.stderr).not.toMatch(/undefined/)
    expect(transfersOf(4304)[0].status).toBe('approved')
  })

  it('a 202 Accepted without a body is "accepted, not yet listed" (never an empty id); --wait follows it through the list', async () => {
    await emu.control('POST', '/_emulator/async-transfers', {entity: 'test', enabled: true, delay_ms: 60_000})
    const r = await cli([...createTransfer(4305), '-o', 'json'])
    expect(r.code, r.stderr).toBe(0)
    expect(outcomeOf(r)).toMatchObject({kind: 'created', id: null})
    expect(r.stdout + r.stderr).not.toMatch(/undefined|"id":""/)
    const table = await cli([...createTransfer(4306), '-o', 'table'])
    expect(table.code, table.stderr).toBe(0)
    expect(table.stderr).toMatch(/Account transfer accepted: 43\.06 USD .* by wire; the answer named no transfer, so its id and state are unknown until the transfer list shows it/)

    await emu.control('POST', '/_emulator/async-transfers', {entity: 'test', enabled: true, delay_ms: 10})
    const wait = await cli([...createTransfer(4307, '--wait', '--poll-interval', '50', '--wait-timeout', '20'), '-o', 'json'])
    expect(wait.code, wait.stderr).toBe(0)
    const [t] = transfersOf(4307)
    expect(outcomeOf(wait)).toMatchObject({kind: 'created', id: t.id, status: 'settled'})
    expect(t.status).toBe('settled')
  })

  it('webhooks create answered without a secret: the endpoint is named and the way to a secret given', async () => {
    const r = await cli(['webhooks', 'create', '--url', 'https://example.com/strict', '--event-types', 'payin.settled', '-o', 'table'])
    expect(r.code, r.stderr).toBe(0)
    const [hook] = entity().webhooks.items.filter((w) => w.url === 'https://example.com/strict')
    expect(r.stderr).toContain(`Webhook endpoint ${hook.id} was created, but the API's answer carried no signing secret`)
    expect(r.stderr).toContain(`payops webhooks rotate-secret ${hook.id}`)
    expect(r.stdout + r.stderr).not.toMatch(/undefined/)
  })

  it('treasury accounts balance with only the current balance: shown, the rest unknown, nothing says undefined', async () => {
    const r = await cli(['treasury', 'accounts', 'balance', main, '-o', 'json'])
    expect(r.code, r.stderr).toBe(0)
    expect(r.json()).toMatchObject({currency_code: 'USD'})
    expect(typeof r.json().current_balance_in_minor_units).toBe('number')
    const table = await cli(['treasury', 'accounts', 'balance', main])
    expect(table.code, table.stderr).toBe(0)
    expect(table.stdout + table.stderr).not.toMatch(/undefined/)
  })
})

describe('webhook endpoints created without a secret in the answer (--strict)', () => {
  it('rotate-secret names the twin and the way to a secret, and keeps the old endpoint', async () => {
    const dir = tempDir()
    try {
      await strict(false)
      const made = await cli(['webhooks', 'create', '--url', 'https://example.com/strict-rotate', '--event-types', 'payin.settled', '-o', 'json'], {allowSecrets: true})
      expect(made.code, made.stderr).toBe(0)
      knownSecrets.add(made.json().secret)
      await strict(true)
      const r = await cli(['webhooks', 'rotate-secret', made.json().id, '-o', 'json'], {configDir: dir.path})
      expect(r.code, r.stderr).toBe(0)
      expect(r.json()).toMatchObject({old_id: made.json().id, secret: null, old_deleted: false})
      expect(r.stderr).toContain(`Webhook endpoint ${r.json().new_id} was created, but the API's answer carried no signing secret`)
      expect(r.stdout + r.stderr).not.toMatch(/undefined/)
    } finally {
      dir.cleanup()
    }
  })

  it('listen --register cannot verify deliveries without it: it deletes the endpoint again and stops, saying why', async () => {
    const dir = tempDir()
    try {
      const before = entity().webhooks.items.length
      const listener = startCli(['webhooks', 'listen', '--port', '0', '--register'], {configDir: dir.path, env: {PAYOPS_BASE_URL: emu.baseUrl, PAYOPS_API_KEY: emu.keys.test}})
      const r = await listener.done
      expect(r.code).not.toBe(0)
      expect(r.stderr).toMatch(/but the API's answer carried no signing secret, .* This listener cannot verify deliveries without it, so endpoint \S+ was deleted again/)
      expect(entity().webhooks.items.length).toBe(before)
    } finally {
      dir.cleanup()
    }
  })
})
