import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {expectNothingSent, knownSecrets, run, startCli, startEmulator, tempDir, type Emulator, type RunOptions, expectOnlyRequests, subaccountLookup} from '../support/index.js'
import {exportedTrail, restoreTrail, snapshotTrail, tamper, type TrailSnapshot} from '../support/trail.js'

let emu: Emulator
const dir = tempDir()
let a: string
let b: string
let c: string

const cli = (args: string[], opts: RunOptions = {}) => run(args, {configDir: dir.path, ...opts})
/** On a terminal: prompts are answered in order by `answers`. */
const onTerminal = (args: string[], answers: string[]) => cli(args, {tty: true, answers})
const incoming = async (id: string, profile = 'sandbox') => (await cli(['subaccounts', 'get', id, '-p', profile])).json().total_incoming_in_minor_units as number
/** The trail's records as JSON lines (its export without the head line). */
const audit = () => exportedTrail(dir.path).replace(/[^\n]*\n$/, '')
/** Runs `fn` and asserts that neither the emulator nor the audit trail saw anything. */
const nothingSent = <T>(fn: () => Promise<T>) => expectNothingSent(emu, fn, dir.path)
/**
 * Runs `fn` and asserts that the emulator received exactly `reads` (`GET /api/…` lookups a plan
 * makes to read a currency or a name, which change nothing) and nothing else, and that the audit
 * trail did not grow: no request that moves money or changes anything was sent.
 */
const onlyReads = <T>(reads: string[], fn: () => Promise<T>) => expectOnlyRequests(emu, reads, fn, dir.path)
const lookup = subaccountLookup

beforeAll(async () => {
  emu = await startEmulator()
  await cli(['profiles', 'add', 'sandbox', '--base-url', emu.baseUrl, '--key-stdin', '--use'], {input: emu.keys.test})
  await cli(['profiles', 'add', 'prod', '--base-url', emu.baseUrl, '--key-stdin'], {input: emu.keys.live})
  a = (await cli(['subaccounts', 'create', '--name', 'G-A'])).json().id
  b = (await cli(['subaccounts', 'create', '--name', 'G-B'])).json().id
  c = (await cli(['subaccounts', 'create', '--name', 'G-C'])).json().id
})
afterAll(async () => {
  await emu?.stop()
  dir.cleanup()
})

