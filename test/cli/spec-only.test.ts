/**
 * Against a server that does only what the spec promises, read in its least generous way: the
 * emulator with its spec-only switches on (`has_more_without_cursor`, `webhook_timestamps: "iso"`,
 * or `strict` for both), and answers the spec allows that the emulator does not make on its own
 * (a currency not named, a transfer in a currency other than its account's, values added to an
 * enum later), set up in its store. Class by class: lists are complete or say they are not;
 * amounts are read in the currency their resource names; days are the spec's days; webhooks are
 * read as the spec writes them; values added later never crash a listing or count as money moved.
 */
import {createServer, type IncomingMessage, type Server} from 'node:http'
import type {AddressInfo} from 'node:net'
import {rmSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, beforeEach, describe, expect, it} from 'vitest'
import {expectOnlyRequests, fakeClock, knownSecrets, listeningUrl, runAs, startCli, startEmulator, tempDir, until, type Emulator, type RunOptions, type RunningCli} from '../support/index.js'

let emu: Emulator
const dir = tempDir()
let main: string
let reserve: string
let sub: string

const cli = (args: string[], opts: RunOptions = {}) => runAs(emu, 'test', args, {configDir: dir.path, ...opts})
const entity = () => emu.store!.entityByRole('test')!
const switches = (body: Record<string, unknown>) => emu.control('POST', '/_emulator/faults', body)

/** `n` bank lines on the account, dated `date`, straight into the emulator's books. */
function bankLines(account: string, n: number, date: string): void {
  for (let i = 0; i < n; i++) {
    emu.store!.treasury.addBankTransaction(entity(), account, {amount_in_minor_units: 100 + i, currency_code: 'USD', description: `LINE ${i}`, direction: 'credit', transaction_date: date})
  }
}

beforeAll(async () => {
  emu = await startEmulator()
})
beforeEach(async () => {
  await emu.reset()
  const accounts = (await cli(['treasury', 'accounts', 'list', '-o', 'json'])).json() as Array<{id: string; label: string; currency_code: string}>
  main = accounts.find((a) => a.label === 'Main operating account')!.id
  reserve = accounts.find((a) => a.currency_code === 'USD' && a.id !== main)!.id
  sub = (await cli(['subaccounts', 'create', '--name', 'Spec float', '-o', 'json'])).json().id
})
afterAll(async () => {
  await emu?.stop()
  dir.cleanup()
})

describe('the emulator as a spec-only server', () => {
  it('has_more without a cursor and ISO 8601 webhook timestamps are switches of their own, both on under strict, off again on DELETE', async () => {
    const state = async () => (await emu.control<{data: Record<string, unknown>}>('GET', '/_emulator/faults')).data
    expect(await state()).toMatchObject({strict: false, has_more_without_cursor: false, webhook_timestamps: 'unix'})
    await switches({has_more_without_cursor: true})
    expect(await state()).toMatchObject({strict: false, has_more_without_cursor: true, webhook_timestamps: 'unix'})
    const page = await fetch(`${emu.baseUrl}/api/subaccounts/${sub}/activity?limit=1`, {headers: {'x-api-key': emu.keys.test}})
    expect(await page.json()).toMatchObject({data: [], has_more: false})
    await switches({has_more_without_cursor: false, webhook_timestamps: 'iso'})
    expect(await state()).toMatchObject({has_more_without_cursor: false, webhook_timestamps: 'iso'})
    await emu.control('DELETE', '/_emulator/faults')
    await switches({strict: true})
    expect(await state()).toMatchObject({strict: true, has_more_without_cursor: true, webhook_timestamps: 'iso'})
    await emu.control('DELETE', '/_emulator/faults')
    expect(await state()).toMatchObject({strict: false, has_more_without_cursor: false, webhook_timestamps: 'unix'})
  })
})

