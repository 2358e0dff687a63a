/**
 * What an operator's fingers and eyes expect (issue 28): tables at 80 columns keep ids whole,
 * csv keeps ids, audit columns by any name, the approval queue cleared by the API's answer, and
 * the sentences that name the right next step. In-process against the emulator.
 */
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {writeFileSync} from 'node:fs'
import {expectNothingSent, outcomeOf, run, startEmulator, tempDir, type Emulator, type RunOptions} from '../support/index.js'

let emu: Emulator
const dir = tempDir()
let main: string
let reserve: string
let from: string
let to: string

const cli = (args: string[], opts: RunOptions = {}) => run(args, {configDir: dir.path, ...opts})
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g

beforeAll(async () => {
  emu = await startEmulator(['--write-profile', 'sandbox'], dir.path)
  const accounts = (await cli(['treasury', 'accounts', 'list'])).json()
  main = accounts.find((a: any) => a.label === 'Main operating account').id
  reserve = accounts.find((a: any) => a.label.startsWith('USD reserve')).id
  from = (await cli(['subaccounts', 'create', '--name', 'Ops Main'])).json().id
  to = (await cli(['subaccounts', 'create', '--name', 'Payroll'])).json().id
})
afterAll(async () => {
  await emu?.stop()
  dir.cleanup()
})

describe('a table at 80 columns', () => {
  it('keeps every id whole, leaves out the empty and the rightmost columns first, and says so', async () => {
    for (let i = 0; i < 2; i++) {
      const t = await cli(['transfers', 'create', '--from', main, '--to', reserve, '--amount', `1.0${i}`, '--currency', 'USD', '--rail', 'wire', '--no-auto-approve'])
      expect(t.code, t.stderr).toBe(0)
    }
    const ids = (await cli(['transfers', 'list', '--status', 'created'])).json().map((t: any) => t.id)
    expect(ids.length).toBeGreaterThanOrEqual(2)
    const r = await cli(['transfers', 'list', '--status', 'created', '--no-color'], {tty: true, columns: 80})
    expect(r.code, r.stderr).toBe(0)
    const lines = r.stdout.trimEnd().split('\n')
    for (const line of lines) expect(line.length, r.stdout + r.stderr).toBeLessThanOrEqual(80)
    for (const id of ids) expect(r.stdout).toContain(id)
    // No transfer here is scheduled: the empty column gives its room to the others.
    expect(lines[0]).not.toMatch(/SCHEDULED/)
    expect(lines[0]).toMatch(/^ID\s+STATUS\s+AMOUNT/)
    expect(r.stderr).toMatch(/Not shown at this width: .*scheduled_date.*--wide/)
    // --wide shows every column, whole.
    const wide = await cli(['transfers', 'list', '--status', 'created', '--wide', '--no-color'], {tty: true, columns: 80})
    expect(wide.stdout.split('\n')[0]).toMatch(/SCHEDULED\s+CREATED/)
    expect(wide.stderr).not.toMatch(/Not shown/)
  })
})

