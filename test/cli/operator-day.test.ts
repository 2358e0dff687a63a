/**
 * An operator's day against the real emulator: amount filters in decimals, date ranges that mean
 * the same everywhere, profile limits that say what they did, lists that send only documented
 * values, transfer metadata as JSON, and help with examples.
 */
import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {readAudit} from '../../src/audit/index.js'
import {ROOT, expectNothingSent, outcomeOf, run, startEmulator, tempDir, type Emulator} from '../support/index.js'

let emu: Emulator
const dir = tempDir()
let main: string
let gbp: string
let inr: string
let subA: string
let subB: string
const ids: Record<string, string> = {}

const cli = (args: string[], opts: {input?: string} = {}) => run(args, {configDir: dir.path, ...opts})
/** Runs against the emulator (the sandbox profile) and asserts it received nothing and the audit trail did not grow. */
const refused = (args: string[]) => expectNothingSent(emu, () => cli(args), dir.path)
/**
 * Runs against the emulator and asserts it received exactly `reads` ("GET /api/…" lookups, which
 * change nothing) and the audit trail did not grow.
 */
async function refusedAfter(reads: string[], args: string[]) {
  const before = (await emu.requestLog()).count
  const records = readAudit(dir.path).length
  const r = await cli(args)
  const after = await emu.requestLog()
  expect(after.recent.slice(after.recent.length - (after.count - before)).map((x) => `${x.method} ${x.path}`), 'requests the emulator received').toEqual(reads)
  expect(readAudit(dir.path).length, 'audit records written').toBe(records)
  return r
}
const errorLine = (stderr: string) => stderr.split('\n').find((l) => l.startsWith('Error:')) ?? stderr

beforeAll(async () => {
  emu = await startEmulator()
  await cli(['profiles', 'add', 'sandbox', '--base-url', emu.baseUrl, '--key-stdin', '--use'], {input: emu.keys.test})
  const accounts = (await cli(['treasury', 'accounts', 'list'])).json()
  main = accounts.find((a: any) => a.label === 'Main operating account').id
  gbp = accounts.find((a: any) => a.currency_code === 'GBP').id
  inr = accounts.find((a: any) => a.currency_code === 'INR').id
  const transfer = async (key: string, args: string[]) => {
    const r = await cli(['transfers', 'create', ...args])
    expect(r.code, r.stderr).toBe(0)
    ids[key] = r.json().id
  }
  await transfer('gbp', ['--from', gbp, '--to', inr, '--amount', '123.45', '--currency', 'GBP', '--rail', 'wire'])
  await transfer('usd', ['--from', main, '--to', gbp, '--amount', '123.45', '--currency', 'USD', '--rail', 'wire'])
  subA = (await cli(['subaccounts', 'create', '--name', 'Day A'])).json().id
  subB = (await cli(['subaccounts', 'create', '--name', 'Day B'])).json().id
  for (const amount of ['3.00', '5.00', '7.00']) expect((await cli(['moves', 'create', '--from', subA, '--to', subB, '--amount', amount])).code).toBe(0)
})
afterAll(async () => {
  await emu?.stop()
  dir.cleanup()
})

