/** Flag values shared by several commands, parsed into options with usage errors (exit 2). */
import * as Flags from '@oclif/core/flags'
import {UsageError} from './errors.js'
import {normalizeCurrency, parseAmount, parseMinorUnits} from './money.js'

/** `--amount 12.34 [--currency USD] | --amount-minor 1234`, with the API mirror name as alias. */
export const moneyFlags = {
  amount: Flags.string({summary: 'Amount as a decimal in the currency (e.g. 1234.56); parsed exactly.', exclusive: ['amount-minor']}),
  currency: Flags.string({summary: 'ISO 4217 currency of --amount (default: the account\'s currency, else USD).'}),
  'amount-minor': Flags.string({
    summary: 'Amount as an integer in minor units (e.g. 123456 for 1,234.56 USD).',
    aliases: ['amount-in-minor-units'],
    exclusive: ['amount'],
  }),
}

export interface MoneyInput {
  amount?: string
  currency?: string
  'amount-minor'?: string
}

/** Parses the money flags; `fallbackCurrency` is the account's currency when known. */
export function parseMoneyFlags(f: MoneyInput, fallbackCurrency?: string | null): {minor: number; currency: string} {
  if (f.currency !== undefined && f.currency.trim() === '') throw new UsageError('--currency is empty.')
  const currency = normalizeCurrency(f.currency ?? fallbackCurrency ?? 'USD')
  if (f.amount !== undefined) return {minor: parseAmount(f.amount, currency), currency}
  if (f['amount-minor'] !== undefined) return {minor: parseMinorUnits(f['amount-minor']), currency}
  throw new UsageError('Give an amount: --amount 12.34 (decimal) or --amount-minor 1234 (minor units).')
}

/** The amount flags as the movement pipeline takes them (parsed there, in the source's currency). */
export function amountInput(f: MoneyInput): {decimal: string} | {minor: number} {
  if (f.amount !== undefined) return {decimal: f.amount}
  if (f['amount-minor'] !== undefined) return {minor: parseMinorUnits(f['amount-minor'])}
  throw new UsageError('Give an amount: --amount 12.34 (decimal) or --amount-minor 1234 (minor units).')
}

/** `k=v` pairs (repeatable flag) into an object; later keys win. */
export function parseKeyValues(pairs: string[] | undefined, flag: string): Record<string, string> | undefined {
  if (!pairs || pairs.length === 0) return undefined
  const out: Record<string, string> = {}
  for (const pair of pairs) {
    const i = pair.indexOf('=')
    if (i <= 0) throw new UsageError(`${flag} "${pair}" must be key=value.`)
    out[pair.slice(0, i)] = pair.slice(i + 1)
  }
  return out
}

const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})$/

/** A calendar date `YYYY-MM-DD` that exists (no 2024-02-30). */
export function parseDate(input: string, flag: string): string {
  const m = DATE_RE.exec(input.trim())
  if (m) {
    const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])))
    if (d.getUTCFullYear() === Number(m[1]) && d.getUTCMonth() === Number(m[2]) - 1 && d.getUTCDate() === Number(m[3])) return input.trim()
  }
  throw new UsageError(`${flag} "${input}" is not a valid date: use YYYY-MM-DD.`)
}

/** An ISO 8601 date-time (a bare date means its start, UTC). */
export function parseDateTime(input: string, flag: string): string {
  const s = input.trim()
  if (DATE_RE.test(s)) return `${parseDate(s, flag)}T00:00:00Z`
  if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/.test(s) && !Number.isNaN(Date.parse(s)) && new Date(`${s.slice(0, 10)}T00:00:00Z`).toISOString().startsWith(s.slice(0, 10))) return s
  throw new UsageError(`${flag} "${input}" is not an ISO 8601 date-time (e.g. 2026-01-31T12:00:00Z).`)
}

