import {describe, expect, it} from 'vitest'
import {usage} from './support.js'
import {parseDate, parseDateTime, parseIntegerFlag, parseKeyValues, parseMoneyFlags} from '../../src/flags.js'
import {resolveContext} from '../../src/config/resolve.js'
import type {ProfileFile} from '../../src/config/index.js'


describe('parseMoneyFlags', () => {
  it('parses --amount in USD by default', () => {
    expect(parseMoneyFlags({amount: '1,234.56'})).toEqual({minor: 123456, currency: 'USD'})
    expect(parseMoneyFlags({amount: '12.34'}, null)).toEqual({minor: 1234, currency: 'USD'})
  })

  it('uses --currency, normalised, over the fallback', () => {
    expect(parseMoneyFlags({amount: '12', currency: 'jpy'}, 'USD')).toEqual({minor: 12, currency: 'JPY'})
  })

  it('falls back to the account currency when --currency is absent', () => {
    expect(parseMoneyFlags({amount: '1.5'}, 'KWD')).toEqual({minor: 1500, currency: 'KWD'})
    expect(parseMoneyFlags({amount: '1.5'}, 'kwd')).toEqual({minor: 1500, currency: 'KWD'})
    usage(() => parseMoneyFlags({amount: '1.5'}, 'JPY'))
  })

  it('takes --amount-minor as an integer, labelled with the currency in effect', () => {
    expect(parseMoneyFlags({'amount-minor': '1234'})).toEqual({minor: 1234, currency: 'USD'})
    expect(parseMoneyFlags({'amount-minor': '1234'}, 'JPY')).toEqual({minor: 1234, currency: 'JPY'})
    expect(parseMoneyFlags({'amount-minor': '5', currency: 'EUR'}, 'JPY')).toEqual({minor: 5, currency: 'EUR'})
    expect(usage(() => parseMoneyFlags({'amount-minor': '12.5'})).message).toContain('whole number')
  })

  it('refuses an empty --currency rather than silently using a default', () => {
    expect(usage(() => parseMoneyFlags({amount: '1', currency: ''})).message).toBe('--currency is empty.')
    usage(() => parseMoneyFlags({amount: '1', currency: '   '}, 'USD'))
  })

  it('refuses an unknown currency, even for --amount-minor', () => {
    expect(usage(() => parseMoneyFlags({amount: '1', currency: 'US'})).message).toContain('Unknown currency')
    usage(() => parseMoneyFlags({'amount-minor': '1', currency: 'XXXX'}))
  })

  it('asks for an amount when none is given', () => {
    expect(usage(() => parseMoneyFlags({})).message).toContain('Give an amount')
    expect(usage(() => parseMoneyFlags({currency: 'USD'})).message).toContain('--amount-minor')
  })

  it('passes amount errors through as usage errors', () => {
    usage(() => parseMoneyFlags({amount: '0'}))
    usage(() => parseMoneyFlags({amount: '-1'}))
    usage(() => parseMoneyFlags({amount: '1.234'}))
  })
})

describe('parseKeyValues', () => {
  it('returns undefined for no pairs', () => {
    expect(parseKeyValues(undefined, '--metadata')).toBeUndefined()
    expect(parseKeyValues([], '--metadata')).toBeUndefined()
  })

  it('splits at the first =, keeps empty values, and lets later keys win', () => {
    expect(parseKeyValues(['a=1', 'b=x=y', 'c=', 'a=2'], '--metadata')).toEqual({a: '2', b: 'x=y', c: ''})
  })

  it('keeps spaces and unicode as given', () => {
    expect(parseKeyValues(['note= hello wörld '], '--metadata')).toEqual({note: ' hello wörld '})
  })

  it.each(['novalue', '=value', ''])('refuses %j naming the flag', (pair) => {
    expect(usage(() => parseKeyValues([pair], '--metadata')).message).toBe(`--metadata "${pair}" must be key=value.`)
  })
})

describe('parseDate', () => {
  it.each(['2024-02-29', '2026-01-31', '2000-02-29', '1999-12-31', '2026-04-30'])('accepts %s', (d) => {
    expect(parseDate(d, '--since')).toBe(d)
  })

  it('trims surrounding whitespace', () => {
    expect(parseDate(' 2026-01-05 ', '--since')).toBe('2026-01-05')
  })

  it.each(['2024-02-30', '2023-02-29', '1900-02-29', '2026-04-31', '2026-13-01', '2026-00-10', '2026-01-00', '2026-1-05', '26-01-05', '2026/01/05', '2026-01-05T00:00:00Z', '', 'today'])(
    'rejects %j naming the flag',
    (d) => {
      expect(usage(() => parseDate(d, '--transaction-date')).message).toBe(`--transaction-date "${d}" is not a valid date: use YYYY-MM-DD.`)
    },
  )
})

