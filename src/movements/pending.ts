/**
 * What awaits an approval, as this machine knows it: the moves it created without auto-approval
 * and has not seen approved, settled or canceled since (the audit trail), scoped to the key in use.
 * Pure and light: the approval queue (approvals.ts) and shell completion (src/completion) share it.
 */
import type {AuditRecord} from '../audit/index.js'
import {PATHS, recordedPath} from '../api/paths.js'
import {keyIdOf} from '../api/redact.js'

export interface PendingItem extends Record<string, unknown> {
  kind: 'move' | 'transfer'
  id: string
  amount_in_minor_units: number | null
  currency_code: string | null
  from: string | null
  to: string | null
  from_name: string | null
  to_name: string | null
  created_at: string | null
  /** `service` (read from the API now), `local` (this machine's audit trail) or `team` (the team store's requests). */
  source: 'service' | 'local' | 'team'
  /** Who requested it (the team store's role), when the store says. */
  maker?: string
}

const CREATE = `POST ${PATHS.moveCreate}`
const ok = (r: AuditRecord) => r.kind === 'outcome' && typeof r.status === 'number' && r.status >= 200 && r.status < 300
/** A refusal that named the state the move is in ("cannot be approved in status settled"). */
const refusedInState = (r: AuditRecord) => r.kind === 'outcome' && r.status === 400 && Boolean(r.resource_status)

/**
 * Moves this machine created without auto-approval and has not seen approved, settled or
 * canceled since: the last recorded status of each move must still be `created`. An approve or
 * cancel the API refused because the move is already settled or canceled (by another machine)
 * records that state, and the move leaves the queue. Pure.
 */
export function pendingMovesOf(records: AuditRecord[]): PendingItem[] {
  const last = new Map<string, {status: string | null; rec: AuditRecord}>()
  for (const r of records) {
    if (!(ok(r) || refusedInState(r)) || !r.resource_id) continue
    const create = `${r.method} ${r.path}` === CREATE
    const onMove = create || r.path === recordedPath('moveCancel', {move_id: r.resource_id}) || r.path === recordedPath('moveApprove', {move_id: r.resource_id})
    if (!onMove) continue
    const status = r.resource_status ?? (r.method === 'DELETE' ? 'canceled' : null)
    const prev = last.get(r.resource_id)
    last.set(r.resource_id, {status: status ?? prev?.status ?? null, rec: create || !prev ? r : prev.rec})
  }
  const out: PendingItem[] = []
  for (const [id, {status, rec}] of last) {
    if (status !== 'created') continue
    out.push({
      kind: 'move',
      id,
      amount_in_minor_units: rec.amount_in_minor_units ?? null,
      currency_code: rec.currency_code ?? null,
      from: rec.from ?? null,
      to: rec.to ?? null,
      from_name: null,
      to_name: null,
      created_at: rec.time,
      source: 'local',
    })
  }
  return out
}

/**
 * Records of requests the key in use made: only its moves can be approved with it (another key's
 * move answers 404). Records written before keys were recorded count when profile and mode match.
 */
export function madeWith(apiKey: string | undefined, profile: string | null, mode: string): (r: AuditRecord) => boolean {
  const id = keyIdOf(apiKey)
  return (r) => (r.key_id ? r.key_id === id : r.profile === profile && r.mode === mode)
}
