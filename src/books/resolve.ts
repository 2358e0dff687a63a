/**
 * `reconcile resolve KEY --as LABEL [--note TEXT]`: the operator's decision on one exception,
 * kept in the control store (controls.sqlite, or the team store: a later decision on the same key
 * replaces it in force, the earlier stays on record) and recorded in the audit trail (before it is
 * written, and with its outcome), so who decided what stays provable.
 */
import type {CommandContext} from '../context/index.js'
import {newOpId} from '../api/audit-info.js'
import {LocalNotFoundError, UsageError} from '../errors.js'
import {EXCEPTION_KINDS} from './reconcile.js'
import {BooksStore} from './store.js'
import {openForDecision} from '../control/books.js'
import type {OperatorRecords, Resolution} from '../control/records-types.js'

export const MAX_LABEL = 64
export const MAX_NOTE = 500
const KEY = /^([a-z_]+):([^\s:]{1,200})(?::([^\s:]{1,200}))?$/
/** A short key (the start of an item's ids, as `reconcile` shows it at 80 columns). */
const SHORT = /^[0-9A-Za-z-]{4,200}$/
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2066-\u2069]/

export interface ResolveOptions {
  key: string
  label: string
  note?: string
}

function clean(value: string, flag: string, max: number): string {
  const v = value.trim()
  if (v.length === 0) throw new UsageError(`${flag} must not be empty.`)
  if (v.length > max) throw new UsageError(`${flag} must be at most ${max} characters.`)
  if (CONTROL.test(v)) throw new UsageError(`${flag} must not contain control or invisible characters.`)
  return v
}

export function parseResolve(opts: ResolveOptions): {key: string; label: string; note: string | null} {
  const key = opts.key.trim()
  const m = KEY.exec(key)
  if (!m && !SHORT.test(key)) throw new UsageError(`"${opts.key}" is not a reconciliation key: copy the \`key\` of an item of \`payops reconcile\` (e.g. bank_only:ID, or the short key a narrow table shows).`)
  if (m && !EXCEPTION_KINDS.has(m[1])) throw new UsageError(`${key} is a ${m[1]} item, not an exception: only ${[...EXCEPTION_KINDS].join(', ')} items are resolved.`)
  return {key, label: clean(opts.label, '--as', MAX_LABEL), note: opts.note === undefined ? null : clean(opts.note, '--note', MAX_NOTE)}
}

/**
 * The whole key of the exception `given` names: a key a reconciliation here found (or one decided
 * before), or the unique start of one, or of its ids. None is exit 4, several exit 2; nothing is
 * written either way.
 */
export async function itemKey(store: BooksStore, records: OperatorRecords, given: string): Promise<string> {
  if (await records.resolution(given)) return given
  const found = store.itemsNamed(given)
  if (found.length === 1) return found[0].key
  if (found.length === 0) {
    throw new LocalNotFoundError(`No reconciliation on this machine found an exception with the key ${given}: run \`payops reconcile ACCOUNT --from … --to …\` and copy the key of one of its exceptions. Nothing was recorded.`)
  }
  const shown = found.slice(0, 5).map((i) => i.key).join(', ')
  throw new UsageError(`${given} is the start of more than one key (${shown}${found.length > 5 ? ', …' : ''}): give more of it, or the whole key (\`payops reconcile … --wide\` shows whole keys). Nothing was recorded.`)
}

/**
 * Records the decision in the control store (the team's, when the profile names one: a decision
 * refuses, exit 7, when it cannot be reached), with its intent and outcome in the audit trail.
 */
export async function resolve(opts: ResolveOptions, ctx: CommandContext): Promise<Resolution & {replaced: Resolution | null}> {
  const parsed = parseResolve(opts)
  const {label, note} = parsed
  const profile = ctx.profile.profileName ?? null
  const control = await openForDecision(ctx)
  const store = BooksStore.open(ctx.configDir)
  try {
    const key = await itemKey(store, control.records, parsed.key)
    const audit = ctx.audit()
    const op = newOpId()
    const base = {op, method: 'LOCAL', path: `reconcile resolve ${key}`, details: JSON.stringify({label, note})}
    const replaced = (await control.records.resolution(key)) ?? null
    await audit.intent(base)
    const decision = await control.records.resolve({key, label, note, decided_at: new Date(ctx.clock.now()).toISOString(), profile})
    await audit.outcome({...base, resource_id: key, outcome: replaced ? 'replaced' : 'resolved', resource_status: label})
    return {...decision, replaced}
  } finally {
    store.close()
    await control.close()
  }
}