describe('parseDateTime', () => {
  it('turns a bare date into its UTC start', () => {
    expect(parseDateTime('2024-02-29', '--since')).toBe('2024-02-29T00:00:00Z')
    usage(() => parseDateTime('2024-02-30', '--since'))
  })

  it.each(['2026-01-31T12:00:00Z', '2026-01-31T12:00Z', '2026-01-31T12:00:00.123Z', '2026-01-31T12:00:00+02:00', '2026-01-31T12:00:00-0530', '2024-02-29T23:59:59+05:30'])(
    'accepts %s unchanged',
    (s) => {
      expect(parseDateTime(s, '--since')).toBe(s)
    },
  )

  it.each(['2026-01-31T12:00:00', '2026-01-31 12:00:00Z', '2026-01-31T25:00:00Z', '2026-01-31T12:60:00Z', '2024-02-30T00:00:00Z', '2026-04-31T10:00Z', '2026-13-01T00:00:00Z', 'yesterday', '1700000000'])(
    'rejects %j',
    (s) => {
      expect(usage(() => parseDateTime(s, '--effective-at-gte')).message).toContain('--effective-at-gte')
    },
  )
})

describe('parseIntegerFlag', () => {
  it('parses whole numbers and passes undefined through', () => {
    expect(parseIntegerFlag(undefined, '--limit')).toBeUndefined()
    expect(parseIntegerFlag('5', '--limit')).toBe(5)
    expect(parseIntegerFlag(' -3 ', '--amount-gte')).toBe(-3)
    expect(parseIntegerFlag('0', '--limit')).toBe(0)
    expect(parseIntegerFlag('9007199254740991', '--x')).toBe(Number.MAX_SAFE_INTEGER)
  })

  it.each(['1.5', 'abc', '', '1e3', '0x10', '5 apples'])('rejects %j', (v) => {
    expect(usage(() => parseIntegerFlag(v, '--limit')).message).toBe(`--limit "${v}" must be a whole number.`)
  })

  it('rejects integers beyond the safe range', () => {
    expect(usage(() => parseIntegerFlag('9007199254740993', '--limit')).message).toContain('too large')
  })
})

