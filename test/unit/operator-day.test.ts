/**
 * Operator papercuts: amount filters as decimals, one rule for ranges, profile limits that say what
 * they did, flag suggestions, rail groups expanded on the client, transfer metadata as JSON.
 */
import {Flags, Parser} from '@oclif/core'
import {describe, expect, it} from 'vitest'
import {usage} from './support.js'
import {fakeOrigin} from './doubles.js'
import {
  dateRange,
  dateTimeRange,
  flagSuggestion,
  parseAmountRange,
  parseDateTimeBound,
  parseMetadata,
  parseName,
  parsePartyFilters,
  suggestFlag,
} from '../../src/flags.js'
import {applySetting, unsetSetting} from '../../src/config/settings.js'
import {formatLimits} from '../../src/output/columns.js'
import {TransfersApi} from '../../src/api/transfers.js'
import {TreasuryApi} from '../../src/api/treasury.js'
import {SubaccountsApi} from '../../src/api/subaccounts.js'
import {ApiClient, type QueryValue} from '../../src/api/client.js'
import type * as z from 'zod/mini'
import {UsageError} from '../../src/errors.js'

const A = '11111111-1111-4111-8111-111111111111'
const B = '22222222-2222-4222-8222-222222222222'
const C = '33333333-3333-4333-8333-333333333333'

async function usageAsync(p: Promise<unknown>): Promise<UsageError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  )
  expect(err).toBeInstanceOf(UsageError)
  return err as UsageError
}

describe('amount ranges: decimals in a currency, or minor units', () => {
  const never = () => Promise.reject(new Error('the currency must not be looked up'))

  it('reads --amount-gte/--amount-lte as exact decimals in the currency given', async () => {
    expect(await parseAmountRange({'amount-gte': '100', 'amount-lte': '1,234.56'}, async () => 'USD')).toEqual({gte: 10000, lte: 123456})
    expect(await parseAmountRange({'amount-gte': '100'}, async () => 'jpy')).toEqual({gte: 100})
    expect(await parseAmountRange({'amount-lte': '1.5'}, async () => 'KWD')).toEqual({lte: 1500})
    expect(await parseAmountRange({'amount-gte': '0'}, async () => 'USD')).toEqual({gte: 0})
  })

  it('takes --amount-minor-gte/--amount-minor-lte as minor units without asking for a currency', async () => {
    expect(await parseAmountRange({'amount-minor-gte': '100', 'amount-minor-lte': '250'}, never)).toEqual({gte: 100, lte: 250})
    expect(await parseAmountRange({}, never)).toEqual({gte: undefined, lte: undefined})
    expect((await usageAsync(parseAmountRange({'amount-minor-gte': '1.5'}, never))).message).toMatch(/--amount-minor-gte/)
  })

  it('refuses malformed decimals before the currency is looked up, and too many decimals after', async () => {
    expect((await usageAsync(parseAmountRange({'amount-gte': 'ten'}, never))).message).toMatch(/--amount-gte "ten" is not a decimal.*--amount-minor-gte/)
    expect((await usageAsync(parseAmountRange({'amount-lte': '-5'}, never))).message).toMatch(/--amount-lte/)
    expect((await usageAsync(parseAmountRange({'amount-gte': '1.234'}, async () => 'USD'))).message).toMatch(/--amount-gte: .*more than 2 decimal places/)
    expect((await usageAsync(parseAmountRange({'amount-gte': '1.5'}, async () => 'JPY'))).message).toMatch(/JPY has no minor unit/)
  })

  it('an inverted range is exit 2 naming both flags, in any mix of units', async () => {
    expect((await usageAsync(parseAmountRange({'amount-gte': '5.00', 'amount-lte': '1.00'}, async () => 'USD'))).message).toMatch(/--amount-gte 5\.00 is more than --amount-lte 1\.00/)
    expect((await usageAsync(parseAmountRange({'amount-minor-gte': '500', 'amount-minor-lte': '100'}, never))).message).toMatch(/--amount-minor-gte 500 .* --amount-minor-lte 100/)
    expect((await usageAsync(parseAmountRange({'amount-gte': '5.00', 'amount-minor-lte': '100'}, async () => 'USD'))).message).toMatch(/--amount-gte 5\.00 .* --amount-minor-lte 100/)
    expect(await parseAmountRange({'amount-gte': '1.00', 'amount-minor-lte': '100'}, async () => 'USD')).toEqual({gte: 100, lte: 100})
  })
})

