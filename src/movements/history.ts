/**
 * What this machine knows of earlier movements, read from its audit trail: the last outcome of an
 * Idempotency-Key, and the amount, currency and route an earlier request recorded for a resource.
 * Every import row, every `moves create` and every `payops api` money call is in the trail, so a
 * move created from this machine can be approved with its amount shown.
 */
import {readAudit, type AuditRecord} from '../audit/index.js'
import type {History, Known, LostAnswer} from './types.js'

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

export function historyOf(read: () => AuditRecord[]): History {
  let records: AuditRecord[] | undefined
  const all = () => (records ??= read())
  return {
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
      for (let i = list.length - 1; i >= 0; i--) {
        const r = list[i]
        if (r.resource_id !== id || !succeeded(r)) continue
        if (!found && r.amount_in_minor_units != null && r.currency_code && r.to) found = known(r)
        // The key of the request that made it (a create), for the next step after a 207.
        if (found && r.idempotency_key) return {...found, idempotency_key: r.idempotency_key}
      }
      return found
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

/** The history of the audit trail in `dir` (read once, on first use). */
export function auditHistory(dir: string): History {
  return historyOf(() => readAudit(dir))
}
