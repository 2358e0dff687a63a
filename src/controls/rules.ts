/**
 * The rules `payops watch` checks, kept in the profile (`profiles set NAME watch RULE ARGS...`,
 * removed with `profiles unset NAME watch [RULE [ARG]]`): parsed and described here, pure.
 */
import {UsageError} from '../errors.js'
import {formatMoney, normalizeCurrency, parseAmount} from '../money.js'

export type WatchRule =
  | {rule: 'min-balance'; subaccount: string; amount_in_minor_units: number; currency_code: string}
  | {rule: 'transfer-failed'}
  | {rule: 'transfer-stuck'; hours: number}
  | {rule: 'approval-waiting'; hours: number}
  | {rule: 'reconcile-exceptions'; account: string}

export const RULE_NAMES = ['min-balance', 'transfer-failed', 'transfer-stuck', 'approval-waiting', 'reconcile-exceptions'] as const

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
/** Hours up to a year; fractions allowed (0.5 is half an hour). */
const MAX_HOURS = 24 * 366

const USAGE: Record<(typeof RULE_NAMES)[number], string> = {
  'min-balance': 'watch min-balance SUBACCOUNT_ID AMOUNT CURRENCY',
  'transfer-failed': 'watch transfer-failed',
  'transfer-stuck': 'watch transfer-stuck HOURS',
  'approval-waiting': 'watch approval-waiting HOURS',
  'reconcile-exceptions': 'watch reconcile-exceptions ACCOUNT_ID',
}

function hoursOf(v: string | undefined, rule: string): number {
  const n = v !== undefined && /^\d+(\.\d+)?$/.test(v.trim()) ? Number(v) : Number.NaN
  if (!(n > 0 && n <= MAX_HOURS)) throw new UsageError(`${rule}: HOURS must be a number above 0 and at most ${MAX_HOURS} (got "${v ?? ''}"). Usage: profiles set NAME ${USAGE[rule as keyof typeof USAGE]}`)
  return n
}

function idOf(v: string | undefined, rule: string, what: string): string {
  if (!v || !UUID_RE.test(v)) throw new UsageError(`${rule}: ${what} must be a UUID (got "${v ?? ''}"). Usage: profiles set NAME ${USAGE[rule as keyof typeof USAGE]}`)
  return v.toLowerCase()
}

/** `RULE ARGS...` as given to `profiles set NAME watch`. */
export function parseRule(values: string[]): WatchRule {
  const [name, ...args] = values
  if (!(RULE_NAMES as readonly string[]).includes(name ?? '')) {
    throw new UsageError(`Unknown watch rule "${name ?? ''}" (use ${RULE_NAMES.join(', ')}).`)
  }
  const rule = name as (typeof RULE_NAMES)[number]
  const arity = {'min-balance': 3, 'transfer-failed': 0, 'transfer-stuck': 1, 'approval-waiting': 1, 'reconcile-exceptions': 1}[rule]
  if (args.length !== arity) throw new UsageError(`Usage: profiles set NAME ${USAGE[rule]}`)
  switch (rule) {
    case 'min-balance': {
      const currency = normalizeCurrency(args[2])
      return {rule, subaccount: idOf(args[0], rule, 'SUBACCOUNT_ID'), amount_in_minor_units: parseAmount(args[1], currency), currency_code: currency}
    }
    case 'transfer-failed':
      return {rule}
    case 'transfer-stuck':
    case 'approval-waiting':
      return {rule, hours: hoursOf(args[0], rule)}
    case 'reconcile-exceptions':
      return {rule, account: idOf(args[0], rule, 'ACCOUNT_ID')}
  }
}

/** A rule's identity in the list: one rule per name, or per subaccount or account for those that take one. */
export function ruleId(r: WatchRule): string {
  if (r.rule === 'min-balance') return `min-balance:${r.subaccount}`
  if (r.rule === 'reconcile-exceptions') return `reconcile-exceptions:${r.account}`
  return r.rule
}

/** `min-balance 2b4d…: below 50.00 USD` */
export function describeRule(r: WatchRule): string {
  switch (r.rule) {
    case 'min-balance':
      return `min-balance ${r.subaccount}: below ${formatMoney(r.amount_in_minor_units, r.currency_code)}`
    case 'transfer-failed':
      return 'transfer-failed'
    case 'transfer-stuck':
      return `transfer-stuck: approved or initiated over ${r.hours} h`
    case 'approval-waiting':
      return `approval-waiting: over ${r.hours} h`
    case 'reconcile-exceptions':
      return `reconcile-exceptions ${r.account}`
  }
}

/** The list with `rule` added, replacing the one of the same identity. */
export function withRule(list: WatchRule[] | undefined, rule: WatchRule): {list: WatchRule[]; replaced: boolean} {
  const id = ruleId(rule)
  const rest = (list ?? []).filter((r) => ruleId(r) !== id)
  return {list: [...rest, rule], replaced: rest.length !== (list ?? []).length}
}

/**
 * The list without the rules `values` name: all (no values), every rule of a name (`transfer-stuck`,
 * `min-balance`), or one (`min-balance SUBACCOUNT_ID`). Removing what is not there is exit 2.
 */
export function withoutRules(list: WatchRule[] | undefined, values: string[], profile: string): {list: WatchRule[]; removed: number} {
  const have = list ?? []
  if (have.length === 0) throw new UsageError(`Profile "${profile}" has no watch rules to remove.`)
  if (values.length === 0) return {list: [], removed: have.length}
  if (values.length > 2) throw new UsageError('Usage: profiles unset NAME watch [RULE [SUBACCOUNT_ID|ACCOUNT_ID]]')
  const [name, id] = values
  const keep = have.filter((r) => !(r.rule === name && (id === undefined || ruleId(r) === `${name}:${id.toLowerCase()}`)))
  if (keep.length === have.length) {
    throw new UsageError(`Profile "${profile}" has no watch rule ${values.join(' ')} (it has: ${have.map(ruleId).join(', ')}). Nothing was changed.`)
  }
  return {list: keep, removed: have.length - keep.length}
}