describe('amount filters are decimals, as --amount is', () => {
  const transfers = async (args: string[]) => {
    const r = await cli(['transfers', 'list', '--limit', '500', ...args])
    expect(r.code, r.stderr).toBe(0)
    return (r.json() as any[]).map((t) => t.id).sort()
  }

  it('transfers list reads --amount-gte/-lte in the currency the --account accounts share', async () => {
    expect(await transfers(['--account', gbp, '--amount-gte', '123.45', '--amount-lte', '123.45'])).toEqual([ids.gbp, ids.usd].sort())
    expect(await transfers(['--account', gbp, '--amount-gte', '123.46'])).not.toContain(ids.gbp)
  })

  it('--currency says how to read them; --amount-minor-gte and the API names are minor units', async () => {
    expect(await transfers(['--currency', 'gbp', '--amount-gte', '123.45', '--amount-lte', '123.45', '--account', inr])).toEqual([ids.gbp])
    expect(await transfers(['--account', inr, '--amount-minor-gte', '12345', '--amount-minor-lte', '12345'])).toEqual([ids.gbp])
    expect(await transfers(['--account', inr, '--amount-in-minor-units-gte', '12345', '--amount-in-minor-units-lte', '12345'])).toEqual([ids.gbp])
  })

  it('without a currency to read them in, decimals are refused (exit 2) saying what to give', async () => {
    const none = await refused(['transfers', 'list', '--amount-gte', '100'])
    expect(none.code).toBe(2)
    expect(errorLine(none.stderr)).toMatch(/give --currency, or .*--amount-minor-gte/)
    // Refused once the accounts' currencies are read: only that lookup is sent.
    const mixed = await refusedAfter(['GET /api/treasury/accounts'], ['transfers', 'list', '--account', gbp, '--account', main, '--amount-gte', '100'])
    expect(mixed.code).toBe(2)
    expect(errorLine(mixed.stderr)).toMatch(/different currencies/)
    expect((await refused(['transfers', 'list', '--currency', 'USD', '--amount-gte', '1.001'])).code).toBe(2)
    expect((await refused(['transfers', 'list', '--amount-gte', '1', '--amount-minor-gte', '100'])).code).toBe(2)
  })

  it('subaccounts activity reads them in the subaccount\'s own currency', async () => {
    const r = await cli(['subaccounts', 'activity', subB, '--amount-gte', '4', '--amount-lte', '6.00'])
    expect(r.code, r.stderr).toBe(0)
    expect((r.json() as any[]).map((i) => i.amount_in_minor_units)).toEqual([500])
    const minor = await cli(['subaccounts', 'activity', subB, '--amount-minor-gte', '400', '--amount_lte', '600'])
    expect((minor.json() as any[]).map((i) => i.amount_in_minor_units)).toEqual([500])
    expect((await cli(['subaccounts', 'activity', subB, '--amount-gte', '4.001'])).code).toBe(2)
  })
})

describe('ranges and names', () => {
  it('an inverted range is exit 2 naming both flags, before any request', async () => {
    const cases: Array<[string[], RegExp]> = [
      [['treasury', 'transactions', 'list', main, '--transaction-date-gte', '2026-01-10', '--transaction-date-lte', '2026-01-01'], /--transaction-date-gte 2026-01-10 is after --transaction-date-lte 2026-01-01/],
      [['transfers', 'list', '--created-at-gte', '2026-01-10', '--created-at-lte', '2026-01-01'], /--created-at-gte 2026-01-10 is after --created-at-lte 2026-01-01/],
      [['subaccounts', 'activity', subA, '--effective-at-gte', '2026-01-10T00:00:00Z', '--effective-at-lte', '2026-01-09'], /--effective-at-gte .* --effective-at-lte 2026-01-09/],
      [['subaccounts', 'activity', subA, '--amount-minor-gte', '500', '--amount-minor-lte', '100'], /--amount-minor-gte 500 is more than --amount-minor-lte 100/],
      [['transfers', 'list', '--currency', 'USD', '--amount-gte', '5', '--amount-lte', '1'], /--amount-gte 5 is more than --amount-lte 1/],
      [['payers', 'list', '--created-at-gte', '2026-02-01', '--created-at-lte', '2026-01-31'], /--created-at-gte 2026-02-01 is after --created-at-lte 2026-01-31/],
    ]
    for (const [args, message] of cases) {
      const r = await refused(args)
      expect(r.code, `${args.join(' ')}\n${r.stderr}`).toBe(2)
      expect(errorLine(r.stderr)).toMatch(message)
    }
  })

  it('a bare date as an upper bound includes that whole day, for date-time filters too', async () => {
    const items = (await cli(['subaccounts', 'activity', subB])).json() as any[]
    const day = items[0].effective_at.slice(0, 10)
    const sameDay = items.filter((i) => i.effective_at.startsWith(day)).length
    expect((await cli(['subaccounts', 'activity', subB, '--effective-at-gte', day, '--effective-at-lte', day])).json()).toHaveLength(sameDay)
    const created = (await cli(['transfers', 'list', '--account', inr, '--amount-minor-gte', '12345', '--amount-minor-lte', '12345'])).json()[0].created_at.slice(0, 10)
    expect((await cli(['transfers', 'list', '--account', inr, '--created-at-lte', created, '--amount-minor-gte', '12345', '--amount-minor-lte', '12345'])).json().map((t: any) => t.id)).toEqual([ids.gbp])
  })

  it('a blank name or label is exit 2 before any request', async () => {
    const r = await refused(['subaccounts', 'create', '--name', '   '])
    expect(r.code).toBe(2)
    expect(errorLine(r.stderr)).toMatch(/--name is blank/)
    expect((await refused(['treasury', 'accounts', 'update-label', main, '--label', ' '])).code).toBe(2)
    const named = await cli(['subaccounts', 'create', '--name', '  Day C  '])
    expect(named.json().name).toBe('Day C')
  })
})

