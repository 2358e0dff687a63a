/**
 * What this machine knows of earlier movements, read from its audit trail: the last outcome of an
 * Idempotency-Key, and the amount, currency and route an earlier request recorded for a resource.
 * Every import row, every `moves create` and every `payops api` money call is in the trail, so a
 * move created from this machine can be approved with its amount shown.
 */
import {createHash} from 'node:crypto'
import {readAudit, type AuditRecord} from '../audit/index.js'
import type {History, Known, LostAnswer} from './types.js'
import type {SpentToday, Totals} from '../guardrails.js'
import {PATHS} from '../api/paths.js'
import {scheduleDayOf} from '../books/dates.js'

/**
 * A digest of what a movement asks: route, amount, currency and client metadata (keys sorted).
 * Two requests with one Idempotency-Key and different digests ask for two different movements.
 */
export function movementDetails(d: {from: string | null; to: string; amount_in_minor_units: number; currency_code: string; rail?: string; metadata?: Record<string, unknown>}): string {
  const meta = Object.entries(d.metadata ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
  return createHash('sha256').update(JSON.stringify([d.from, d.to, d.amount_in_minor_units, d.currency_code.toUpperCase(), meta, ...(d.rail ? [d.rail] : [])])).digest('hex').slice(0, 32)
}

/** An outcome that shows the request made nothing: an answer below 500 that is not 2XX, or a run that stopped before sending. */
const madeNothing = (r: AuditRecord) =>
  r.kind === 'outcome' && !succeeded(r) && ((typeof r.status === 'number' && (r.status < 200 || (r.status >= 300 && r.status < 500))) || (r.status == null && r.error_code === NOT_SENT))

/** The error code of an outcome recorded for a movement that was never sent. */
export const NOT_SENT = 'not_sent'

/** Outcomes a lost answer, a lookup or an answer that shows the state established (status aside). */
const ESTABLISHED = new Set(['created', 'replayed', 'advanced'])

const succeeded = (r: AuditRecord) =>
  r.kind === 'outcome' && ((typeof r.status === 'number' && r.status >= 200 && r.status < 300) || (typeof r.outcome === 'string' && ESTABLISHED.has(r.outcome) && Boolean(r.resource_id)))

/** An outcome that leaves unknown whether the server acted. */
const lost = (r: AuditRecord) =>
  r.kind === 'outcome' &&
  !succeeded(r) &&
  (r.outcome === 'unknown' || (typeof r.status === 'number' && (r.status >= 500 || r.status === 408 || r.status === 429)))

function known(r: AuditRecord): Known {
  return {
    id: r.resource_id ?? null,
    status: r.resource_status ?? null,
    amount_in_minor_units: r.amount_in_minor_units ?? null,
    currency_code: r.currency_code ?? null,
    from: r.from ?? null,
    to: r.to ?? null,
    idempotency_key: r.idempotency_key ?? null,
  }
}

/** The requests that create a movement. */
const CREATES = new Set([`POST ${PATHS.moveCreate}`, `POST ${PATHS.transferCreate}`])

/** The requests that move money out of an account: creates and approvals of moves and transfers. */
const OUTFLOW = [/^POST \/api\/subaccounts\/move$/, /^POST \/api\/subaccounts\/move\/[^/]+\/approve$/, /^POST \/api\/treasury\/account-transfers$/, /^POST \/api\/treasury\/account-transfers\/[^/]+\/approve$/]
/** The states in which a move's money moved: settled (an `approved` move is one whose settlement failed; nothing continues it). */
const MOVE_MOVED = new Set(['settled'])
/** The states in which a transfer's money moved or is committed to move (queued, in transit, done). */
const TRANSFER_MOVED = new Set(['approved', 'initiated', 'debited', 'settled'])
/** The states in which a movement will not move money, whatever an earlier answer said. */
const ENDED = new Set(['failed', 'canceled'])

/** What moved out today under a key, and what was sent and may have moved (its outcome unknown), per currency. */
export type Spent = SpentToday

const isTransfer = (r: AuditRecord) => r.path.startsWith(PATHS.transfers)

/** The resource an approval's path names. */
const approvedId = (r: AuditRecord) => /\/([^/]+)\/approve$/.exec(r.path)?.[1]

/**
 * Each record's time by its place in the trail: no earlier than any record before it. A record
 * written with a clock set back is read as written when the records before it were, so a
 * back-dated command hides neither the day's earlier spending nor its own.
 */
export function positionTimes(records: AuditRecord[]): number[] {
  let max = -Infinity
  return records.map((r) => {
    const t = Date.parse(r.time)
    if (Number.isFinite(t) && t > max) max = t
    return max
  })
}

/**
 * What moved out since `since` (ms: the start of today, UTC), per currency, by the records' key, as the
 * ledger would say it: moves that settled (not one whose settlement failed, nor one created to
 * await approval: its approval counts), account transfers approved, initiated or settled and not
 * since recorded failed or canceled; every approval that did so. A transfer scheduled for a later
 * day (in the schedule time zone) counts on its send day, not on the day it was made. An attempt
 * whose outcome is unknown (no outcome yet, a network error, a 5XX) is `unknown`, unless a later
 * answer for its key (or path) settled it: an answer that calls it made earlier (a replay) counts
 * it as moved, one that made it now counts itself. Records count by their place in the trail (see
 * positionTimes), never stopping at the first earlier timestamp.
 */
export function spentSince(records: AuditRecord[], since: number): Spent {
  const spent: Spent = {moved: new Map(), unknown: new Map()}
  const add = (into: Totals, r: AuditRecord) => {
    if (r.amount_in_minor_units == null || !r.currency_code) return
    const c = r.currency_code.toUpperCase()
    into.set(c, (into.get(c) ?? 0n) + BigInt(r.amount_in_minor_units))
  }
  const outcomes = new Map<string, AuditRecord>()
  const latest = new Map<string, string>()
  const scheduled = new Map<string, string>()
  for (const r of records) {
    // The answer: a later record of the op (the state --wait saw) only tells what the movement became.
    if (r.kind === 'outcome' && !outcomes.has(r.op)) outcomes.set(r.op, r)
    if (r.resource_id && r.resource_status) latest.set(r.resource_id, r.resource_status.toLowerCase())
    if (r.resource_id && r.scheduled_date) scheduled.set(r.resource_id, r.scheduled_date)
  }
  const times = positionTimes(records)
  const today = new Date(since).toISOString().slice(0, 10)
  const countsToday = (r: AuditRecord, i: number) => {
    const sendDay = r.scheduled_date ?? (isTransfer(r) ? (scheduled.get(r.resource_id ?? '') ?? scheduled.get(approvedId(r) ?? '')) : undefined)
    if (sendDay && sendDay > scheduleDayOf(times[i])) return sendDay === today
    // A record dated after today (a clock set forward) counts today, and so do those after it.
    return times[i] >= since
  }
  /** The answer moved money: a state that moved or committed it, and no later record showing it ended. */
  const moved = (o: AuditRecord) => {
    const status = String(o.resource_status ?? '').toLowerCase()
    if (!(isTransfer(o) ? TRANSFER_MOVED : MOVE_MOVED).has(status)) return false
    return !o.resource_id || !ENDED.has(latest.get(o.resource_id) ?? '')
  }
  // The first later answer that made, moved or found each key's (or path's) movement.
  const answeredLater = new Map<string, AuditRecord>()
  for (let i = records.length - 1; i >= 0; i--) {
    const r = records[i]
    if (!OUTFLOW.some((re) => re.test(`${r.method} ${r.path}`))) continue
    const tag = r.idempotency_key ?? r.path
    if (r.kind === 'outcome') {
      if (succeeded(r)) answeredLater.set(tag, r)
      continue
    }
    if (!countsToday(r, i)) continue
    const o = outcomes.get(r.op)
    if (o && succeeded(o)) {
      // A replay names a movement an earlier request made: that request counts it.
      if ((o.outcome === 'created' || o.outcome === 'advanced') && moved(o)) add(spent.moved, o)
      continue
    }
    const unknown = !o || (o.status == null && o.error_code !== NOT_SENT) || (typeof o.status === 'number' && o.status >= 500) || o.outcome === 'unknown'
    if (!unknown || o?.outcome === 'conflict') continue
    const later = answeredLater.get(tag)
    if (!later) add(spent.unknown, r)
    else if (later.outcome === 'replayed' && moved(later)) add(spent.moved, r)
  }
  return spent
}

/** What moved out since `since` (ms) by the records' key, per currency, counting unknown outcomes in (see spentSince). */
export function movedSince(records: AuditRecord[], since: number): Totals {
  const {moved, unknown} = spentSince(records, since)
  const totals: Totals = new Map(moved)
  for (const [c, v] of unknown) totals.set(c, (totals.get(c) ?? 0n) + v)
  return totals
}

/** The history of `read`'s records; with `keyId`, only records of that key (and older ones without a key id). */
export function historyOf(read: () => AuditRecord[], keyId?: string | null): History {
  let records: AuditRecord[] | undefined
  const all = () => (records ??= keyId ? read().filter((r) => !r.key_id || r.key_id === keyId) : read())
  return {
    movedSince(since) {
      return movedSince(all(), since)
    },
    spentSince(since) {
      return spentSince(all(), since)
    },
    at(records) {
      return historyOf(() => records, keyId)
    },
    claimOf(key) {
      return claimIn(all(), key)
    },
    byKey(key) {
      const list = all()
      for (let i = list.length - 1; i >= 0; i--) {
        const r = list[i]
        if (r.idempotency_key === key && succeeded(r) && r.resource_id) return known(r)
      }
      return undefined
    },
    byResource(id) {
      return byResourceIn(all(), id)
    },
    lastStatus(id) {
      const list = all()
      for (let i = list.length - 1; i >= 0; i--) {
        const r = list[i]
        if (r.resource_id === id && succeeded(r) && r.resource_status) return r.resource_status
      }
      return undefined
    },
    lastAttempt(method, path, key) {
      const list = all()
      for (let i = list.length - 1; i >= 0; i--) {
        const r = list[i]
        if (r.method !== method || r.path !== path || r.idempotency_key !== key) continue
        if (succeeded(r)) return {...known(r), time: r.time, made: true}
        if (lost(r)) return {...known(r), time: r.time, made: false}
      }
      return undefined
    },
    lostAnswer(method, path, key) {
      const list = all()
      for (let i = list.length - 1; i >= 0; i--) {
        const r = list[i]
        if (r.method !== method || r.path !== path) continue
        if (key !== undefined && key !== null && r.idempotency_key !== key) continue
        if (lost(r)) return {...known(r), time: r.time} satisfies LostAnswer
      }
      return undefined
    },
  }
}

/**
 * Of the moves `ids`, those whose latest record in this machine's audit trail (the key's own, or
 * older ones without a key id) shows them canceled or failed, or approved and not settled (a
 * settlement that failed, which nothing continues): they will not move money. One pass.
 */
export function endedMoves(dir: string, keyId: string | null, ids: Iterable<string>): Map<string, string> {
  const wanted = new Set(ids)
  const last = new Map<string, string>()
  if (wanted.size === 0) return last
  for (const r of readAudit(dir)) {
    if (r.resource_id && wanted.has(r.resource_id) && succeeded(r) && r.resource_status && (!r.key_id || r.key_id === keyId)) last.set(r.resource_id, r.resource_status.toLowerCase())
  }
  for (const [id, status] of last) if (status !== 'canceled' && status !== 'failed' && status !== 'approved') last.delete(id)
  return last
}

/** The move a cancel (`DELETE /api/subaccounts/move/ID`) or an approve (`POST …/ID/approve`) names, and which it is. */
function changeOf(r: AuditRecord): {id: string; change: 'cancel' | 'approve'} | undefined {
  const prefix = `${PATHS.moveCreate}/`
  if (!r.path.startsWith(prefix)) return undefined
  const rest = r.path.slice(prefix.length)
  // A path recorded from `payops api` may hold any escape: one that does not decode names no move.
  const id = (raw: string) => {
    try {
      return decodeURIComponent(raw)
    } catch {
      return undefined
    }
  }
  const change = r.method === 'DELETE' && !rest.includes('/') ? 'cancel' : r.method === 'POST' && /^[^/]+\/approve$/.test(rest) ? 'approve' : undefined
  const named = change && id(change === 'cancel' ? rest : rest.slice(0, -'/approve'.length))
  return change && named ? {id: named, change} : undefined
}

/**
 * Of the moves `ids`, those whose latest cancel or approval in this machine's audit trail (the
 * key's own, or older ones without a key id) lost its answer: the move may have been canceled or
 * settled since, and the service offers no read of one move to tell. One pass.
 */
export function movesInDoubt(dir: string, keyId: string | null, ids: Iterable<string>): Map<string, 'cancel' | 'approve'> {
  const wanted = new Set(ids)
  const doubt = new Map<string, 'cancel' | 'approve'>()
  if (wanted.size === 0) return doubt
  for (const r of readAudit(dir)) {
    const c = r.kind === 'outcome' ? changeOf(r) : undefined
    if (!c || !wanted.has(c.id) || (r.key_id && r.key_id !== keyId)) continue
    if (lost(r)) doubt.set(c.id, c.change)
    else doubt.delete(c.id)
  }
  return doubt
}

/** The history of the audit trail in `dir` (read once, on first use). */
export function auditHistory(dir: string, keyId?: string | null): History {
  return historyOf(() => readAudit(dir), keyId)
}

/** What this machine's trail says a key was used for: the movement it made, or an attempt whose outcome is unknown. */
function claimIn(list: AuditRecord[], key: string): ReturnType<History['claimOf']> {
  const settledOps = new Set<string>()
  for (let i = list.length - 1; i >= 0; i--) {
    const r = list[i]
    if (r.idempotency_key !== key) continue
    // A refusal made nothing, and an answer naming another movement (a conflict) names it by an earlier request.
    if (madeNothing(r) || r.outcome === 'conflict') {
      settledOps.add(r.op)
      continue
    }
    if (r.kind === 'outcome') {
      if (succeeded(r) && r.resource_id) {
        // The intent (earlier in the trail) holds the digest of what was asked.
        const intent = list.slice(0, i).reverse().find((x) => x.kind === 'intent' && x.op === r.op)
        return {...known(r), details: intent?.details ?? r.details ?? null}
      }
      continue
    }
    if (settledOps.has(r.op)) continue
    return {...known(r), id: null, status: null, details: r.details ?? null}
  }
  return undefined
}

/** What the trail knows of a movement by its id, with the key and the maker of the request that created it. */
function byResourceIn(list: AuditRecord[], id: string): Known | undefined {
  let found: Known | undefined
  let creator: AuditRecord | undefined
  for (let i = list.length - 1; i >= 0; i--) {
    const r = list[i]
    if (r.resource_id !== id || !succeeded(r)) continue
    if (CREATES.has(`${r.method} ${r.path}`) && r.outcome !== 'replayed') creator = r
    if (!found && r.amount_in_minor_units != null && r.currency_code && r.to) found = known(r)
  }
  if (!found || !creator) return found
  // The key and the maker of the request that made it (a create), for the next step after a 207 and for maker-checker.
  return {
    ...found,
    idempotency_key: creator.idempotency_key ?? found.idempotency_key,
    created_by: creator.os_user ? {operator: creator.operator ?? null, os_user: creator.os_user, host: creator.host ?? 'unknown'} : null,
    created_record: creator.hash,
  }
}
