/**
 * The movement pipeline's vocabulary: what a caller asks for (a request), what the pipeline
 * decides before sending (a plan), and what it learned after (an outcome).
 */
import type {LimitSet} from '../config/resolve.js'
import type {Operator} from '../config/identity.js'
import type {SpentToday, Totals} from '../guardrails.js'
import type {AuditRecord} from '../audit/index.js'
import type {AuditHook, ApiResponse} from '../api/client.js'
import type {MovesApi} from '../api/moves.js'
import type {SubaccountsApi} from '../api/subaccounts.js'
import type {TransfersApi} from '../api/transfers.js'
import type {TreasuryApi} from '../api/treasury.js'
import type {Movement} from '../guardrails.js'
import type {ControlStore} from '../control/types.js'

/** An amount as the operator gave it: a decimal in the source's currency, or minor units. */
export type AmountInput = {decimal: string} | {minor: number}

export type MovementRequest =
  | {
      kind: 'move.create'
      from: string
      to: string
      amount: AmountInput
      /** The currency the operator asserts (--currency, a CSV column); refused when it differs from the source's. */
      currency?: string
      /** The source subaccount's currency when the caller already checked source and destination (import): no lookups. */
      sourceCurrency?: string
      autoApprove: boolean
      metadata?: Record<string, string>
      idempotencyKey?: string
    }
  | {kind: 'move.approve'; id: string; /** What a review file says of it (amount, route, maker), when this machine's trail does not know it. */ known?: Known; maker?: string}
  | {kind: 'move.cancel'; id: string}
  | {
      kind: 'transfer.create'
      from: string
      to: string
      amount: AmountInput
      currency: string
      rail: string
      autoApprove: boolean
      scheduledDate?: string
      metadata?: Record<string, unknown>
      idempotencyKey?: string
      /** Send even when an earlier attempt with this key lost its answer and the list cannot show it did not happen. */
      sendAnyway?: boolean
    }
  | {kind: 'transfer.approve'; id: string; known?: Known; maker?: string}
  | {
      kind: 'credit.simulate'
      account: string
      rail: 'standard_ach' | 'wire'
      amount: AmountInput
      currency?: string
      subaccount?: string
      senderInfo?: string
      transactionDate?: string
      idempotencyKey?: string
      /** As for a transfer: send even when the account shows a credit that could be the earlier attempt. */
      sendAnyway?: boolean
    }

export type MovementKind = MovementRequest['kind']

/** What a movement is: its route and amount (for transfers also currency and rail). */
export interface Described {
  from?: string
  to?: string
  amount_in_minor_units: number
  currency_code?: string | null
  rail?: string | null
}

/** What this machine knows of a movement from its audit trail. */
export interface Known {
  id?: string | null
  status?: string | null
  amount_in_minor_units?: number | null
  currency_code?: string | null
  from?: string | null
  to?: string | null
  /** The Idempotency-Key of the request that made it (its create), when this machine sent it. */
  idempotency_key?: string | null
  /** Who created it (the create's audit record), when this machine did. */
  created_by?: Operator | null
  /** The hash of the create's audit record. */
  created_record?: string | null
}

/** Lookups in the local record of earlier requests (the audit trail). */
export interface History {
  /** The last successful outcome recorded for this Idempotency-Key. */
  byKey(key: string): Known | undefined
  /** What an earlier successful request recorded about this resource (amount, currency, from, to). */
  byResource(id: string): Known | undefined
  /**
   * What this Idempotency-Key was last sent with, when that request may have made something (it
   * answered 2XX, or its outcome is unknown): the key then names that movement on the server.
   */
  claimOf(key: string): Claim | undefined
  /** The money moved out since `since` (ms), per currency (see movedSince). */
  movedSince(since: number): Totals
  /** What moved out on the UTC day starting at `since`, and what may have (outcome unknown), apart (see spentSince). */
  spentSince?(since: number): SpentToday
  /** The same lookups over these records (the trail as read under its lock). */
  at?(records: AuditRecord[]): History
  /** The status the latest successful request on this resource recorded (an approve after its create, say). */
  lastStatus?(id: string): string | undefined
  /**
   * The latest request from this machine to `method path` (with this Idempotency-Key, when given)
   * whose answer was lost: a network failure, a 5xx, 408 or 429, or an outcome recorded unknown.
   */
  lostAnswer?(method: string, path: string, key?: string | null): LostAnswer | undefined
  /**
   * The latest request from this machine to `method path` with this key that may have made
   * something: answered 2XX (`made`) or with its answer lost (not `made`). Requests refused or not
   * sent are passed over.
   */
  lastAttempt?(method: string, path: string, key: string): (LostAnswer & {made: boolean}) | undefined
}

/** What a key was sent with: its details digest (absent in older records), route and amount. */
export interface Claim extends Known {
  details: string | null
}

/** An earlier request whose answer was lost, as the audit trail recorded it. */
export interface LostAnswer extends Known {
  /** When its outcome was recorded (ISO). */
  time: string
}

export type {Prompter} from '../context/index.js'
import type {Prompter} from '../context/index.js'

export interface Paint {
  live(s: string): string
  bold(s: string): string
  red(s: string): string
}

export interface ProfileView {
  name: string | null
  live: boolean
  /** The limits that bind the key in use, each named by its profile (see limitSetsFor). */
  limitSets: LimitSet[]
  /** The key, redacted: `live_…a1b2`. */
  keyLabel: string
  /** Who is sending (the maker-checker guard compares it with a movement's creator). */
  operator?: Operator
}