describe('profile limits say what they did', () => {
  const A = '11111111-1111-4111-8111-111111111111'
  const B = '22222222-2222-4222-8222-222222222222'

  it('unsetting a limit that is not there is exit 2 naming what is', async () => {
    expect((await cli(['profiles', 'set', 'sandbox', 'max-amount', '100', 'USD'])).code).toBe(0)
    const r = await refused(['profiles', 'unset', 'sandbox', 'max-amount', 'EUR'])
    expect(r.code).toBe(2)
    expect(errorLine(r.stderr)).toMatch(/no max-amount for EUR: it has max-amount for USD \(100\.00 USD\)/)
    expect(errorLine(r.stderr)).not.toMatch(/removed/)
    expect((await cli(['profiles', 'show', 'sandbox'])).json().limits.max_amount).toEqual({USD: 10000})
    expect((await refused(['profiles', 'unset', 'sandbox', 'allowed-destinations'])).code).toBe(2)
  })

  it('allowed-destinations are UUIDs; set says replaced or added; --add adds', async () => {
    const bad = await cli(['profiles', 'set', 'sandbox', 'allowed-destinations', 'nope'])
    expect(bad.code).toBe(2)
    expect(errorLine(bad.stderr)).toMatch(/Not a UUID: "nope"/)
    expect((await cli(['profiles', 'set', 'sandbox', 'allowed-destinations', A])).stderr).toMatch(/1 allowed destination set/)
    const added = await cli(['profiles', 'set', 'sandbox', 'allowed-destinations', B, '--add'])
    expect(added.stderr).toMatch(/Added 1 allowed destination; the list now has 2/)
    expect(added.json().limits.allowed_destinations).toEqual([A, B])
    const replaced = await cli(['profiles', 'set', 'sandbox', 'allowed-destinations', B])
    expect(replaced.stderr).toMatch(/Replaced the 2 allowed destinations with 1/)
    expect(replaced.json().limits.allowed_destinations).toEqual([B])
  })

  it('profiles show prints limits as money in the table, minor units in JSON', async () => {
    const table = await cli(['profiles', 'show', 'sandbox', '-o', 'table'])
    expect(table.stdout).toMatch(/max 100\.00 USD; allowed destinations: 2{8}-/)
    expect(table.stdout).not.toMatch(/max_amount/)
    expect((await cli(['profiles', 'show', 'sandbox'])).json().limits.max_amount).toEqual({USD: 10000})
    await cli(['profiles', 'unset', 'sandbox', 'max-amount'])
    await cli(['profiles', 'unset', 'sandbox', 'allowed-destinations'])
  })

  it('audit list takes -p/--profile as a filter', async () => {
    const mine = await cli(['audit', 'list', '-p', 'sandbox'])
    expect(mine.code, mine.stderr).toBe(0)
    expect((mine.json() as any[]).length).toBeGreaterThan(0)
    expect((mine.json() as any[]).every((r) => r.profile === 'sandbox')).toBe(true)
    expect((await cli(['audit', 'list', '--profile', 'prod'])).json()).toEqual([])
  })
})