describe('ranges of dates: one rule everywhere', () => {
  it('a bare date is the start of its day as a lower bound and its end as an upper bound', () => {
    expect(parseDateTimeBound('2026-01-10', '--x', 'gte')).toBe('2026-01-10T00:00:00Z')
    expect(parseDateTimeBound('2026-01-10', '--x', 'lte')).toBe('2026-01-10T23:59:59.999Z')
    expect(parseDateTimeBound('2026-01-10T12:00:00Z', '--x', 'lte')).toBe('2026-01-10T12:00:00Z')
    expect(dateTimeRange('2026-01-10', '2026-01-10', 'effective-at')).toEqual({gte: '2026-01-10T00:00:00Z', lte: '2026-01-10T23:59:59.999Z'})
    expect(dateRange('2026-01-01', '2026-01-01', 'transaction-date')).toEqual({gte: '2026-01-01', lte: '2026-01-01'})
  })

  it('an inverted range is exit 2 naming both flags', () => {
    expect(usage(() => dateRange('2026-01-10', '2026-01-01', 'transaction-date')).message).toMatch(/--transaction-date-gte 2026-01-10 is after --transaction-date-lte 2026-01-01/)
    expect(usage(() => dateTimeRange('2026-01-10T00:00:01Z', '2026-01-09', 'created-at')).message).toMatch(/--created-at-gte .* --created-at-lte 2026-01-09/)
    expect(usage(() => parsePartyFilters({'created-at-gte': '2026-02-01', 'created-at-lte': '2026-01-31'})).message).toMatch(/--created-at-gte .* --created-at-lte/)
    usage(() => dateTimeRange('2026-02-30', undefined, 'created-at'))
  })
})

describe('names', () => {
  it('trims, and refuses blank names', () => {
    expect(parseName('  Payroll ', '--name')).toBe('Payroll')
    expect(usage(() => parseName('   ', '--name')).message).toMatch(/--name is blank/)
    expect(usage(() => parseName('', '--label')).message).toMatch(/--label is blank/)
  })
})

describe('transfer metadata', () => {
  it('--metadata-json is an object of any JSON values, merged with --metadata', () => {
    expect(parseMetadata(['po=PO-7'], '{"n": 42, "ok": true, "inv": {"id": "x"}}')).toEqual({po: 'PO-7', n: 42, ok: true, inv: {id: 'x'}})
    expect(parseMetadata(undefined, '{}')).toEqual({})
    expect(parseMetadata(['a=1'], undefined)).toEqual({a: '1'})
    expect(parseMetadata(undefined, undefined)).toBeUndefined()
  })
  it('anything but a JSON object, and a key given twice, are exit 2', () => {
    for (const bad of ['[1]', '"s"', '42', 'null', '{nope']) expect(usage(() => parseMetadata(undefined, bad)).message).toMatch(/--metadata-json/)
    expect(usage(() => parseMetadata(['a=1'], '{"a": 2}')).message).toMatch(/"a" given in both/)
  })
})

describe('profile limits', () => {
  const limited = applySetting(applySetting({}, 'max-amount', ['100', 'USD']).profile, 'allowed-destinations', [A]).profile

  it('unsetting a max-amount that is not there is exit 2 naming what is', () => {
    const err = usage(() => unsetSetting(limited, 'max-amount', ['EUR'], 'prod'))
    expect(err.message).toMatch(/no max-amount for EUR/)
    expect(err.message).toMatch(/USD \(100\.00 USD\)/)
    usage(() => unsetSetting({}, 'max-amount', [], 'prod'))
    usage(() => unsetSetting({}, 'allowed-destinations', [], 'prod'))
    expect(unsetSetting(limited, 'max-amount', ['usd'], 'prod').message).toBe('max-amount removed for USD.')
  })

  it('allowed-destinations must be UUIDs; nothing is changed otherwise', () => {
    expect(usage(() => applySetting(limited, 'allowed-destinations', ['nope'])).message).toMatch(/Not a UUID: "nope"/)
    expect(usage(() => applySetting(limited, 'allowed-destinations', [`${B},nope`])).message).toMatch(/"nope"/)
  })

  it('says whether it replaced or added, and --add adds', () => {
    const first = applySetting({}, 'allowed-destinations', [A])
    expect(first.message).toBe('1 allowed destination set.')
    const replaced = applySetting(first.profile, 'allowed-destinations', [B, C])
    expect(replaced.message).toMatch(/^Replaced the 1 allowed destination with 2/)
    expect(replaced.profile.limits?.allowed_destinations).toEqual([B, C])
    const added = applySetting(first.profile, 'allowed-destinations', [`${A},${B}`], {add: true})
    expect(added.message).toBe('Added 1 allowed destination (1 already in the list); the list now has 2.')
    expect(added.profile.limits?.allowed_destinations).toEqual([A, B])
    usage(() => applySetting(first.profile, 'max-amount', ['1', 'USD'], {add: true}))
  })

  it('unsetting one destination keeps the rest; the last one needs the whole-list form', () => {
    const two = applySetting(limited, 'allowed-destinations', [B], {add: true}).profile
    expect(unsetSetting(two, 'allowed-destinations', [A], 'prod').profile.limits?.allowed_destinations).toEqual([B])
    expect(usage(() => unsetSetting(two, 'allowed-destinations', [C], 'prod')).message).toMatch(/not in the allowed-destinations/)
    expect(usage(() => unsetSetting(limited, 'allowed-destinations', [A], 'prod')).message).toMatch(/allow every destination/)
  })

  it('limits read as money', () => {
    expect(formatLimits(limited.limits)).toBe('max 100.00 USD; 1 allowed destination')
    expect(formatLimits({max_amount: {USD: 500000, JPY: 700}, allowed_destinations: [A, B]}, {ids: true})).toBe(`max 5,000.00 USD; max 700 JPY; allowed destinations: ${A}, ${B}`)
  })
})