describe('lists are complete or say they are not', () => {
  it('a list read with --all stops non-zero when the server says has_more without a cursor, after the items it could read', async () => {
    for (const amount of ['1.00', '2.00']) expect((await cli(['treasury', 'simulate-credit', main, '--rail', 'wire', '--amount', amount, '--subaccount', sub])).code).toBe(0)
    await switches({has_more_without_cursor: true})
    const r = await cli(['subaccounts', 'activity', sub, '--all', '--limit', '1', '-o', 'ndjson'])
    expect(r.code, r.stderr).toBe(1)
    expect(r.stdout.trim().split('\n')).toHaveLength(1)
    expect(r.stderr).toMatch(/The list is incomplete: the server answered has_more: true without a next_cursor after 1 item/)
    // One page, on a terminal: it says the page is not the whole list.
    const one = await cli(['subaccounts', 'activity', sub, '--limit', '1'], {tty: true})
    expect(one.code, one.stderr).toBe(0)
    expect(one.stderr).toMatch(/More items exist, but the server gave no next_cursor/)
  })

  it('a statement, a reconciliation and a cash position are refused, never shown from part of a list', async () => {
    bankLines(main, 501, '2026-10-05')
    const statement = await cli(['report', 'statement', '--account', main, '--month', '2026-10', '-o', 'json'])
    expect(statement.code, statement.stderr).toBe(0)
    await switches({strict: true})
    const partial = await cli(['report', 'statement', '--account', main, '--month', '2026-10', '-o', 'json'])
    expect(partial.code).toBe(1)
    expect(partial.stdout).toBe('')
    expect(partial.stderr).toMatch(/The list is incomplete/)
    const rec = await cli(['reconcile', main, '--from', '2026-10-01', '--to', '2026-10-31', '-o', 'json'])
    expect(rec.code).toBe(1)
    expect(rec.stdout).toBe('')
    expect(rec.stderr).toMatch(/The list is incomplete/)

    for (let i = 0; i < 501; i++) emu.store!.transfers.create(entity(), {from_account_id: main, to_account_id: reserve, amount_in_minor_units: 100, currency_code: 'USD', rail: 'wire'})
    const position = await cli(['position', '-o', 'json'])
    expect(position.code).toBe(1)
    expect(position.stdout).toBe('')
    expect(position.stderr).toMatch(/The list is incomplete/)
  })

  it('a transfer re-run with its key is not sent again when the list it is looked for in cannot be read whole', async () => {
    const key = `spec-only-${Date.now()}`
    const args = ['transfers', 'create', '--from', main, '--to', reserve, '--amount', '3.00', '--currency', 'USD', '--rail', 'wire', '--idempotency-key', key]
    const first = await cli(args)
    expect(first.code, first.stderr).toBe(0)
    // 500 newer transfers of the account: the first page (newest first) does not hold the key's.
    for (let i = 0; i < 500; i++) emu.store!.transfers.create(entity(), {from_account_id: main, to_account_id: reserve, amount_in_minor_units: 100, currency_code: 'USD', rail: 'wire'})
    await switches({has_more_without_cursor: true})
    const again = await cli(args)
    expect(again.code).toBe(1)
    expect(again.stderr).toMatch(/The list is incomplete.*Nothing was sent/)
    const withKey = entity().accountTransfers.items.filter((t) => t.client_metadata?.payops_idempotency_key === key)
    expect(withKey).toHaveLength(1)
  })

  it('watch: a rule whose list is incomplete could not be checked (exit 1), and fires nothing from part of it', async () => {
    const home = tempDir()
    try {
      const run = (args: string[], opts: RunOptions = {}) => runAs(emu, 'test', args, {configDir: home.path, ...opts})
      expect((await run(['profiles', 'add', 'ops', '--base-url', emu.baseUrl, '--key-stdin', '--use'], {input: emu.keys.test})).code).toBe(0)
      expect((await run(['profiles', 'set', 'ops', 'watch', 'reconcile-exceptions', main])).code).toBe(0)
      bankLines(main, 501, '2026-10-05')
      await switches({has_more_without_cursor: true})
      const r = await run(['watch', '--once', '-o', 'json'], {clock: fakeClock(Date.parse('2026-10-20T12:00:00Z'))})
      expect(r.code, r.stderr).toBe(1)
      expect(r.stdout).toBe('')
      expect(r.stderr).toMatch(/The list is incomplete/)
    } finally {
      home.cleanup()
    }
  })
})

