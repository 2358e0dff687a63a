/** What the audit trail records of a mutating request (never a key or a secret), and the hook that records it. */
import type {AuditRecord} from '../audit/records.js'
import {systemClock} from '../context/host.js'

/** What the audit trail learns of a mutating request: never the key or the body's secrets. */
export interface AuditInfo {
  op: string
  method: string
  path: string
  idempotency_key?: string | null
  /** A digest of what the request asked (from, to, amount, currency, metadata): see movementDetails. */
  details?: string | null
  /** An approval through `approvals review`: who created what is approved. */
  maker?: string | null
  amount_in_minor_units?: number | null
  currency_code?: string | null
  from?: string | null
  to?: string | null
  /** An account transfer's send day, when scheduled. */
  scheduled_date?: string | null
}

export interface AuditOutcome extends AuditInfo {
  status?: number | null
  request_id?: string | null
  resource_id?: string | null
  error_code?: string | null
  resource_status?: string | null
  outcome?: string | null
  attempts?: number
}

/**
 * A decision taken under the audit trail's lock (its store's write transaction) on the records as
 * they are then, right before the intent is written in it: it throws to refuse (the intent is not
 * written, nothing is sent).
 */
export type IntentCheck = (records: AuditRecord[]) => void

/** Receives an intent before a mutating request is sent and its outcome after. */
export interface AuditHook {
  intent(info: AuditInfo, check?: IntentCheck): Promise<void>
  /**
   * Records an outcome. A failure to write it is a warning, or with `strict` an error the caller
   * turns into the command's (the request was carried out, and its outcome is not on record).
   */
  outcome(info: AuditOutcome, opts?: {strict?: boolean}): Promise<void>
  /** Resolves once every record appended so far is written (and the trail's store closed). */
  drain?(): Promise<void>
}

/** A mutating request on record: its intent written; every later record of it goes through here. */
export interface RequestRecord {
  /** What the intent recorded (the outcomes repeat it, tied to it by `op`). */
  readonly info: AuditInfo
  /**
   * Records what became of the request: `o` over the intent's fields. A failure to write it is a
   * warning, or with `strict` an error (see {@link AuditHook.outcome}).
   */
  outcome(o: Omit<AuditOutcome, 'op' | 'method' | 'path'>, opts?: {strict?: boolean}): Promise<void>
}

/**
 * The one path by which a mutating request is recorded, the API client's and the movement
 * pipeline's alike: the request as the trail describes it (a fresh `op` ties its records
 * together), its intent written before it is sent (a failure to write it, or `check` refusing it,
 * stops the request: nothing is sent), then its outcomes through the record returned. Without a
 * hook nothing is recorded.
 */
export async function recordRequest(hook: AuditHook | undefined, request: Omit<AuditInfo, 'op'>, check?: IntentCheck): Promise<RequestRecord> {
  const info: AuditInfo = {op: newOpId(), ...request}
  await hook?.intent(info, check)
  return {
    info,
    outcome: async (o, opts) => {
      await hook?.outcome({...info, ...o}, opts)
    },
  }
}

let opCounter = 0

/** A fresh id tying an audit outcome to its intent. */
export function newOpId(): string {
  return `${process.pid}-${systemClock.now().toString(36)}-${(++opCounter).toString(36)}`
}

/** The auditable fields of a request: where money goes, never secrets. */
/** The parts of a request the audit trail reads. */
export interface AuditedRequest {
  method: string
  path: string
  body?: unknown
  rawBody?: string
  headers?: Record<string, string>
  idempotencyKey?: string
}

export function auditInfo(opts: AuditedRequest): Omit<AuditInfo, 'op'> {
  let body = opts.body as Record<string, unknown> | undefined
  if (!body && opts.rawBody) {
    try {
      body = JSON.parse(opts.rawBody) as Record<string, unknown>
    } catch {
      body = undefined
    }
  }
  const pick = (...keys: string[]) => {
    for (const k of keys) {
      const v = body?.[k]
      if (typeof v === 'string' || typeof v === 'number') return v
    }
    return null
  }
  const headerKey = Object.entries(opts.headers ?? {}).find(([k]) => k.toLowerCase() === 'idempotency-key')?.[1]
  const amount = pick('amount_in_minor_units', 'amount_in_cents')
  return {
    method: opts.method,
    path: opts.path,
    idempotency_key: opts.idempotencyKey ?? headerKey ?? null,
    amount_in_minor_units: typeof amount === 'number' ? amount : null,
    currency_code: (pick('currency_code', 'currency') as string | null) ?? null,
    from: (pick('from_subaccount_id', 'from_account_id') as string | null) ?? null,
    to: (pick('to_subaccount_id', 'to_account_id', 'subaccount_id', 'payee_id', 'party_id') as string | null) ?? null,
  }
}