describe('flag suggestions', () => {
  const known = ['limit', 'cursor', 'order', 'all', 'max-items', 'max-retries', 'amount-gte', 'amount-minor-gte', 'amount-in-minor-units-gte', 'created-at-gte', 'created_at_gte', 'idempotency-key', 'output', 'yes']

  it('names the nearest flag', () => {
    expect(suggestFlag('--ordr', known)).toBe('--order')
    expect(suggestFlag('--ordr=asc', known)).toBe('--order')
    expect(suggestFlag('--lmit', known)).toBe('--limit')
    expect(suggestFlag('--amount-minor-gt', known)).toBe('--amount-minor-gte')
    expect(suggestFlag('--created_at-gte', known)).toBe('--created-at-gte')
    expect(suggestFlag('--idempotency', known)).toBe('--idempotency-key')
    expect(suggestFlag('ordr', ['--order'])).toBe('--order')
  })

  it('says nothing when nothing is close, or for one-letter flags', () => {
    expect(suggestFlag('--xyzzy', known)).toBeUndefined()
    expect(suggestFlag('--max', known)).toBeUndefined()
    expect(suggestFlag('--zz', known)).toBeUndefined()
    expect(suggestFlag('-x', known)).toBeUndefined()
    expect(suggestFlag('--', known)).toBeUndefined()
  })

  it('reads the unknown flags and the definitions from oclif\'s own parse error', async () => {
    const flags = {order: Flags.string(), limit: Flags.integer(), color: Flags.boolean({allowNo: true}), 'api-key': Flags.string({aliases: ['apikey']})}
    const fail = (argv: string[]) => Parser.parse(argv, {flags, strict: true}).then(() => undefined, (e: unknown) => e)
    expect(flagSuggestion(await fail(['--ordr', 'asc']))).toBe('Did you mean --order?')
    expect(flagSuggestion(await fail(['--no-colr']))).toBe('Did you mean --no-color?')
    expect(flagSuggestion(await fail(['--ordr=asc', '--limt', '5']))).toBe('Did you mean --order (for --ordr), --limit (for --limt)?')
    expect(flagSuggestion(await fail(['--xyzzy']))).toBe('')
    expect(flagSuggestion(new Error('other'))).toBe('')
  })
})

/**
 * A client that records the query of each page request; its origin answers every list with
 * `items` and a subaccount with one that does not report its currency.
 */
function fakeClient(items: unknown[] = []) {
  const queries: Array<{path: string; query: Record<string, QueryValue>}> = []
  class RecordingClient extends ApiClient {
    override page<S extends z.ZodMiniType>(path: string, query: Record<string, QueryValue>, item: S) {
      queries.push({path, query})
      return super.page(path, query, item)
    }
  }
  const {baseUrl, transport} = fakeOrigin((req) =>
    req.path.startsWith('/api/subaccounts/')
      ? {status: 200, body: {data: {id: 'sub', name: 'sub', currency_code: null}}}
      : {status: 200, body: {data: items, has_more: false, next_cursor: null}},
  )
  return {client: new RecordingClient({baseUrl, transport}), queries}
}

describe('transfer list filters', () => {
  it('rail groups are expanded into the documented rails before sending', async () => {
    const {client, queries} = fakeClient()
    const api = new TransfersApi(client)
    await api.listPage({rail: ['ach']})
    await api.listPage({rail: ['instant', 'wire']})
    await api.listPage({rail: ['all']})
    await api.listPage({})
    expect(queries.map((q) => q.query.rail)).toEqual([
      ['same_day_ach', 'standard_ach'],
      ['instant_card', 'instant_bank', 'wire'],
      ['instant_card', 'instant_bank', 'same_day_ach', 'standard_ach', 'wire'],
      undefined,
    ])
  })

  it('amounts are read in --currency, else in the one currency of the --account accounts', async () => {
    const {client} = fakeClient([
      {id: A, label: 'a', currency_code: 'gbp'},
      {id: B, label: 'b', currency_code: 'GBP'},
      {id: C, label: 'c', currency_code: 'USD'},
    ])
    const treasury = new TreasuryApi(client)
    expect(await treasury.amountFilterCurrency(undefined, 'eur')).toBe('EUR')
    expect(await treasury.amountFilterCurrency([A, B], undefined)).toBe('GBP')
    expect((await usageAsync(treasury.amountFilterCurrency(undefined, undefined))).message).toMatch(/give --currency, or .*--amount-minor-gte/)
    expect((await usageAsync(treasury.amountFilterCurrency([A, C], undefined))).message).toMatch(/different currencies .*GBP.*USD/)
    expect((await usageAsync(treasury.amountFilterCurrency(['nope'], undefined))).message).toMatch(/nope is not in GET \/api\/treasury\/accounts/)
  })

  it('a subaccount that does not report its currency cannot read decimal amounts', async () => {
    const {client} = fakeClient()
    expect((await usageAsync(new SubaccountsApi(client).activityAmountCurrency('sub'))).message).toMatch(/--amount-minor-gte/)
  })
})