describe('currencies and amounts are the resource\'s own', () => {
  it('a transfer out in another currency than its account\'s is not counted in that account\'s figures', async () => {
    const t = emu.store!.transfers.create(entity(), {from_account_id: main, to_account_id: reserve, amount_in_minor_units: 123_45, currency_code: 'GBP', rail: 'wire'})
    const r = await cli(['position', '-o', 'json'])
    expect(r.code, r.stderr).toBe(0)
    const row = r.json().accounts.find((a: {account_id: string}) => a.account_id === main)
    expect(row).toMatchObject({currency_code: 'USD', committed_outflows_in_minor_units: 0, unconverted_outflows: 1})
    expect(r.stderr).toContain(`Transfer ${t.id} out of ${main} is in GBP, not the account's USD: left out of its figures.`)
  })

  it('a subaccount whose currency the API does not name: no USD is invented; a statement asks for --currency', async () => {
    expect((await cli(['treasury', 'simulate-credit', main, '--rail', 'wire', '--amount', '12.34', '--subaccount', sub, '--transaction-date', '2026-10-05'])).code).toBe(0)
    delete (entity().subaccounts.get(sub) as unknown as Record<string, unknown>).currency_code
    const pos = await cli(['position', '--subaccount', sub, '-o', 'json'])
    expect(pos.code, pos.stderr).toBe(0)
    expect(pos.json().subaccounts).toEqual([expect.objectContaining({subaccount_id: sub, currency_code: null, balance_in_minor_units: 1234})])
    const shown = await cli(['subaccounts', 'get', sub, '-o', 'table'])
    expect(shown.code, shown.stderr).toBe(0)
    expect(shown.stdout).toContain('1,234 minor units (currency unknown)')
    expect(shown.stdout).not.toContain('USD')
    const refused = await cli(['report', 'statement', '--subaccount', sub, '--month', '2026-10', '-o', 'json'])
    expect(refused.code).toBe(2)
    expect(refused.stderr).toMatch(/The currency of subaccount .* is not known \(the API did not return one\): pass --currency/)
    expect((await cli(['report', 'statement', '--account', main, '--month', '2026-10', '--currency', 'USD'])).code).toBe(2)
    const named = (await cli(['subaccounts', 'create', '--name', 'Spec named', '-o', 'json'])).json().id
    const mismatch = await cli(['report', 'statement', '--subaccount', named, '--month', '2026-10', '--currency', 'GBP'])
    expect(mismatch.code).toBe(2)
    expect(mismatch.stderr).toContain(`--currency GBP does not match the currency of subaccount ${named}, USD.`)
    const given = await cli(['report', 'statement', '--subaccount', sub, '--month', '2026-10', '--currency', 'usd', '-o', 'json'])
    expect(given.code, given.stderr).toBe(0)
    expect(given.json()).toMatchObject({currency_code: 'USD', closing_balance_in_minor_units: 1234})
  })

  it('an amount in minor units for an account whose currency is not known is refused before sending (not read as USD)', async () => {
    const unknown = '4f0b1c2d-3e4f-4a5b-8c6d-7e8f9a0b1c2d'
    const r = await expectOnlyRequests(emu, ['GET /api/treasury/accounts'], () => cli(['treasury', 'simulate-credit', unknown, '--rail', 'wire', '--amount-minor', '100']), dir.path)
    expect(r.code).toBe(4)
    expect(r.stderr).toContain(`treasury account ${unknown} not found (it is not in GET /api/treasury/accounts)`)
  })

  it('moves import: a row in minor units from a subaccount that names no currency is refused, not read as USD', async () => {
    const to = (await cli(['subaccounts', 'create', '--name', 'Spec payee', '-o', 'json'])).json().id
    delete (entity().subaccounts.get(sub) as unknown as Record<string, unknown>).currency_code
    const file = join(dir.path, 'unnamed.csv')
    // Line 3's source names its currency: it is read in it.
    writeFileSync(file, `from,to,amount_in_minor_units\n${sub},${to},250\n${to},${sub},1\n`)
    try {
      const r = await cli(['moves', 'import', file, '--dry-run', '-o', 'json'])
      expect(r.code).toBe(2)
      expect(r.stderr).toContain(`line 2: the currency of subaccount ${sub} is not known (the API did not return one): give the row a currency cell`)
      expect(r.stderr).not.toMatch(/line 3/)
      const given = join(dir.path, 'given.csv')
      writeFileSync(given, `from,to,amount_in_minor_units,currency\n${sub},${to},250,USD\n`)
      const ok = await cli(['moves', 'import', given, '--dry-run', '-o', 'json'])
      expect(ok.code, ok.stderr).toBe(0)
      expect(ok.json()).toMatchObject({rows: 1, total_to_send: {USD: 250}})
      rmSync(given, {force: true})
    } finally {
      rmSync(file, {force: true})
    }
  })

  it('a transfer\'s client_metadata is held to no move-only limit (51 keys, a 41-character key)', async () => {
    const meta: Record<string, unknown> = Object.fromEntries(Array.from({length: 50}, (_, i) => [`k${i}`, i]))
    meta['k'.repeat(41)] = 'long key'
    const r = await cli(['transfers', 'create', '--from', main, '--to', reserve, '--amount', '1.00', '--currency', 'USD', '--rail', 'wire', '--metadata-json', JSON.stringify(meta), '-o', 'json'])
    expect(r.code, r.stderr).toBe(0)
    expect(Object.keys(r.json().client_metadata)).toHaveLength(52)
  })
})