/** Applies a flag parser only when the flag was given. */
export function optional<T>(input: string | undefined, flag: string, parse: (value: string, flag: string) => T): T | undefined {
  return input === undefined ? undefined : parse(input, flag)
}

export function parseIntegerFlag(input: string | undefined, flag: string): number | undefined {
  if (input === undefined) return undefined
  if (!/^-?\d+$/.test(input.trim())) throw new UsageError(`${flag} "${input}" must be a whole number.`)
  const n = Number(input)
  if (!Number.isSafeInteger(n)) throw new UsageError(`${flag} "${input}" is too large.`)
  return n
}

/** Filters of `payers list` and `payees list` (the API's identical parameters). */
export const partyListFlags = {
  email: Flags.string({summary: 'Email contains this text (case-insensitive).'}),
  name: Flags.string({summary: 'Name contains this text (case-insensitive).'}),
  'has-default': Flags.boolean({summary: 'Only parties with (--has-default) or without (--no-has-default) a default payment method.', allowNo: true}),
  'created-at-gte': Flags.string({summary: 'Created on or after this date (YYYY-MM-DD, inclusive, UTC).', aliases: ['created_at_gte']}),
  'created-at-lte': Flags.string({summary: 'Created on or before this date (YYYY-MM-DD, inclusive, UTC).', aliases: ['created_at_lte']}),
}

export interface PartyListInput {
  email?: string
  name?: string
  'has-default'?: boolean
  'created-at-gte'?: string
  'created-at-lte'?: string
}

/** The party-list filters as query parameters; dates are validated (exit 2) before any request. */
export function parsePartyFilters(f: PartyListInput): {email?: string; name?: string; has_default?: boolean; created_at_gte?: string; created_at_lte?: string} {
  const {gte, lte} = dateRange(f['created-at-gte'], f['created-at-lte'], 'created-at')
  return {email: f.email, name: f.name, has_default: f['has-default'], created_at_gte: gte, created_at_lte: lte}
}

/** `a,b,c` (or repeated flags) into a list of trimmed, non-empty values. */
export function parseList(input: string | string[] | undefined, flag: string): string[] | undefined {
  if (input === undefined) return undefined
  const values = (Array.isArray(input) ? input : [input]).flatMap((s) => s.split(',')).map((s) => s.trim())
  if (values.length === 0 || values.some((v) => v === '')) throw new UsageError(`${flag} has an empty value: give a comma-separated list (a,b).`)
  return values
}

export {readAll, readFileArg, readFileOrStdin} from './files.js'

/**
 * Ranges: the one rule of every list filter with a `*-gte`/`*-lte` pair.
 *
 * - Both bounds are inclusive.
 * - A bare date `YYYY-MM-DD` is a whole UTC day: as a lower bound its first instant, as an upper
 *   bound its last (`T23:59:59.999Z`), so `--x-gte D --x-lte D` is all of day D, whether the API
 *   takes the filter as a date (sent as the date, inclusive there) or as a date-time.
 * - A lower bound after the upper bound is a usage error (exit 2) naming both flags, before any
 *   request: an empty range is always a typo, never a query.
 */
export type Bound = 'gte' | 'lte'

/** The last instant of a UTC day, for a bare date given as an upper bound. */
const END_OF_DAY = 'T23:59:59.999Z'

/** A date-time bound: a bare date is its day's first instant (`gte`) or last instant (`lte`). */
export function parseDateTimeBound(input: string, flag: string, bound: Bound): string {
  const s = input.trim()
  if (bound === 'lte' && DATE_RE.test(s)) return `${parseDate(s, flag)}${END_OF_DAY}`
  return parseDateTime(s, flag)
}

function emptyRange(base: string, gte: string, lte: string, what = 'is after'): never {
  throw new UsageError(`--${base}-gte ${gte} ${what} --${base}-lte ${lte}: nothing can match; swap them?`)
}

