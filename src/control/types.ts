/**
 * The control store: where every control decision and its record go. One interface, two engines:
 * SQLite in the config dir (one machine, the default) and PostgreSQL (a team: several people on
 * several machines). Every method of a store is one transaction of its own.
 */
import type {Limits} from '../config/index.js'
import type {OperatorRecords} from './records-types.js'

export type Engine = 'sqlite' | 'postgres'

/** What a movement is about to do, recorded as an intent (allowed, or refused with why). */
export interface IntentInput {
  /** `move`, `transfer`, `api`, … */
  kind: string
  currency: string
  /** Minor units. */
  amount: number
  destination?: string | null
  status: 'allowed' | 'refused'
  detail?: Record<string, unknown>
}

export interface IntentRecord extends Required<Omit<IntentInput, 'detail'>> {
  /** The intent's position in the store: every intent has a greater one than those before it. */
  seq: number
  at: string
  /** The store's UTC day the intent counts towards. */
  day: string
  /** Who recorded it: the database role (team store) or the local operator (SQLite). */
  actor: string
  entity: string
  detail: Record<string, unknown>
}

export interface OutcomeRecord {
  seq: number
  intent_seq: number
  at: string
  actor: string
  status: string
  detail: Record<string, unknown>
}

/** What a decision reads, inside its transaction. */
export interface DecisionView {
  /** The UTC day the decision counts towards (the store's). */
  readonly day: string
  /** Minor units recorded as allowed today for `currency` under the store's entity, up to this point. */
  totalToday(currency: string): Promise<number>
  /** The policies in force (the team's, from the store). */
  limits(): Promise<Limits>
}

/** What a decision returns: its value, and the intent to record with it (in the same transaction). */
export interface Decision<T> {
  value: T
  intent?: IntentInput
  /** Several intents decided in the one transaction (a group of requests decided together), in order. */
  intents?: IntentInput[]
  /** Outcomes of earlier intents, appended in the same transaction (one commit for both). */
  outcomes?: OutcomeInput[]
}

/** What a decision resolves with: its value and the intents it recorded, with their positions. */
export interface Decided<T> {
  value: T
  intent?: IntentRecord
  intents?: IntentRecord[]
}

/** One outcome to append (recordOutcomes: several in one transaction). */
export interface OutcomeInput {
  intentSeq: number
  status: string
  detail?: Record<string, unknown>
}

export interface PolicyEntry {
  /** The key of `team policy set` (`max-amount`, `daily-max`, `allowed-destinations`, `approval-policy`). */
  key: string
  value: unknown
  set_by: string
  set_at: string
}

export interface ApprovalRequestInput {
  kind: string
  currency: string
  amount: number
  destination?: string | null
  detail?: Record<string, unknown>
}

export interface ApprovalRequest extends Required<Omit<ApprovalRequestInput, 'detail'>> {
  id: number
  at: string
  maker: string
  detail: Record<string, unknown>
  decision: null | {decision: 'approved' | 'rejected'; checker: string; at: string; note: string | null}
}

export interface StoreStatus {
  engine: Engine
  /** HOST:PORT/DATABASE, or the file's path. */
  store: string
  schema_version: number
  /** Who this connection's records are stamped with. */
  actor: string
  /** The team roles the actor holds (team store). */
  roles: string[]
  /** The entity (key fingerprint) the store serves; null before `team init` binds it. */
  entity: string | null
}

/** An import batch as the store knows it: the payroll it pays, by the digest of its normalised rows. */
export interface ImportBatch {
  batch_id: string
  /** SHA-256 (hex) of the batch's normalised rows (see src/import/digest.ts). */
  digest: string
  /** The file it was started from, as named on the machine that started it. */
  file: string
  rows: number
  started_at: string
  started_by: string
  finished_at: string | null
  /** Rows whose key the batch's journal records as sent (whatever became of them). */
  sent: number
  /** Rows the journal records as done (settled, or created awaiting approval as asked). */
  settled: number
}