describe('profile limits', () => {
  it('set and unset validate their values', async () => {
    expect((await cli(['profiles', 'set', 'sandbox', 'max-amount', '50.00'])).code).toBe(2)
    expect((await cli(['profiles', 'set', 'sandbox', 'max-amount', '1.234', 'USD'])).code).toBe(2)
    expect((await cli(['profiles', 'set', 'sandbox', 'max-amount', '5', 'XYZ'])).code).toBe(2)
    expect((await cli(['profiles', 'set', 'sandbox', 'colour', 'blue'])).code).toBe(2)
    expect((await cli(['profiles', 'set', 'ghost', 'max-amount', '5', 'USD'])).code).toBe(2)
    const ok = await cli(['profiles', 'set', 'sandbox', 'max-amount', '50.00', 'USD'])
    expect(ok.code, ok.stderr).toBe(0)
    expect(ok.json().limits).toEqual({max_amount: {USD: 5000}})
    expect((await cli(['profiles', 'set', 'sandbox', 'max-amount', '7000', 'JPY'])).json().limits.max_amount).toEqual({USD: 5000, JPY: 7000})
    expect((await cli(['profiles', 'unset', 'sandbox', 'max-amount', 'JPY'])).json().limits.max_amount).toEqual({USD: 5000})
  })

  it('refuses an over-limit move before sending it (exit 3), naming the limit; only the two subaccount lookups go out', async () => {
    const before = await incoming(b)
    const lines = audit().split('\n').length
    const r = await onlyReads([lookup(a), lookup(b)], () => cli(['moves', 'create', '--from', a, '--to', b, '--amount', '60.00']))
    expect(r.code).toBe(3)
    expect(r.stderr).toMatch(/60\.00 USD is over the max-amount 50\.00 USD of profile "sandbox"/)
    expect(r.stderr).not.toMatch(/Idempotency-Key/)
    expect(await incoming(b)).toBe(before)
    expect(audit().split('\n').length).toBe(lines)
    expect((await cli(['moves', 'create', '--from', a, '--to', b, '--amount-minor', '5000'])).code).toBe(0)
  })

  it('--override-limits needs --yes without a terminal, then proceeds', async () => {
    const before = await incoming(b)
    const refused = await onlyReads([lookup(a), lookup(b)], () => cli(['moves', 'create', '--from', a, '--to', b, '--amount', '60.00', '--override-limits']))
    expect(refused.code).toBe(3)
    expect(refused.stderr).toMatch(/over limit/)
    expect(await incoming(b)).toBe(before)
    const ok = await cli(['moves', 'create', '--from', a, '--to', b, '--amount', '60.00', '--override-limits', '--yes'])
    expect(ok.code, ok.stderr).toBe(0)
    expect(await incoming(b)).toBe(before + 6000)
  })

  it('allowed-destinations refuses other destinations, for create, approve and import rows', async () => {
    await cli(['profiles', 'set', 'sandbox', 'allowed-destinations', b])
    const r = await onlyReads([lookup(a), lookup(c)], () => cli(['moves', 'create', '--from', a, '--to', c, '--amount', '1.00']))
    expect(r.code).toBe(3)
    expect(r.stderr).toMatch(/destination .* is not in the allowed-destinations/)
    await cli(['profiles', 'unset', 'sandbox', 'allowed-destinations'])
    const pending = (await cli(['moves', 'create', '--from', a, '--to', c, '--amount', '40.00', '--no-auto-approve'])).json().id
    await cli(['profiles', 'set', 'sandbox', 'allowed-destinations', b])
    const approve = await nothingSent(() => cli(['moves', 'approve', pending]))
    expect(approve.code).toBe(3)
    expect(approve.stderr).toMatch(/move .*: destination/)
    const file = join(dir.path, 'limits.csv')
    writeFileSync(file, ['from,to,amount', `${a},${b},10.00`, `${a},${c},10.00`, `${a},${b},99.00`].join('\n'))
    const imp = await nothingSent(() => cli(['moves', 'import', file, '--yes']))
    expect(imp.code).toBe(3)
    expect(imp.stderr).toMatch(/line 3: destination/)
    expect(imp.stderr).toMatch(/line 4: 99\.00 USD is over the max-amount/)
    expect(imp.stderr).toMatch(/2 rows break the profile's limits/)
    await cli(['profiles', 'unset', 'sandbox', 'allowed-destinations'])
    expect((await cli(['moves', 'approve', pending])).code).toBe(0)
  })

  it('transfers create and approve are checked against the limits too', async () => {
    const accounts = (await cli(['treasury', 'accounts', 'list'])).json() as Array<{id: string; currency_code: string}>
    const [usd1, usd2] = accounts.filter((x) => x.currency_code === 'USD')
    await cli(['profiles', 'set', 'sandbox', 'max-amount', '100.00', 'USD'])
    // Refused after reading the account list (for the source's currency): no transfer is sent.
    const over = await onlyReads(['GET /api/treasury/accounts'], () => cli(['transfers', 'create', '--from', usd1.id, '--to', usd2.id, '--amount', '100.01', '--currency', 'USD', '--rail', 'wire']))
    expect(over.code).toBe(3)
    expect(over.stderr).toMatch(/100\.01 USD is over the max-amount 100\.00 USD/)
    expect(over.stderr).not.toMatch(/Idempotency-Key/)
    const pending = await cli(['transfers', 'create', '--from', usd1.id, '--to', usd2.id, '--amount', '90.00', '--currency', 'USD', '--rail', 'wire', '--no-auto-approve'])
    expect(pending.code, pending.stderr).toBe(0)
    await cli(['profiles', 'set', 'sandbox', 'max-amount', '50.00', 'USD'])
    const approve = await onlyReads(['GET /api/treasury/account-transfers'], () => cli(['transfers', 'approve', pending.json().id]))
    expect(approve.code).toBe(3)
    expect(approve.stderr).toMatch(/90\.00 USD is over the max-amount 50\.00 USD/)
    const overridden = await cli(['transfers', 'approve', pending.json().id, '--override-limits', '--yes'])
    expect(overridden.code, overridden.stderr).toBe(0)
    expect(overridden.json().status).toBe('approved')
    expect((await cli(['transfers', 'approve', '00000000-0000-4000-8000-000000000000'])).stderr).toMatch(/not among the transfers awaiting approval/)
    await cli(['profiles', 'set', 'sandbox', 'max-amount', '50.00', 'USD'])
  })

  it('a currency without a max-amount is refused once any max-amount is set', async () => {
    const file = join(dir.path, 'eur.csv')
    writeFileSync(file, ['from,to,amount,currency', `${a},${b},1.00,EUR`].join('\n'))
    // A dry run goes on to the read-only checks, and reports what they find too (exit 3 still).
    const r = await onlyReads([lookup(a), lookup(b)], () => cli(['moves', 'import', file, '--dry-run']))
    expect(r.code).toBe(3)
    expect(r.stderr).toMatch(/line 2: profile "sandbox" has max-amount limits for USD but none for EUR/)
    expect(r.stderr).toMatch(/line 2: amount is in EUR but subaccount .* holds USD/)
    const real = await nothingSent(() => cli(['moves', 'import', file, '--yes']))
    expect(real.code).toBe(3)
    await cli(['profiles', 'unset', 'sandbox', 'max-amount'])
    expect((await cli(['profiles', 'show', 'sandbox'])).json().limits).toBeNull()
  })
})

/**
 * On a terminal (in-process: the prompts answered in order). The typed LIVE confirmation in a real
 * pseudo-terminal is test/smoke/guardrails-pty.test.ts.
 */
describe('typed confirmation on LIVE keys, on a terminal', () => {
  let la: string
  let lb: string
  beforeAll(async () => {
    la = (await cli(['subaccounts', 'create', '--name', 'L-A', '-p', 'prod', '--yes'])).json().id
    lb = (await cli(['subaccounts', 'create', '--name', 'L-B', '-p', 'prod', '--yes'])).json().id
  })

  it('typing the amount shown proceeds', async () => {
    const r = await onTerminal(['moves', 'create', '--from', la, '--to', lb, '--amount', '12.34', '-p', 'prod', '-o', 'json'], ['12.34'])
    expect(r.code, r.stderr).toBe(0)
    expect(r.asked).toEqual(['Type 12.34 to confirm this LIVE movement:'])
    expect(r.stderr).toMatch(/LIVE/)
    expect(r.stdout).toMatch(/"status": "settled"/)
    expect(await incoming(lb, 'prod')).toBe(1234)
  })

  it('a wrong answer aborts with exit 3 and sends no move (only the lookups for its summary)', async () => {
    const r = await onlyReads([lookup(la), lookup(lb)], () => onTerminal(['moves', 'create', '--from', la, '--to', lb, '--amount', '12.34', '-p', 'prod'], ['1234']))
    expect(r.code).toBe(3)
    expect(r.asked).toEqual(['Type 12.34 to confirm this LIVE movement:'])
    expect(r.stderr).toMatch(/Not confirmed: typed "1234", expected 12\.34\. Nothing was sent/)
    expect(await incoming(lb, 'prod')).toBe(1234)
  })

  it('--override-limits asks for the typed amount even on a test key', async () => {
    await cli(['profiles', 'set', 'sandbox', 'max-amount', '1.00', 'USD'])
    const before = await incoming(b)
    const r = await onTerminal(['moves', 'create', '--from', a, '--to', b, '--amount', '2.50', '--override-limits', '--yes', '-p', 'sandbox'], ['2.50'])
    expect(r.code, r.stderr).toBe(0)
    expect(r.asked).toEqual(['Type 2.50 to confirm:'])
    expect(r.stderr).toMatch(/over limit/)
    expect(await incoming(b)).toBe(before + 250)
    await cli(['profiles', 'unset', 'sandbox', 'max-amount'])
  })

  it('a non-money LIVE action asks yes/no', async () => {
    const r = await nothingSent(() => onTerminal(['subaccounts', 'create', '--name', 'L-C', '-p', 'prod'], ['n']))
    expect(r.code).toBe(3)
    expect(r.asked).toEqual(['Proceed with a LIVE action?'])
    expect(r.stderr).toMatch(/Not confirmed: nothing was sent/)
  })
})

describe('audit trail', () => {
  it('records an intent before and an outcome after every mutating request, with no secrets', async () => {
    const r = await cli(['moves', 'create', '--from', a, '--to', b, '--amount', '3.21', '--idempotency-key', 'audit-k1'])
    expect(r.code).toBe(0)
    const list = await cli(['audit', 'list', '--max-items', '2'])
    const [intent, outcome] = list.json()
    expect(intent).toMatchObject({kind: 'intent', method: 'POST', path: '/api/subaccounts/move', idempotency_key: 'audit-k1', amount_in_minor_units: 321, from: a, to: b, profile: 'sandbox', mode: 'test'})
    expect(outcome).toMatchObject({kind: 'outcome', op: intent.op, status: 201, resource_id: r.json().id})
    expect(outcome.request_id).toMatch(/^req_/)
    const text = audit()
    for (const s of knownSecrets) expect(text.includes(s)).toBe(false)
    const verify = await cli(['audit', 'verify'])
    expect(verify.code).toBe(0)
    expect(verify.stderr).toMatch(/intact/)
    const filtered = await cli(['audit', 'list', '--profile', 'prod'])
    expect(filtered.json().every((x: any) => x.profile === 'prod')).toBe(true)
    expect((await cli(['audit', 'list', '--since', '2999-01-01'])).json()).toEqual([])
    expect((await cli(['audit', 'list', '--since', 'soon'])).code).toBe(2)
  })

  it('two concurrent imports keep one unbroken chain', async () => {
    const files = [0, 1].map((n) => {
      const f = join(dir.path, `conc-${n}.csv`)
      writeFileSync(f, ['from,to,amount_in_minor_units', ...Array.from({length: 60}, (_, i) => `${a},${b},${n * 1000 + i + 1}`)].join('\n'))
      return f
    })
    const before = audit().trim().split('\n').length
    // Both run at once in this process; they share the audit trail's lock as two processes would.
    const runs = files.map((f) => startCli(['moves', 'import', f, '--yes', '--concurrency', '8', '-p', 'sandbox'], {configDir: dir.path}))
    const results = await Promise.all(runs.map((x) => x.done))
    expect(
      results.map((x) => x.code),
      results.map((x) => x.stderr).join('\n'),
    ).toEqual([0, 0])
    const after = audit().trim().split('\n')
    expect(after.length - before).toBe(240)
    // Both imports wrote to the one chain: an intent and an outcome for every row of each file.
    const added = after.slice(before).map((l) => JSON.parse(l))
    const intents = added.filter((x) => x.kind === 'intent')
    const outcomes = added.filter((x) => x.kind === 'outcome')
    expect(intents.map((x) => x.amount_in_minor_units).sort((p, q) => p - q)).toEqual([
      ...Array.from({length: 60}, (_, i) => i + 1),
      ...Array.from({length: 60}, (_, i) => 1000 + i + 1),
    ])
    expect(new Set(outcomes.map((x) => x.op))).toEqual(new Set(intents.map((x) => x.op)))
    expect(added.map((x) => x.seq)).toEqual(Array.from({length: 240}, (_, i) => before + i + 1))
    expect((await cli(['audit', 'verify'])).code).toBe(0)
  })

  describe('tampering', () => {
    let original: TrailSnapshot
    beforeAll(() => {
      original = snapshotTrail(dir.path)
    })
    const expectBrokenAt = async (record: number) => {
      const r = await cli(['audit', 'verify'])
      expect(r.code).toBe(1)
      expect(r.stderr).toMatch(new RegExp(`record ${record} `))
      restoreTrail(dir.path, original)
    }

    it('an edited record fails verification at that record', async () => {
      tamper(dir.path, "UPDATE trail SET record = json_set(record, '$.path', '/api/x') WHERE seq = 5")
      await expectBrokenAt(5)
    })

    it('a deleted record fails at the record after it', async () => {
      tamper(dir.path, 'DELETE FROM trail WHERE seq = 7')
      await expectBrokenAt(8)
    })

    it('swapped records fail at the first of them', async () => {
      tamper(dir.path, 'UPDATE trail SET seq = -seq WHERE seq IN (3, 4)')
      tamper(dir.path, 'UPDATE trail SET seq = 7 + seq WHERE seq < 0')
      await expectBrokenAt(3)
    })

    it('removing the last record is detected through the head', async () => {
      const last = original.rows.at(-1)!.seq
      tamper(dir.path, 'DELETE FROM trail WHERE seq = ?', last)
      await expectBrokenAt(last)
    })

    it('the untouched trail verifies (exit 0, JSON result on stdout with -o json)', async () => {
      const r = await cli(['audit', 'verify', '-o', 'json'])
      expect(r.code).toBe(0)
      expect(r.json()).toMatchObject({ok: true})
    })
  })
})

describe('credential provenance', () => {
  it('--debug says where the key and base URL came from; a differing PAYOPS_API_KEY is noted once', async () => {
    const r = await cli(['subaccounts', 'get', a, '--debug'], {env: {PAYOPS_API_KEY: emu.keys.test}})
    expect(r.stderr).toMatch(/\[debug\] profile: sandbox \(active profile\); key: test_…\w{4} \(PAYOPS_API_KEY\); base URL: .* \(profile "sandbox"\)/)
    const other = await cli(['subaccounts', 'get', a], {env: {PAYOPS_API_KEY: emu.keys.test_other}})
    expect(other.stderr.match(/using the API key from PAYOPS_API_KEY/g)).toHaveLength(1)
    expect(other.code).toBe(4)
  })
})