describe('days are the spec\'s days (America/New_York where it schedules)', () => {
  it('position: at 03:00 UTC on Nov 24 it is still Nov 23 in New York, so a transfer scheduled for the 24th is scheduled, not due', async () => {
    const t = emu.store!.transfers.create(entity(), {from_account_id: main, to_account_id: reserve, amount_in_minor_units: 500_00, currency_code: 'USD', rail: 'wire', scheduled_date: '2026-11-24'})
    const r = await cli(['position', '-o', 'json'], {clock: fakeClock(Date.parse('2026-11-24T03:00:00Z'))})
    expect(r.code, r.stderr).toBe(0)
    expect(r.json().today).toBe('2026-11-23')
    const row = r.json().accounts.find((a: {account_id: string}) => a.account_id === main)
    expect(row.committed_outflows_in_minor_units).toBe(0)
    expect(row.scheduled).toEqual([{date: t.scheduled_date, outflows_in_minor_units: 500_00, inflows_in_minor_units: 0}])
  })

  it('reconcile: an immediate transfer created at 02:00 UTC was sent the day before, in New York', async () => {
    const t = emu.store!.transfers.create(entity(), {from_account_id: main, to_account_id: reserve, amount_in_minor_units: 77_00, currency_code: 'USD', rail: 'wire'})
    emu.store!.transfers.setStatus(entity(), t, 'approved')
    t.created_at = '2026-10-06T02:00:00.000Z'
    const r = await cli(['reconcile', main, '--from', '2026-10-05', '--to', '2026-10-05', '--window', '0', '-o', 'json'], {clock: fakeClock(Date.parse('2026-10-05T18:00:00Z'))})
    expect(r.code, r.stderr).toBe(0)
    expect(r.json().items).toEqual([expect.objectContaining({expected_id: t.id, date: '2026-10-05', kind: 'pending'})])
  })
})