/** One journal record of an import row: what was sent with its key and what became of it. */
export interface ImportJournalEntry {
  key: string
  fp: string
  line: number
  n: number
  state: 'sent' | 'done' | 'open' | 'failed'
  kind?: string | null
  move_id?: string | null
  move_status?: string | null
  http_status?: number | null
  warning?: string | null
  error_status?: number | null
  error_code?: string | null
  message?: string | null
}

/** The import batches and their journals, kept in the control store. */
export interface ImportBatches {
  /** The latest batch recorded for `digest` (undefined: none); `progress`: with its sent and settled counts (else 0). */
  importBatch(digest: string, progress?: boolean): Promise<ImportBatch | undefined>
  /** Every batch recorded for `digest`, oldest first. */
  importBatchIds(digest: string): Promise<string[]>
  /**
   * Records that `batch_id` pays the rows of `digest`, in one transaction that refuses (exit 5)
   * when the latest batch of `digest` is no longer `replaces` (another started it meanwhile).
   */
  recordImportBatch(b: {digest: string; batch_id: string; file: string; rows: number; replaces: string | null}): Promise<ImportBatch>
  /** Appends journal records of a batch (the last record of a key is where it stands). */
  recordImportRows(batchId: string, entries: readonly ImportJournalEntry[]): Promise<void>
  /** Where each key of a batch stands: its last record, in line order. */
  importJournal(batchId: string): Promise<ImportJournalEntry[]>
  finishImportBatch(batchId: string): Promise<void>
}

export interface ControlStore extends ImportBatches {
  readonly engine: Engine
  /** HOST:PORT/DATABASE, or the file's path. */
  readonly location: string
  status(): Promise<StoreStatus>
  /**
   * One transaction: `fn` reads today's totals and the policies, decides, and the intent it
   * returns is appended before the transaction commits. Decisions on the same entity are
   * serialized, so N decisions started at once on M machines each see the ones before them.
   */
  decide<T>(fn: (view: DecisionView) => Decision<T> | Promise<Decision<T>>): Promise<Decided<T>>
  /** Appends what became of an intent (sent, failed, unknown…); an intent that is not there is refused. */
  recordOutcome(intentSeq: number, status: string, detail?: Record<string, unknown>): Promise<void>
  /** Appends several outcomes in one transaction: all of them, or none. */
  recordOutcomes(list: readonly OutcomeInput[]): Promise<void>
  /** The outcomes recorded for an intent, in order; without one, every outcome of the store's entity. */
  outcomes(intentSeq?: number): Promise<OutcomeRecord[]>
  intents(): Promise<IntentRecord[]>
  /** The latest create intent whose recorded outcome named this resource (a move or transfer id), if any. */
  intentFor(resourceId: string): Promise<IntentRecord | undefined>
  policies(): Promise<PolicyEntry[]>
  /** Appends a policy value (null: removed), recorded with who set it. */
  setPolicy(key: string, value: unknown): Promise<PolicyEntry>
  /** The policies as limits. */
  limits(): Promise<Limits>
  requestApproval(req: ApprovalRequestInput): Promise<ApprovalRequest>
  decideApproval(id: number, decision: 'approved' | 'rejected', note?: string): Promise<ApprovalRequest>
  approvals(): Promise<ApprovalRequest[]>
  /** Reconciliation decisions, the book of names and watch alert state (src/control/records-types.ts). */
  readonly records: OperatorRecords
  close(): Promise<void>
}

/** The `team policy set` keys and the limit each sets. */
export const POLICY_FIELDS = {
  'max-amount': 'max_amount',
  'daily-max': 'daily_max',
  'allowed-destinations': 'allowed_destinations',
  'approval-policy': 'approval',
} as const satisfies Record<string, keyof Limits>
export type PolicyKey = keyof typeof POLICY_FIELDS
export const POLICY_KEYS = Object.keys(POLICY_FIELDS) as PolicyKey[]

/** The limits that a list of policy entries (latest per key) amounts to. */
export function limitsOf(entries: readonly PolicyEntry[]): Limits {
  const limits: Record<string, unknown> = {}
  for (const e of entries) {
    const field = POLICY_FIELDS[e.key as PolicyKey]
    if (field && e.value !== null && e.value !== undefined) limits[field] = e.value
  }
  return limits as Limits
}