/** The API areas the pipeline uses. */
export interface MovementApi {
  moves: Pick<MovesApi, 'create' | 'approve' | 'cancel'>
  subaccounts: Pick<SubaccountsApi, 'get'>
  transfers: Pick<TransfersApi, 'create' | 'approve' | 'pendingForApproval' | 'findByKey' | 'listPage'>
  treasury: Pick<TreasuryApi, 'resolveAmount' | 'simulateCredit' | 'findAccount' | 'transactionsPage'>
}

/** The team store a run's money requests are decided by (see team.ts). */
export interface TeamControls {
  store: ControlStore
  /** HOST:PORT/DATABASE. */
  readonly location: string
  /**
   * A caller that waits for its outcome records itself (an import: before it reports) takes them
   * here, so that recording one is not on the path from one request to the next.
   */
  defer?: (written: Promise<void>) => void
}

/** Everything the pipeline needs from the world, handed in (tests pass fakes). */
export interface MovementPorts {
  api: MovementApi
  audit?: AuditHook
  history: History
  prompter: Prompter
  paint?: Paint
  profile: ProfileView
  yes: boolean
  overrideLimits: boolean
  newKey(): string
  /** The book of names to feed with what planning reads (subaccount names, account labels). */
  names?: {get(id: string): string | undefined; remember(id: string | null | undefined, name: string | null | undefined): void}
  /** The team store that decides and records every money request, when the profile is bound to one. */
  team?: TeamControls
}

export interface Summary {
  action: string
  amount?: string
  from?: string
  to?: string
  details?: Record<string, string | undefined>
}

/** What the service shows of a create the spec does not make idempotent (see search.ts). */
export interface SearchResult {
  /** The movement this request's key names, when the list shows it. */
  found?: Record<string, unknown>
  /** Listed movements that could be the first attempt (same route, amount and currency; no key that rules them out). */
  candidates: Array<Record<string, unknown>>
  /** Why the list does not prove anything (it could not be read to its end), when so. */
  incomplete?: string
}

/** The exact request the pipeline will send, and what the guard shows and checks first. */
export interface Plan {
  request: MovementRequest
  noun: 'move' | 'account transfer' | 'simulated credit'
  summary: Summary
  /** Checked against the profile's limits (empty when nothing leaves an account). */
  checks: Movement[]
  /** What the operator types on a LIVE key or over a limit (the amount, or the id's last 6 characters). */
  typed?: string
  /** Why amount or destination are unknown (approvals of moves not made from this machine). */
  unknown?: string
  /** Confirm on test keys too (never, for single movements; bulk callers decide). */
  evenOnTest?: boolean
  /** Confirmed by typing the amount (or the id's last 6 characters) whatever the key: a checker's review. */
  alwaysTyped?: boolean
  /** The LIVE confirmation is a yes/no (cancel moves no money). */
  plainConfirm?: boolean
  /** Over a limit, confirmed with --override-limits: the check under the trail's lock lets it pass. */
  overridden?: boolean
  idempotencyKey: string | null
  keyGenerated: boolean
  /** What the audit trail records before sending. */
  audit: {method: string; path: string; details?: string; maker?: string | null; amount_in_minor_units: number | null; currency_code: string | null; from: string | null; to: string | null; scheduled_date?: string | null}
  /** For create kinds: what the answer must describe, else the key names another movement. */
  expected?: Described
  currency: string | null
  autoApprove?: boolean
  /** The profile whose maker-checker policy made this create one without auto-approval (the flags asked for it). */
  heldBy?: string
  /** What this machine recorded of the movement (approvals: the create's key, for the next step). */
  recorded?: Known
  /**
   * The exact command that finds out whether this request took effect when its answer is lost
   * (shown with exit 7), and what it will say.
   */
  settle: string
  /**
   * A row of a batch (an import): what finds out after a lost answer is the batch's own re-run,
   * which sends the row again with its key, not a command for the row alone.
   */
  batchRow?: boolean
  /**
   * Where the spec promises no replay of a create (account transfers, simulated credits): what the
   * service shows of this request without sending anything (search.ts). Without `around`, the
   * movement the key names among the source's transfers; with it, also the candidates listed
   * around that time (local ms).
   */
  search?(around?: {since: number; until?: number}): Promise<SearchResult>
  /** Send even when an earlier attempt's answer was lost and the service cannot show it did not happen (--send-anyway). */
  sendAnyway?: boolean
  /** `data` is undefined when an answer the spec does not show came without one. */
  send(): Promise<ApiResponse<Record<string, unknown> | undefined>>
}

/** `requested`: recorded in the team store by a member without the key, sent by no one yet (src/team/request.ts). */
export type OutcomeKind = 'created' | 'replayed' | 'advanced' | 'requested'

export interface Outcome {
  kind: OutcomeKind
  /** null when the answer named none (a 202 Accepted without a body) and nothing found it. */
  id: string | null
  idempotency_key: string | null
  /** The resource's status now (lower case). */
  status: string | null
  /** The normalised resource. */
  resource: Record<string, unknown>
  /** The body as the API sent it (the raw `api` command prints this). */
  body: unknown
  http_status: number
  warning?: string
  /** 207: created or approved but not settled. */
  partial: boolean
  /** The profile whose maker-checker policy created it without auto-approval, though auto-approval was asked. */
  held_by?: string
  /** A retry with the same key is what confirmed it (the first answer was lost). */
  confirmed_by_retry: boolean
  /** One true sentence for a terminal. */
  sentence: string
  /** The same outcome told of the movement as it is now (after `--wait` followed it). */
  restate?(resource: Record<string, unknown>): Outcome
  /**
   * Records in the audit trail the state the movement was later seen in (`--wait`), when it
   * changed: a transfer that failed after its create answered no longer counts as moved.
   */
  observe?(resource: Record<string, unknown>): Promise<void>
}