describe('webhooks as the spec writes them', () => {
  const servers: Server[] = []
  const running: RunningCli[] = []
  afterAll(async () => {
    for (const c of running) c.interrupt()
    await Promise.all(running.map((c) => c.done.catch(() => undefined)))
    await Promise.all(servers.map((s) => new Promise((r) => (s.closeAllConnections(), s.close(r)))))
  })

  async function receiver(): Promise<{url: string; got: Array<{headers: IncomingMessage['headers']; body: Buffer}>}> {
    const got: Array<{headers: IncomingMessage['headers']; body: Buffer}> = []
    const server = createServer((req, res) => {
      const chunks: Buffer[] = []
      req.on('data', (c: Buffer) => chunks.push(c))
      req.on('end', () => {
        got.push({headers: req.headers, body: Buffer.concat(chunks)})
        res.writeHead(200, {'content-type': 'application/json'}).end('{"ok":true}')
      })
    })
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
    servers.push(server)
    return {url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, got}
  }

  async function endpoint(url: string): Promise<string> {
    const r = await cli(['webhooks', 'create', '--url', url, '--event-types', 'payin.settled', '-o', 'json'], {allowSecrets: true})
    expect(r.code, r.stderr).toBe(0)
    const secret = entity().webhooks.get(r.json().id)!.secret
    knownSecrets.add(secret)
    return secret
  }

  it('a delivery with an ISO 8601 timestamp verifies (webhooks verify), and the tolerance applies to its instant', async () => {
    const target = await receiver()
    const secret = await endpoint(target.url)
    await switches({webhook_timestamps: 'iso'})
    await emu.control('POST', '/_emulator/events', {entity: 'test', type: 'payin.settled'})
    await until(() => target.got.length === 1, () => 'the delivery')
    const {headers, body} = target.got[0]
    const ts = headers['x-webhook-timestamp'] as string
    expect(ts).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/)
    const payload = join(dir.path, 'payload.json')
    writeFileSync(payload, body)
    try {
      const at = Date.parse(ts)
      const args = ['webhooks', 'verify', '--secret-file', '-', '--timestamp', ts, '--signature', headers['x-webhook-signature'] as string, '--payload-file', payload, '--tolerance', '300', '-o', 'json']
      const ok = await cli(args, {input: secret, clock: fakeClock(at + 299_000)})
      expect(ok.code, ok.stderr).toBe(0)
      expect(ok.json()).toEqual({valid: true, secret_index: 0})
      const stale = await cli(args, {input: secret, clock: fakeClock(at + 301_000)})
      expect(stale.code).toBe(1)
      expect(stale.stderr).toMatch(/stale_timestamp/)
    } finally {
      rmSync(payload, {force: true})
    }
  })

  it('listen takes ISO 8601 deliveries from the service, and an event id it kept is not forwarded again after a restart', async () => {
    const home = tempDir()
    try {
      const target = await receiver()
      const forwarded = await receiver()
      await switches({strict: true})
      const start = async () => {
        const secretFile = join(home.path, 'secret')
        const c = startCli(['webhooks', 'listen', '--port', '0', '-o', 'ndjson', '--secret-file', secretFile, '--forward-to', forwarded.url], {configDir: home.path})
        running.push(c)
        return {c, url: await listeningUrl(c)}
      }
      // The service delivers to `target`; the test hands each delivery to the listener as it came.
      const secret = await endpoint(target.url)
      writeFileSync(join(home.path, 'secret'), secret, {mode: 0o600})
      await emu.control('POST', '/_emulator/events', {entity: 'test', type: 'payin.settled'})
      await until(() => target.got.length === 1, () => 'the delivery')
      const {headers, body} = target.got[0]
      const deliver = (url: string) =>
        fetch(url, {method: 'POST', headers: {'content-type': 'application/json', 'x-webhook-signature': headers['x-webhook-signature'] as string, 'x-webhook-timestamp': headers['x-webhook-timestamp'] as string}, body: new Uint8Array(body)})
      const first = await start()
      expect((await deliver(first.url)).status).toBe(200)
      await until(() => forwarded.got.length === 1, () => `the forward: ${first.c.stderr()}`)
      first.c.interrupt()
      expect((await first.c.done).code).toBe(0)

      const second = await start()
      const again = await deliver(second.url)
      expect(again.status).toBe(200)
      expect(await again.json()).toEqual({received: true, duplicate: true})
      second.c.interrupt()
      const done = await second.c.done
      expect(done.code).toBe(0)
      expect(done.stdout).toBe('')
      expect(done.stderr).toMatch(/duplicate .*: answered 200, not processed again/)
      expect(forwarded.got).toHaveLength(1)
    } finally {
      home.cleanup()
    }
  })
})

describe('values added later are shown as they came', () => {
  it('a payer in a country the spec does not list is listed, not a crash', async () => {
    const r0 = await cli(['payers', 'list', '-o', 'json'])
    expect(r0.code, r0.stderr).toBe(0)
    const payer = entity().payers.items[0] as unknown as Record<string, unknown>
    payer.country_code = 'CA'
    const r = await cli(['payers', 'list', '--all', '-o', 'json'])
    expect(r.code, r.stderr).toBe(0)
    expect(r.json().find((p: {id: string}) => p.id === payer.id)).toMatchObject({country_code: 'CA'})
  })

  it('an activity item with a direction the spec does not list is in the statement as it came, and counts in no balance', async () => {
    for (const amount of ['10.00', '2.50']) {
      expect((await cli(['treasury', 'simulate-credit', main, '--rail', 'wire', '--amount', amount, '--subaccount', sub, '--transaction-date', '2026-10-05'])).code).toBe(0)
    }
    const lines = [...entity().activity.list(sub).values()] as unknown as Array<Record<string, unknown>>
    const odd = lines.find((l) => l.amount_in_minor_units === 250)!
    odd.direction = 'reversal'
    const r = await cli(['report', 'statement', '--subaccount', sub, '--month', '2026-10', '-o', 'json'], {clock: fakeClock(Date.parse('2026-10-20T12:00:00Z'))})
    expect(r.code, r.stderr).toBe(0)
    const s = r.json()
    expect(s.total_credits_in_minor_units).toBe(1000)
    expect(s.total_debits_in_minor_units).toBe(0)
    expect(s.lines.find((l: {id: string}) => l.id === odd.id)).toMatchObject({direction: 'reversal', signed_amount_in_minor_units: 0})
    expect(r.stderr).toMatch(/1 activity item of 2026-10 with a direction other than credit or debit/)
  })
})