/** `--BASE-gte/--BASE-lte` as ISO 8601 date-times (the rule above); exit 2 when inverted. */
export function dateTimeRange(gteInput: string | undefined, lteInput: string | undefined, base: string): {gte?: string; lte?: string} {
  const gte = optional(gteInput, `--${base}-gte`, (v, f) => parseDateTimeBound(v, f, 'gte'))
  const lte = optional(lteInput, `--${base}-lte`, (v, f) => parseDateTimeBound(v, f, 'lte'))
  if (gte !== undefined && lte !== undefined && Date.parse(gte) > Date.parse(lte)) emptyRange(base, gteInput!.trim(), lteInput!.trim())
  return {gte, lte}
}

/** `--BASE-gte/--BASE-lte` as calendar dates, both inclusive; exit 2 when inverted. */
export function dateRange(gteInput: string | undefined, lteInput: string | undefined, base: string): {gte?: string; lte?: string} {
  const gte = optional(gteInput, `--${base}-gte`, parseDate)
  const lte = optional(lteInput, `--${base}-lte`, parseDate)
  if (gte !== undefined && lte !== undefined && gte > lte) emptyRange(base, gte, lte)
  return {gte, lte}
}

/**
 * Amount filters: `--amount-gte/--amount-lte` are decimals in a currency (as `--amount` is
 * everywhere), `--amount-minor-gte/--amount-minor-lte` integers in minor units, with the API's
 * own parameter names as aliases of the minor-unit flags (the API counts in minor units).
 */
export function amountRangeFlags(opts: {currency: string; mirror: {gte: string[]; lte: string[]}}) {
  return {
    'amount-gte': Flags.string({summary: `Amount at least this decimal (e.g. 100.00), in ${opts.currency}; parsed exactly.`, exclusive: ['amount-minor-gte']}),
    'amount-lte': Flags.string({summary: `Amount at most this decimal (e.g. 250.00), in ${opts.currency}; parsed exactly.`, exclusive: ['amount-minor-lte']}),
    'amount-minor-gte': Flags.string({summary: 'Amount at least this many minor units (e.g. 10000 for 100.00 USD).', aliases: opts.mirror.gte, exclusive: ['amount-gte']}),
    'amount-minor-lte': Flags.string({summary: 'Amount at most this many minor units (e.g. 25000 for 250.00 USD).', aliases: opts.mirror.lte, exclusive: ['amount-lte']}),
  }
}

export interface AmountRangeInput {
  'amount-gte'?: string
  'amount-lte'?: string
  'amount-minor-gte'?: string
  'amount-minor-lte'?: string
}

/** The amount range flags of a command, as parseAmountRange takes them. */
export function amountRangeOf(f: AmountRangeInput): AmountRangeInput {
  return {'amount-gte': f['amount-gte'], 'amount-lte': f['amount-lte'], 'amount-minor-gte': f['amount-minor-gte'], 'amount-minor-lte': f['amount-minor-lte']}
}

const ZERO_DECIMAL_RE = /^\+?0*(\.0*)?$/
const DECIMAL_SHAPE_RE = /^\+?(\d{1,3}([,_]\d{3})+|\d*)(\.\d*)?$/

/** A decimal amount bound: as `--amount` (exact, the currency's precision), but 0 is allowed. */
export function parseAmountBound(input: string, currency: string, flag: string): number {
  const s = input.trim()
  if (/\d/.test(s) && ZERO_DECIMAL_RE.test(s)) return 0
  try {
    return parseAmount(s, currency)
  } catch (error) {
    throw new UsageError(`${flag}: ${(error as Error).message}`)
  }
}

/** A minor-unit amount bound: a whole number, 0 or more. */
export function parseMinorBound(input: string, flag: string): number {
  const s = input.trim()
  if (/^\+?0+$/.test(s)) return 0
  try {
    return parseMinorUnits(s)
  } catch (error) {
    throw new UsageError(`${flag}: ${(error as Error).message}`)
  }
}