describe('the approval queue', () => {
  it('a move settled or canceled from another machine leaves it once the API says so', async () => {
    const settled = (await cli(['moves', 'create', '--from', from, '--to', to, '--amount', '4.00', '--no-auto-approve'])).json().id
    const canceled = (await cli(['moves', 'create', '--from', from, '--to', to, '--amount', '5.00', '--no-auto-approve'])).json().id
    // Another machine (its own config dir and trail) approves one and cancels the other.
    const elsewhere = tempDir()
    try {
      const env = {PAYOPS_BASE_URL: emu.baseUrl, PAYOPS_API_KEY: emu.keys.test}
      expect((await run(['moves', 'approve', settled], {configDir: elsewhere.path, env})).code).toBe(0)
      expect((await run(['moves', 'cancel', canceled], {configDir: elsewhere.path, env})).code).toBe(0)
    } finally {
      elsewhere.cleanup()
    }
    const queued = () => cli(['approvals', '--kind', 'moves', '-o', 'json']).then((r) => r.json().map((m: {id: string}) => m.id))
    expect(await queued()).toEqual(expect.arrayContaining([settled, canceled]))
    // Settled: the approve is read as done (exit 0); canceled: refused (exit 8), nothing moved.
    const again = await cli(['moves', 'approve', settled])
    expect(again.code, again.stderr).toBe(0)
    expect(outcomeOf(again)).toMatchObject({kind: 'replayed', id: settled, status: 'settled'})
    const refused = await cli(['moves', 'approve', canceled])
    expect(refused.code).toBe(8)
    expect(refused.stderr).toMatch(/cannot be approved in status canceled/)
    const left = await queued()
    expect(left).not.toContain(settled)
    expect(left).not.toContain(canceled)
  })

  it('approvals -o csv keeps the ids whole', async () => {
    const id = (await cli(['moves', 'create', '--from', from, '--to', to, '--amount', '6.00', '--no-auto-approve'])).json().id
    const r = await cli(['approvals', '--kind', 'moves', '-o', 'csv'])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toMatch(/^kind,id,amount,from,to,/)
    expect(r.stdout).toContain(`move,${id},6.00 USD,${from},${to},`)
    expect(r.stdout).not.toContain('…')
    expect((await cli(['moves', 'cancel', id])).code).toBe(0)
  })
})

