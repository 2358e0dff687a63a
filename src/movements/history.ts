/**
 * What this machine knows of earlier movements, read from its audit trail: the last outcome of an
 * Idempotency-Key, and the amount, currency and route an earlier request recorded for a resource.
 * Every import row, every `moves create` and every `payops api` money call is in the trail, so a
 * move created from this machine can be approved with its amount shown.
 */
import {createHash} from 'node:crypto'
import {readAudit, type AuditRecord} from '../audit/index.js'
import type {History, Known, LostAnswer} from './types.js'
import type {Totals} from '../guardrails.js'

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
const CREATES = new Set(['POST /api/subaccounts/move', 'POST /api/treasury/account-transfers'])

/** The requests that move money out of an account: creates and approvals of moves and transfers. */
const OUTFLOW = [/^POST \/api\/subaccounts\/move$/, /^POST \/api\/subaccounts\/move\/[^/]+\/approve$/, /^POST \/api\/treasury\/account-transfers$/, /^POST \/api\/treasury\/account-transfers\/[^/]+\/approve$/]
/** States in which the money of a movement is moved or committed to move. */
const MOVED = new Set(['approved', 'initiated', 'debited', 'settled'])

/**
 * The money moved out since `since` (ms) by the records' key, per currency: every outflow this
 * machine made (`created` or `advanced`, in a moved or committed state), and, on the careful side,
 * every one whose outcome is unknown (no outcome, a network error or a 5XX) unless a later record
 * of the same key or path settled what it did.
 */
export function movedSince(records: AuditRecord[], since: number): Totals {
  const totals: Totals = new Map()
  const resolved = new Set<string>()
  const add = (r: AuditRecord) => {
    if (r.amount_in_minor_units == null || !r.currency_code) return
    const c = r.currency_code.toUpperCase()
    totals.set(c, (totals.get(c) ?? 0n) + BigInt(r.amount_in_minor_units))
  }
  const outcomes = new Map<string, AuditRecord>()
  for (const r of records) if (r.kind === 'outcome') outcomes.set(r.op, r)
  for (let i = records.length - 1; i >= 0; i--) {
    const r = records[i]
    if (Date.parse(r.time) < since) break
    if (!OUTFLOW.some((re) => re.test(`${r.method} ${r.path}`))) continue
    const tag = r.idempotency_key ?? r.path
    if (r.kind === 'outcome') {
      // A later answer that made or moved it (not one that calls it an earlier request's) settles an unknown attempt.
      if (succeeded(r) && r.outcome !== 'replayed') resolved.add(tag)
      if (succeeded(r) && (r.outcome === 'created' || r.outcome === 'advanced') && MOVED.has(String(r.resource_status ?? '').toLowerCase())) add(r)
      continue
    }
    const o = outcomes.get(r.op)
    const unknown = !o || (o.status == null && o.error_code !== NOT_SENT) || (typeof o.status === 'number' && o.status >= 500)
    if (unknown && !resolved.has(tag)) add(r)
  }
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
    claimOf(key) {
      const list = all()
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
      const list = all()
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
 * older ones without a key id) shows them canceled or failed: they will not move money. One pass.
 */
export function endedMoves(dir: string, keyId: string | null, ids: Iterable<string>): Map<string, string> {
  const wanted = new Set(ids)
  const last = new Map<string, string>()
  if (wanted.size === 0) return last
  for (const r of readAudit(dir)) {
    if (r.resource_id && wanted.has(r.resource_id) && succeeded(r) && r.resource_status && (!r.key_id || r.key_id === keyId)) last.set(r.resource_id, r.resource_status.toLowerCase())
  }
  for (const [id, status] of last) if (status !== 'canceled' && status !== 'failed') last.delete(id)
  return last
}

/** The history of the audit trail in `dir` (read once, on first use). */
export function auditHistory(dir: string, keyId?: string | null): History {
  return historyOf(() => readAudit(dir), keyId)
}
