/** Flag values shared by several commands, parsed into options with usage errors (exit 2). */
import {Flags} from '@oclif/core'
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
  const gte = optional(f['created-at-gte'], '--created-at-gte', parseDate)
  const lte = optional(f['created-at-lte'], '--created-at-lte', parseDate)
  if (gte !== undefined && lte !== undefined && gte > lte) throw new UsageError(`--created-at-gte ${gte} is after --created-at-lte ${lte}.`)
  return {email: f.email, name: f.name, has_default: f['has-default'], created_at_gte: gte, created_at_lte: lte}
}

/** `a,b,c` (or repeated flags) into a list of trimmed, non-empty values. */
export function parseList(input: string | string[] | undefined, flag: string): string[] | undefined {
  if (input === undefined) return undefined
  const values = (Array.isArray(input) ? input : [input]).flatMap((s) => s.split(',')).map((s) => s.trim())
  if (values.length === 0 || values.some((v) => v === '')) throw new UsageError(`${flag} has an empty value: give a comma-separated list (a,b).`)
  return values
}

export {readFileArg, readStdin} from './files.js'