/** Whether a decimal amount bound was given (its currency must then be known). */
export function needsAmountCurrency(f: AmountRangeInput): boolean {
  return f['amount-gte'] !== undefined || f['amount-lte'] !== undefined
}

/**
 * The amount range in minor units. `currencyOf` is asked only when a decimal bound is given (it
 * may cost a request); malformed input is refused before it is asked. Exit 2 when inverted.
 */
export async function parseAmountRange(f: AmountRangeInput, currencyOf: () => Promise<string>): Promise<{gte?: number; lte?: number}> {
  for (const b of ['gte', 'lte'] as const) {
    const v = f[`amount-${b}`]
    if (v !== undefined && !(/\d/.test(v) && DECIMAL_SHAPE_RE.test(v.trim()))) {
      throw new UsageError(`--amount-${b} "${v}" is not a decimal amount (e.g. 100.00); for minor units use --amount-minor-${b}.`)
    }
  }
  let gte = optional(f['amount-minor-gte'], '--amount-minor-gte', parseMinorBound)
  let lte = optional(f['amount-minor-lte'], '--amount-minor-lte', parseMinorBound)
  if (needsAmountCurrency(f)) {
    const currency = normalizeCurrency(await currencyOf())
    if (f['amount-gte'] !== undefined) gte = parseAmountBound(f['amount-gte'], currency, '--amount-gte')
    if (f['amount-lte'] !== undefined) lte = parseAmountBound(f['amount-lte'], currency, '--amount-lte')
  }
  if (gte !== undefined && lte !== undefined && gte > lte) {
    const name = (b: Bound) => (f[`amount-${b}`] === undefined ? `--amount-minor-${b} ${f[`amount-minor-${b}`]!.trim()}` : `--amount-${b} ${f[`amount-${b}`]!.trim()}`)
    throw new UsageError(`${name('gte')} is more than ${name('lte')}: nothing can match; swap them?`)
  }
  return {gte, lte}
}

/** A name or label: trimmed and not blank (checked before any request; the API checks its length). */
export function parseName(input: string, flag: string): string {
  const s = input.trim()
  if (s === '') throw new UsageError(`${flag} is blank: give a name of 1 to 100 characters.`)
  return s
}

/**
 * `--metadata-json '{...}'`: a JSON object whose values may be any JSON, merged over the `k=v`
 * pairs of `--metadata` (a key in both is refused rather than silently dropping one).
 */
export function parseMetadata(pairs: string[] | undefined, json: string | undefined): Record<string, unknown> | undefined {
  const base = parseKeyValues(pairs, '--metadata')
  if (json === undefined) return base
  let value: unknown
  try {
    value = JSON.parse(json)
  } catch (error) {
    throw new UsageError(`--metadata-json is not valid JSON: ${(error as Error).message}.`)
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new UsageError(`--metadata-json must be a JSON object ({"key": value, ...}), not ${value === null ? 'null' : Array.isArray(value) ? 'an array' : `a ${typeof value}`}.`)
  }
  const both = Object.keys(value).filter((k) => base && Object.hasOwn(base, k))
  if (both.length > 0) throw new UsageError(`Metadata key${both.length === 1 ? '' : 's'} ${both.map((k) => `"${k}"`).join(', ')} given in both --metadata and --metadata-json: keep one.`)
  return {...base, ...(value as Record<string, unknown>)}
}

/** Optimal string alignment distance: Levenshtein plus adjacent transpositions (ordr -> order, craete -> create). */
export function editDistance(a: string, b: string): number {
  const rows: number[][] = []
  for (let i = 0; i <= a.length; i++) {
    rows.push([i])
    for (let j = 1; j <= b.length; j++) {
      if (i === 0) {
        rows[0][j] = j
        continue
      }
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      let d = Math.min(rows[i - 1][j] + 1, rows[i][j - 1] + 1, rows[i - 1][j - 1] + cost)
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, rows[i - 2][j - 2] + 1)
      rows[i][j] = d
    }
  }
  return rows[a.length][b.length]
}

