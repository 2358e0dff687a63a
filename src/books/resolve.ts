/**
 * `reconcile resolve KEY --as LABEL [--note TEXT]`: the operator's decision on one exception,
 * kept in the books database (a later decision on the same key replaces it) and recorded in the
 * audit trail (before it is written, and with its outcome), so who decided what stays provable.
 */
import type {CommandContext} from '../context/index.js'
import {newOpId} from '../api/audit-info.js'
import {UsageError} from '../errors.js'
import {EXCEPTION_KINDS} from './reconcile.js'
import {BooksStore, type Decision} from './store.js'

export const MAX_LABEL = 64
export const MAX_NOTE = 500
const KEY = /^([a-z_]+):([^\s:]{1,200})(?::([^\s:]{1,200}))?$/
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
  if (!m) throw new UsageError(`"${opts.key}" is not a reconciliation key: copy the \`key\` of an item of \`payops reconcile\` (e.g. bank_only:ID).`)
  if (!EXCEPTION_KINDS.has(m[1])) throw new UsageError(`${key} is a ${m[1]} item, not an exception: only ${[...EXCEPTION_KINDS].join(', ')} items are resolved.`)
  return {key, label: clean(opts.label, '--as', MAX_LABEL), note: opts.note === undefined ? null : clean(opts.note, '--note', MAX_NOTE)}
}

export async function resolve(opts: ResolveOptions, ctx: CommandContext): Promise<Decision & {replaced: Decision | null}> {
  const {key, label, note} = parseResolve(opts)
  const profile = ctx.profile.profileName ?? null
  const audit = ctx.audit()
  const op = newOpId()
  const base = {op, method: 'LOCAL', path: `reconcile resolve ${key}`, details: JSON.stringify({label, note})}
  const store = BooksStore.open(ctx.configDir)
  try {
    const replaced = store.decision(key) ?? null
    await audit.intent(base)
    const decision: Decision = {key, label, note, decided_at: new Date(ctx.clock.now()).toISOString(), profile}
    store.decide(decision)
    await audit.outcome({...base, resource_id: key, outcome: replaced ? 'replaced' : 'resolved', resource_status: label})
    return {...decision, replaced}
  } finally {
    store.close()
  }
}