describe('resolveContext', () => {
  const PROD_KEY = 'live_Prod0000000000000001'
  const DEV_KEY = 'test_Dev00000000000000002'
  const ENV_KEY = 'test_Env00000000000000003'
  const FLAG_KEY = 'test_Flag0000000000000004'
  const file: ProfileFile = {
    active: 'dev',
    profiles: {
      prod: {api_key: PROD_KEY, base_url: 'https://api.example.com'},
      dev: {api_key: DEV_KEY, base_url: 'http://127.0.0.1:4010'},
      bare: {},
    },
  }

  it('uses the active profile when nothing else is given', () => {
    const c = resolveContext({}, {}, file)
    expect(c.profileName).toBe('dev')
    expect(c.profileProvenance).toEqual({source: 'profile', detail: 'active profile'})
    expect(c.apiKey).toBe(DEV_KEY)
    expect(c.key).toEqual({source: 'profile', detail: 'profile "dev"'})
    expect(c.baseUrl).toBe('http://127.0.0.1:4010')
    expect(c.baseUrlProvenance).toEqual({source: 'profile', detail: 'profile "dev"'})
    expect(c.mode).toBe('test')
    expect(c.envKeyOverridesProfile).toBe(false)
  })

  it('PAYOPS_PROFILE beats the active profile', () => {
    const c = resolveContext({}, {PAYOPS_PROFILE: 'prod'}, file)
    expect(c.profileName).toBe('prod')
    expect(c.profileProvenance).toEqual({source: 'env', detail: 'PAYOPS_PROFILE'})
    expect(c.key).toEqual({source: 'profile', detail: 'profile "prod"'})
    expect(c.mode).toBe('live')
  })

  it('--profile beats PAYOPS_PROFILE', () => {
    const c = resolveContext({profile: 'prod'}, {PAYOPS_PROFILE: 'dev'}, file)
    expect(c.profileName).toBe('prod')
    expect(c.profileProvenance).toEqual({source: 'flag', detail: '--profile'})
    expect(c.apiKey).toBe(PROD_KEY)
  })

  it('PAYOPS_API_KEY and PAYOPS_BASE_URL beat the profile', () => {
    const c = resolveContext({}, {PAYOPS_API_KEY: ENV_KEY, PAYOPS_BASE_URL: 'https://env.example'}, file)
    expect(c.apiKey).toBe(ENV_KEY)
    expect(c.key).toEqual({source: 'env', detail: 'PAYOPS_API_KEY'})
    expect(c.baseUrl).toBe('https://env.example')
    expect(c.baseUrlProvenance).toEqual({source: 'env', detail: 'PAYOPS_BASE_URL'})
  })

  it('flags beat the environment', () => {
    const c = resolveContext(
      {'api-key': FLAG_KEY, 'base-url': 'https://flag.example'},
      {PAYOPS_API_KEY: ENV_KEY, PAYOPS_BASE_URL: 'https://env.example'},
      file,
    )
    expect(c.apiKey).toBe(FLAG_KEY)
    expect(c.key).toEqual({source: 'flag', detail: '--api-key'})
    expect(c.baseUrl).toBe('https://flag.example')
    expect(c.baseUrlProvenance).toEqual({source: 'flag', detail: '--base-url'})
    expect(c.envKeyOverridesProfile).toBe(false)
  })

  it('ignores blank values and trims the rest', () => {
    const c = resolveContext({'api-key': '  ', profile: ''}, {PAYOPS_API_KEY: ` ${ENV_KEY} `, PAYOPS_PROFILE: '  ', PAYOPS_BASE_URL: ''}, file)
    expect(c.profileName).toBe('dev')
    expect(c.apiKey).toBe(ENV_KEY)
    expect(c.key.source).toBe('env')
    expect(c.baseUrlProvenance.source).toBe('profile')
  })

  it('refuses an unknown --profile or PAYOPS_PROFILE', () => {
    expect(usage(() => resolveContext({profile: 'nope'}, {}, file)).message).toContain('No profile named "nope" (from --profile)')
    expect(usage(() => resolveContext({}, {PAYOPS_PROFILE: 'gone'}, file)).message).toContain('(from PAYOPS_PROFILE)')
  })

  it('tolerates a dangling active profile', () => {
    const c = resolveContext({}, {PAYOPS_API_KEY: ENV_KEY}, {active: 'deleted', profiles: {}})
    expect(c.profileName).toBeUndefined()
    expect(c.profile).toBeUndefined()
    expect(c.apiKey).toBe(ENV_KEY)
  })

  it('reports nothing set with no profile and no environment', () => {
    const c = resolveContext({}, {}, {profiles: {}})
    expect(c.profileProvenance).toEqual({source: 'none', detail: 'no profile'})
    expect(c.key).toEqual({source: 'none', detail: 'not set'})
    expect(c.baseUrlProvenance).toEqual({source: 'none', detail: 'not set'})
    expect(c.apiKey).toBeUndefined()
    expect(c.mode).toBe('unknown')
  })

  it('flags envKeyOverridesProfile only when the environment key differs from the profile key', () => {
    expect(resolveContext({profile: 'prod'}, {PAYOPS_API_KEY: ENV_KEY}, file).envKeyOverridesProfile).toBe(true)
    expect(resolveContext({profile: 'prod'}, {PAYOPS_API_KEY: PROD_KEY}, file).envKeyOverridesProfile).toBe(false)
    expect(resolveContext({profile: 'bare'}, {PAYOPS_API_KEY: ENV_KEY}, file).envKeyOverridesProfile).toBe(false)
    expect(resolveContext({profile: 'prod', 'api-key': FLAG_KEY}, {PAYOPS_API_KEY: ENV_KEY}, file).envKeyOverridesProfile).toBe(false)
    expect(resolveContext({}, {PAYOPS_API_KEY: ENV_KEY}, {profiles: {}}).envKeyOverridesProfile).toBe(false)
  })

  it('derives the mode from the key in effect, not the profile', () => {
    expect(resolveContext({profile: 'prod'}, {PAYOPS_API_KEY: ENV_KEY}, file).mode).toBe('test')
    expect(resolveContext({profile: 'dev', 'api-key': PROD_KEY}, {}, file).mode).toBe('live')
    expect(resolveContext({'api-key': 'sk_other'}, {}, file).mode).toBe('unknown')
  })

  it('does not mutate the environment or the profile file', () => {
    const env = {PAYOPS_PROFILE: 'prod'}
    const copy = structuredClone(file)
    resolveContext({}, env, file)
    expect(env).toEqual({PAYOPS_PROFILE: 'prod'})
    expect(file).toEqual(copy)
  })
})