/**
 * The known flag closest to an unknown one, as it would be typed (`--order`), or undefined when
 * none is close. `unknown` is as typed (`--ordr`, `--ordr=asc`, `ordr`); `known` are long flag
 * names (with or without `--`). A name that another one starts with wins over a farther edit
 * (`--max` -> `--max-items`); otherwise the fewest edits, up to 2, or 40% of the longer name.
 */
export function suggestFlag(unknown: string, known: readonly string[]): string | undefined {
  if (unknown.startsWith('-') && !unknown.startsWith('--')) return undefined
  const kebab = (n: string) => n.toLowerCase().replace(/_/g, '-')
  const typed = kebab(unknown.replace(/^-+/, '').replace(/=.*$/s, ''))
  if (typed === '') return undefined
  const names = [...new Set(known.map((k) => k.replace(/^-+/, '')).filter(Boolean))]
  // Fewest edits; on a tie the kebab-case name (not an API-style alias), then the shorter.
  const rank = (n: string) => [editDistance(typed, kebab(n)), n.includes('_') ? 1 : 0, n.length]
  const ranked = names.map((name) => ({name, r: rank(name)})).sort((a, b) => a.r[0] - b.r[0] || a.r[1] - b.r[1] || a.r[2] - b.r[2])
  const best = ranked[0]
  if (best && best.r[0] <= (typed.length <= 3 ? 1 : Math.max(2, Math.floor(typed.length / 3)))) return `--${best.name}`
  // A unique longer name it starts (`--idempotency` -> `--idempotency-key`).
  const prefixed = names.filter((n) => typed.length >= 3 && kebab(n).startsWith(typed) && !n.includes('_'))
  return prefixed.length === 1 ? `--${prefixed[0]}` : undefined
}

/** A flag definition as oclif's parser keeps it (only what a suggestion needs). */
interface ParsedFlagDef {
  name?: string
  aliases?: string[]
  allowNo?: boolean
  hidden?: boolean
}

/**
 * "Did you mean --order?" for oclif's NonExistentFlagsError (it carries the unknown flags and the
 * command's flag definitions, base flags included), "" for any other error or when nothing is
 * close. For the one-line usage error that src/classify.ts writes.
 */
export function flagSuggestion(err: unknown): string {
  const e = err as {flags?: unknown; parse?: {input?: {flags?: Record<string, ParsedFlagDef>}}} | null
  if (!e || typeof e !== 'object' || !Array.isArray(e.flags) || !e.parse?.input?.flags) return ''
  const known = Object.entries(e.parse.input.flags)
    .filter(([, def]) => !def.hidden)
    .flatMap(([name, def]) => [name, ...(def.aliases ?? []), ...(def.allowNo ? [`no-${name}`] : [])])
  const hints = (e.flags as unknown[]).flatMap((u) => {
    const s = typeof u === 'string' ? suggestFlag(u, known) : undefined
    return s ? [{typed: String(u).replace(/=.*$/s, ''), s}] : []
  })
  if (hints.length === 0) return ''
  if (e.flags.length === 1) return `Did you mean ${hints[0].s}?`
  return `Did you mean ${hints.map((h) => `${h.s} (for ${h.typed})`).join(', ')}?`
}

/**
 * Repeatable flags take one value each time they are given (`-H a -H b`), as in gh: a plain word
 * after one is the command's argument (`webhooks trigger --secret-file F payin.settled`), never
 * a second value. Applied to every command's flags before parsing.
 */
export function oneValueEach<T extends Record<string, unknown> | undefined>(flags: T): T {
  if (!flags) return flags
  const out: Record<string, unknown> = {}
  for (const [name, f] of Object.entries(flags)) out[name] = (f as {multiple?: boolean}).multiple ? {...(f as object), multipleNonGreedy: true} : f
  return out as T
}