describe('repeatable flags', () => {
  it('take one value each: the word after one is the command\'s argument', async () => {
    const r = await cli(['api', '-H', 'X-Trace: 1', 'GET', `/api/subaccounts/${from}`, '-o', 'json'])
    expect(r.code, r.stderr).toBe(0)
    expect(r.json().data.id).toBe(from)
    // A second value after the flag is an unexpected argument, named; not silently a value.
    const two = await expectNothingSent(emu, () => cli(['moves', 'create', '--from', from, '--to', to, '--amount', '1.00', '--metadata', 'a=1', 'b=2']), dir.path)
    expect(two.code).toBe(2)
    expect(two.stderr).toMatch(/Unexpected argument: b=2/)
    expect(two.stderr).not.toMatch(/allow multiple values/)
    // Given twice, both values count.
    const both = await cli(['moves', 'create', '--from', from, '--to', to, '--amount', '0.01', '--metadata', 'a=1', '--metadata', 'b=2'])
    expect(both.code, both.stderr).toBe(0)
    expect(both.json().client_metadata).toEqual({a: '1', b: '2'})
  })

  it('webhooks trigger EVENT after --secret-file signs and sends the event', async () => {
    const secretDir = tempDir()
    const received: string[] = []
    const {createServer} = await import('node:http')
    const server = createServer((req, res) => {
      let body = ''
      req.on('data', (d) => (body += d))
      req.on('end', () => {
        received.push(body)
        res.end('ok')
      })
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    try {
      const file = `${secretDir.path}/secret`
      writeFileSync(file, 'whsec_ergonomics_test\n', {mode: 0o600})
      const url = `http://127.0.0.1:${(server.address() as {port: number}).port}/hooks`
      const r = await cli(['webhooks', 'trigger', '--secret-file', file, 'payin.settled', '--url', url])
      expect(r.code, r.stderr).toBe(0)
      expect(received).toHaveLength(1)
      expect(JSON.parse(received[0]).type ?? JSON.parse(received[0]).event_type).toBe('payin.settled')
    } finally {
      server.close()
      secretDir.cleanup()
    }
  })
})

describe('payops api fields, as gh names them', () => {
  it('-f/--raw-field sends a string; -F/--field converts numbers and booleans', async () => {
    for (const flag of ['-f', '--raw-field']) {
      const r = await cli(['api', 'POST', '/api/subaccounts', flag, 'name=1234', '-o', 'json'])
      expect(r.code, `${flag}: ${r.stderr}`).toBe(0)
      expect(r.json().data.name).toBe('1234')
    }
    for (const flag of ['-F', '--field']) {
      // A number where the API wants a string: the API refuses it (400, exit 8).
      const refused = await cli(['api', 'POST', '/api/subaccounts', flag, 'name=1234'])
      expect(refused.code, `${flag}: ${refused.stderr}`).toBe(8)
      const moved = await cli(['api', 'POST', '/api/subaccounts/move', '--raw-field', `from_subaccount_id=${from}`, '--raw-field', `to_subaccount_id=${to}`, flag, 'amount_in_minor_units=3', '-o', 'json'])
      expect(moved.code, `${flag}: ${moved.stderr}`).toBe(0)
      expect(moved.json().data.amount_in_minor_units).toBe(3)
    }
  })
})

describe('--columns', () => {
  it('audit list takes every field a record holds, though the first record (an intent) lacks the outcome\'s', async () => {
    const moved = await cli(['moves', 'create', '--from', from, '--to', to, '--amount', '0.07'])
    expect(moved.code, moved.stderr).toBe(0)
    const r = await cli(['audit', 'list', '--columns', 'seq,kind,outcome,resource_status,from,to', '-o', 'csv'])
    expect(r.code, r.stderr).toBe(0)
    const lines = r.stdout.trim().split(/\r?\n/)
    expect(lines[0]).toBe('seq,kind,outcome,resource_status,from,to')
    expect(lines).toContainEqual(expect.stringMatching(new RegExp(`^\\d+,outcome,created,settled,${from},${to}$`)))
    expect(lines).toContainEqual(expect.stringMatching(/^\d+,intent,,,/))
  })

  it('the default audit table tells a created request from a replay, with from and to', async () => {
    const r = await cli(['audit', 'list', '--wide', '--no-color'], {tty: true})
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout.split('\n')[0]).toMatch(/STATUS\s+OUTCOME\s+AMOUNT\s+FROM\s+TO\s+RESOURCE/)
    expect(r.stdout).toMatch(/created\s+0\.07 USD\s+Ops Main \(/)
  })

  it('a table header is a column name too, in any case and with spaces, - or _', async () => {
    for (const name of ['ACH ROUTING', 'ach-routing', 'Ach_Routing']) {
      const r = await cli(['subaccounts', 'get', from, '--columns', `id,${name}`, '-o', 'csv'])
      expect(r.code, `${name}: ${r.stderr}`).toBe(0)
      expect(r.stdout).toMatch(new RegExp(`^id,routing_numbers\\.ach\\r?\\n${from},\\d{9}`))
    }
    const moves = await cli(['moves', 'create', '--from', from, '--to', to, '--amount', '0.01', '-o', 'csv', '--columns', 'ID,FROM,TO'])
    expect(moves.code, moves.stderr).toBe(0)
    expect(moves.stdout).toMatch(new RegExp(`^id,from_subaccount_id,to_subaccount_id\\r?\\n[0-9a-f-]{36},${from},${to}`))
    const unknown = await cli(['subaccounts', 'get', from, '--columns', 'id,NOPE'])
    expect(unknown.code).toBe(2)
    expect(unknown.stderr).toMatch(/unknown column "NOPE"/)
  })
})

describe('moves import, when an answer is lost', () => {
  it('the row\'s failure names the re-run of the import, not a moves create flag', async () => {
    const files = tempDir()
    const file = `${files.path}/lost.csv`
    writeFileSync(file, `from,to,amount_in_minor_units\n${from},${to},701\n`)
    try {
      await lostThenRerun(file)
    } finally {
      files.cleanup()
    }
  })
})

/** An import whose one row's answer is lost (a 500 after the move was made), then its re-run. */
async function lostThenRerun(file: string): Promise<void> {
  try {
    await emu.control('POST', '/_emulator/faults', {queue: [{kind: '500', phase: 'after'}], methods: ['POST']})
    const r = await cli(['moves', 'import', file, '--yes', '--max-retries', '0', '-o', 'json'])
    expect(r.code, r.stderr).toBe(6)
    const [failure] = r.json().failures
    expect(failure).toMatchObject({line: 2, outcome_unknown: true})
    expect(failure.message).toMatch(/after the handler\. It is unknown whether the move was made\. Re-run the same import/)
    expect(failure.message).not.toMatch(/--idempotency-key|moves create/)
  } finally {
    await emu.control('DELETE', '/_emulator/faults')
  }
  // The re-run finds the move the lost answer made: no second one.
  const again = await cli(['moves', 'import', file, '--yes', '-o', 'json'])
  expect(again.code, again.stderr).toBe(0)
  expect(again.json()).toMatchObject({failed: 0})
  expect(again.json().created + again.json().replayed).toBe(1)
}

describe('moves import --dry-run', () => {
  it('reports every class of problem of a row: a refused destination does not hide that it does not exist', async () => {
    const files = tempDir()
    const missing = '00000000-0000-4000-8000-000000000000'
    const file = `${files.path}/dry.csv`
    writeFileSync(file, `from,to,amount\n${from},${missing},1.00\n${from},${to},2.00\n`)
    try {
      expect((await cli(['profiles', 'set', 'sandbox', 'allowed-destinations', to])).code).toBe(0)
      const dry = await cli(['moves', 'import', file, '--dry-run'])
      // The first refusal's exit code (the limits: 3); both problems named, nothing sent.
      expect(dry.code, dry.stderr).toBe(3)
      expect(dry.stderr).toMatch(new RegExp(`destination ${missing} is not in the allowed-destinations`))
      expect(dry.stderr).toMatch(/line 2: .*(not found|does not exist)/)
      expect(dry.stderr).toMatch(/1 row breaks the profile's limits.* 1 row of .* failed the checks/)
      // Without --dry-run the first refusal still stops it before any request.
      const real = await expectNothingSent(emu, () => cli(['moves', 'import', file, '--yes']), dir.path)
      expect(real.code).toBe(3)
      expect(real.stderr).not.toMatch(/failed the checks/)
    } finally {
      await cli(['profiles', 'unset', 'sandbox', 'allowed-destinations'])
      files.cleanup()
    }
  })
})

describe('--query mistakes', () => {
  it('a word between backticks gets the expression to write instead, which runs', async () => {
    const r = await cli(['payers', 'list', '--query', '[?country_code==`US`]'])
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(/a string is written 'US': --query "\[\?country_code=='US'\]"/)
    const fixed = await cli(['payers', 'list', '--query', "[?country_code=='US']"])
    expect(fixed.code, fixed.stderr).toBe(0)
    const all = (await cli(['payers', 'list'])).json()
    expect(fixed.json()).toEqual(all.filter((p: {country_code: string}) => p.country_code === 'US'))
    // A JSON value between backticks is right as it is: no hint on another mistake.
    const other = await cli(['payers', 'list', '--query', '[?country_code==`400`'])
    expect(other.code).toBe(2)
    expect(other.stderr).not.toMatch(/a string is written/)
  })
})

describe('smaller sentences', () => {
  it('a 207 on a terminal says its sentence once, then a short error line (exit 6); JSON keeps the sentence', async () => {
    await emu.control('POST', '/_emulator/fail-next-settlement', {count: 1})
    const r = await cli(['moves', 'create', '--from', from, '--to', to, '--amount', '0.03', '--no-color'], {tty: true})
    expect(r.code, r.stderr).toBe(6)
    expect(r.stderr.match(/Its settlement failed/g)).toHaveLength(1)
    expect(r.stderr).toMatch(/Error: Partial success: [0-9a-f-]{36} is approved, not settled \(see above\)\./)
    await emu.control('POST', '/_emulator/fail-next-settlement', {count: 1})
    const json = await cli(['moves', 'create', '--from', from, '--to', to, '--amount', '0.03', '-o', 'json'])
    expect(json.code).toBe(6)
    const error = JSON.parse(json.stderr.split('\n').find((l) => l.startsWith('{"error"'))!).error
    expect(error.message).toMatch(/Its settlement failed/)
  })

  it('a missing argument and an unparsable flag value read as sentences', async () => {
    const missing = await cli(['subaccounts', 'get'])
    expect(missing.code).toBe(2)
    expect(missing.stderr).toMatch(/^Error: Missing the argument ID \(subaccount id\)\. See --help\.$/m)
    const two = await cli(['api'])
    expect(two.stderr).toMatch(/Missing 2 arguments: METHOD \(HTTP method\), PATH \(/)
    const limit = await expectNothingSent(emu, () => cli(['payers', 'list', '--limit', 'abc']), dir.path)
    expect(limit.code).toBe(2)
    expect(limit.stderr).toMatch(/^Error: --limit: expected an integer but received: abc \(see --help\)$/m)
    expect(limit.stderr).not.toMatch(/Parsing/)
  })

  it('profiles set and unset show their arguments as they are typed', async () => {
    const set = await cli(['profiles', 'set', '--help'])
    expect(set.stdout).toMatch(/\$ payops profiles set NAME KEY VALUE\.\.\. /)
    expect(set.stdout).not.toMatch(/NAME\.\.\.|KEY\.\.\./)
    const unset = await cli(['profiles', 'unset', '--help'])
    expect(unset.stdout).toMatch(/\$ payops profiles unset NAME KEY \[VALUE\.\.\.\]/)
    // Still several words after the key.
    expect((await cli(['profiles', 'set', 'sandbox', 'max-amount', '900.00', 'USD'])).code).toBe(0)
    const unsetOne = await cli(['profiles', 'unset', 'sandbox', 'max-amount', 'USD'])
    expect(unsetOne.code, unsetOne.stderr).toBe(0)
  })

  it('the simulated credit names the account, or the subaccount and its account, it credited', async () => {
    const plain = await cli(['treasury', 'simulate-credit', main, '--rail', 'wire', '--amount', '1.00', '--no-color'], {tty: true})
    expect(plain.code, plain.stderr).toBe(0)
    expect(plain.stderr).toMatch(new RegExp(`1\\.00 USD to account Main operating account \\(${main.slice(0, 8)}…\\), credited\\.`))
    const sub = await cli(['treasury', 'simulate-credit', main, '--rail', 'wire', '--amount', '2.00', '--subaccount', from, '--no-color'], {tty: true})
    expect(sub.code, sub.stderr).toBe(0)
    expect(sub.stderr).toMatch(new RegExp(`2\\.00 USD to subaccount Ops Main \\(${from.slice(0, 8)}…\\) of account Main operating account`))
  })

  it('the LIVE cancel summary names from and to', async () => {
    const added = await cli(['profiles', 'add', 'live', '--base-url', emu.baseUrl, '--key-stdin'], {input: emu.keys.live})
    expect(added.code, added.stderr).toBe(0)
    const la = (await cli(['subaccounts', 'create', '--name', 'Live Source', '-p', 'live', '--yes'])).json().id
    const lb = (await cli(['subaccounts', 'create', '--name', 'Live Payee', '-p', 'live', '--yes'])).json().id
    const move = await cli(['moves', 'create', '--from', la, '--to', lb, '--amount', '3.00', '--no-auto-approve', '-p', 'live', '--yes'])
    expect(move.code, move.stderr).toBe(0)
    const declined = await cli(['moves', 'cancel', move.json().id, '-p', 'live', '--no-color'], {tty: true, answers: ['n']})
    expect(declined.code, declined.stderr).toBe(3)
    // Name and whole id, as the approve summary shows them (was: the bare ids).
    expect(declined.stderr).toMatch(new RegExp(`from:\\s+Live Source \\(${la}\\)`))
    expect(declined.stderr).toMatch(new RegExp(`to:\\s+Live Payee \\(${lb}\\)`))
  })
})