describe('lists send only documented values', () => {
  it('rail groups go out as the concrete rails', async () => {
    const r = await cli(['transfers', 'list', '--rail', 'ach', '--rail', 'wire', '--limit', '1', '--debug'])
    expect(r.code).toBe(0)
    const sent = /GET (\/api\/treasury\/account-transfers\?\S+)/.exec(r.stderr)![1]
    expect(new URL(sent, 'http://x').searchParams.getAll('rail').sort()).toEqual(['same_day_ach', 'standard_ach', 'wire'])
  })

  it('payers --limit stops at 100; payees keep 500', async () => {
    expect((await refused(['payers', 'list', '--limit', '101'])).code).toBe(2)
    expect((await cli(['payers', 'list', '--limit', '100'])).code).toBe(0)
    expect((await cli(['payees', 'list', '--limit', '500'])).code).toBe(0)
  })
})

describe('transfers create --metadata-json', () => {
  it('sends JSON values, merged with --metadata', async () => {
    const r = await cli(['transfers', 'create', '--from', main, '--to', gbp, '--amount', '1.00', '--currency', 'USD', '--rail', 'wire', '--metadata', 'po=PO-9', '--metadata-json', '{"n": 42, "ok": true, "inv": {"id": "I-1"}}'])
    expect(r.code, r.stderr).toBe(0)
    // With the request's Idempotency-Key, which payops carries there to find the transfer after a lost answer.
    expect(r.json().client_metadata).toEqual({po: 'PO-9', n: 42, ok: true, inv: {id: 'I-1'}, payops_idempotency_key: outcomeOf(r).idempotency_key})
  })

  it('anything but a JSON object is exit 2 before any request', async () => {
    for (const bad of ['[1, 2]', '"text"', '{broken']) {
      const r = await refused(['transfers', 'create', '--from', main, '--to', gbp, '--amount', '1.00', '--currency', 'USD', '--rail', 'wire', '--metadata-json', bad])
      expect(r.code, r.stderr).toBe(2)
      expect(errorLine(r.stderr)).toMatch(/--metadata-json/)
    }
  })
})

describe('help', () => {
  /** The commands as oclif knows them (the manifest it loads instead of the command files). */
  const manifest = JSON.parse(readFileSync(join(ROOT, 'oclif.manifest.json'), 'utf8')) as {commands: Record<string, {id: string; hidden?: boolean; examples?: unknown[]}>}
  const visible = Object.values(manifest.commands).filter((c) => !c.hidden)

  it('every command shows examples', async () => {
    // The rule holds for every command, not a list of some: a command without examples fails here by name.
    expect(visible.map((c) => c.id)).toEqual(expect.arrayContaining(['subaccounts:get', 'moves:cancel', 'profiles:list', 'profiles:show', 'profiles:remove', 'profiles:use']))
    // An example is a command line, or {description, command}.
    const isExample = (e: unknown) => (typeof e === 'string' ? e : (e as {command?: unknown})?.command)?.toString().includes('<%= config.bin %>') ?? false
    const without = visible.filter((c) => !Array.isArray(c.examples) || c.examples.length === 0 || !c.examples.every(isExample)).map((c) => c.id)
    expect(without, 'commands without examples').toEqual([])
    // And --help shows them: an EXAMPLES section with a payops command line (oclif puts `$ ` before
    // the ones that start with the command itself).
    for (const c of visible) {
      const r = await cli([...c.id.split(':'), '--help'])
      expect(r.code, c.id).toBe(0)
      const section = /\nEXAMPLES\n([\s\S]*?)(?=\n[A-Z][A-Z ]*\n|$)/.exec(r.stdout)?.[1]
      expect(section, `${c.id}: ${r.stdout}`).toMatch(/^\s+(\$ )?\S.*\bpayops /m)
    }
    for (const id of ['subaccounts get', 'moves cancel', 'profiles list', 'profiles show', 'profiles remove', 'profiles use']) {
      expect((await cli([...id.split(' '), '--help'])).stdout, id).toMatch(/EXAMPLES\n\s+\$ payops /)
    }
  })

  it('an unknown flag names the nearest one, exit 2', async () => {
    const r = await refused(['transfers', 'list', '--ordr', 'asc'])
    expect(r.code).toBe(2)
    expect(errorLine(r.stderr)).toMatch(/Nonexistent flag: --ordr\. Did you mean --order\?/)
  })
})
