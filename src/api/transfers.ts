import type {ApiClient, SendOptions} from './client.js'
import {fillPath} from './url.js'
import {PATHS} from './paths.js'
import {paginate, type PaginateOptions} from './paginate.js'
import {describeIssues} from './schemas/common.js'
import {AccountTransfer, ConversionEstimate, FINAL_TRANSFER_STATUSES, RailOptions, TransferCreateRequest, expandRails} from './schemas/transfers.js'
import {InterruptedError, NetworkError, NotConfirmedError, UsageError} from '../errors.js'

export interface TransferFilters {
  limit?: number
  order?: 'asc' | 'desc'
  account_id?: string[]
  rail?: string[]
  status?: string[]
  amount_in_minor_units_gte?: number
  amount_in_minor_units_lte?: number
  created_at_gte?: string
  created_at_lte?: string
}

export interface TransferCreateInput {
  from_account_id: string
  to_account_id: string
  amount_in_minor_units: number
  currency_code: string
  rail: string
  auto_approve?: boolean
  scheduled_date?: string
  client_metadata?: Record<string, unknown>
}

/** Validates a create body with the very schema the API (emulator) applies; a usage error if bad. */
export function validateTransferCreate(input: TransferCreateInput): TransferCreateRequest {
  const r = TransferCreateRequest.safeParse(input)
  if (!r.success) throw new UsageError(`Invalid transfer: ${describeIssues(r.error)}`)
  return r.data
}

export function isFinalTransferStatus(status: string | null | undefined): boolean {
  return typeof status === 'string' && FINAL_TRANSFER_STATUSES.includes(status.toLowerCase())
}

export interface WaitOptions {
  /** Give up after this long (milliseconds). */
  timeoutMs: number
  /** Time between two polls (milliseconds). */
  intervalMs?: number
  /** Stops the wait (Ctrl-C): {@link WaitInterruptedError} with the last state seen. */
  signal?: AbortSignal
  /** Called whenever the status changes. */
  onStatus?: (transfer: AccountTransfer) => void
  sleep?: (ms: number) => Promise<void>
  now?: () => number
}

export interface WaitResult {
  transfer: AccountTransfer
  /**
   * `final`: settled, failed or canceled; `awaiting_approval`: `created`, which only an approval
   * moves on.
   */
  outcome: 'final' | 'awaiting_approval'
}

/** `--wait` ran out of time; `last` is the transfer as last seen. Exit 7. */
export class WaitTimeoutError extends NetworkError {
  override name = 'WaitTimeoutError'
  readonly last: AccountTransfer
  constructor(last: AccountTransfer, timeoutMs: number) {
    const since = last.created_at ? ` --created-at-gte ${last.created_at}` : ''
    super(
      `Timed out after ${Math.round(timeoutMs / 1000)}s waiting for account transfer ${last.id}; last status: ${last.status}. The transfer was made and goes on; find its state with: payops transfers list --account ${last.from_account_id}${since} -o json (id ${last.id}).`,
      'WAIT_TIMEOUT',
    )
    this.last = last
  }

  override toJSON(): Record<string, unknown> {
    return {...super.toJSON(), transfer_id: this.last.id, last_status: this.last.status}
  }
}

/** The wait was stopped (Ctrl-C); `last` is the transfer as last seen. Exit 130. */
export class WaitInterruptedError extends InterruptedError {
  override name = 'WaitInterruptedError'
  readonly last: AccountTransfer
  constructor(last: AccountTransfer) {
    super(`Stopped waiting; transfer ${last.id} is ${last.status}.`)
    this.last = last
  }
}

/**
 * The `client_metadata` entry in which `transfers create` carries its Idempotency-Key: the spec
 * promises no idempotency for a transfer's create, so after a lost answer payops looks for this
 * entry in the transfer list instead of sending the create again.
 */
export const KEY_METADATA = 'payops_idempotency_key'

/** The Idempotency-Key a transfer carries in its client_metadata, if any. */
export function keyOfTransfer(t: Pick<AccountTransfer, 'client_metadata'>): string | undefined {
  const v = (t.client_metadata as Record<string, unknown> | null | undefined)?.[KEY_METADATA]
  return typeof v === 'string' ? v : undefined
}

/** How far around a transfer's created_at the list is searched when polling for it. */
const CREATED_WINDOW_MS = 60_000

export class TransfersApi {
  constructor(private readonly client: ApiClient) {}

  /**
   * One page of the list. Rail groups (`ach`, `instant`, `all`: the CLI's names) are expanded here
   * into the concrete rails they stand for, so only the spec's documented rail values are sent;
   * the filter is an OR, so the expansion selects exactly what the group would.
   */
  listPage(filters: TransferFilters, cursor?: string) {
    const rail = filters.rail === undefined ? undefined : [...expandRails(filters.rail)]
    return this.client.page(PATHS.transfers, {...filters, rail, cursor}, AccountTransfer)
  }

  list(filters: TransferFilters, opts: PaginateOptions) {
    return paginate((cursor) => this.listPage(filters, cursor), opts)
  }

  /**
   * Creates a transfer. The key goes in the Idempotency-Key header (which the spec does not promise
   * to honour here) and, by the caller, in client_metadata: the request is never re-sent after a
   * failure that may have reached the server; {@link findByKey} finds out instead. The answer is
   * not shown: a 2XX, 202 Accepted included, with or without a body, means it was accepted.
   */
  create(input: TransferCreateInput, idempotencyKey: string, opts: SendOptions = {}) {
    const body = validateTransferCreate(input)
    return this.client.unshown({method: 'POST', path: PATHS.transferCreate, body, idempotencyKey, schema: AccountTransfer, ...opts})
  }

  approve(id: string, opts: SendOptions = {}) {
    return this.client.unshown({method: 'POST', path: fillPath(PATHS.transferApprove, {account_transfer_id: id}), body: {}, schema: AccountTransfer, ...opts})
  }

  estimate(fromAccountId: string, toAccountId: string, amountMinor: number) {
    return this.client.request({
      method: 'GET',
      path: PATHS.conversionEstimate,
      query: {from_account_id: fromAccountId, to_account_id: toAccountId, amount_in_minor_units: amountMinor},
      schema: ConversionEstimate,
    })
  }

  rails(fromAccountId: string, toAccountId: string) {
    return this.client.request({
      method: 'GET',
      path: PATHS.railOptions,
      query: {from_account_id: fromAccountId, to_account_id: toAccountId},
      schema: RailOptions,
    })
  }

  /**
   * A transfer awaiting approval, found in the list of `created` transfers (there is no GET for
   * one transfer): its amount and destination are checked against the profile's limits and shown
   * in the LIVE confirmation. A transfer that cannot be found cannot be checked, so it is refused.
   */
  async pendingForApproval(id: string): Promise<AccountTransfer> {
    for await (const t of this.list({status: ['created'], limit: 500}, {all: true})) if (t.id === id) return t
    throw new NotConfirmedError(`Cannot check transfer ${id} against the profile's limits and the LIVE confirmation: it is not among the transfers awaiting approval. Nothing was approved.`)
  }

  /**
   * Finds a transfer by id. There is no GET for one transfer, so the list is searched, filtered by
   * the source account and a window around the creation time.
   */
  async find(known: Pick<AccountTransfer, 'id' | 'from_account_id' | 'created_at'>): Promise<AccountTransfer | undefined> {
    const filters: TransferFilters = {account_id: [known.from_account_id], limit: 500}
    const created = known.created_at === undefined ? Number.NaN : Date.parse(known.created_at)
    if (!Number.isNaN(created)) {
      filters.created_at_gte = new Date(created - CREATED_WINDOW_MS).toISOString()
      filters.created_at_lte = new Date(created + CREATED_WINDOW_MS).toISOString()
    }
    for await (const t of this.list(filters, {all: true})) if (t.id === known.id) return t
    return undefined
  }

  /**
   * The transfer whose client_metadata carries `key`, among the source account's transfers
   * (created at or after `createdAfter` when given; of exactly `amount` when given), or undefined.
   * Absence proves little: a list may show a new transfer late.
   */
  async findByKey(key: string, from: string, opts: {createdAfter?: string; amount?: number} = {}): Promise<AccountTransfer | undefined> {
    const filters: TransferFilters = {account_id: [from], limit: 500, created_at_gte: opts.createdAfter}
    if (opts.amount !== undefined) {
      filters.amount_in_minor_units_gte = opts.amount
      filters.amount_in_minor_units_lte = opts.amount
    }
    for await (const t of this.list(filters, {all: true})) if (t.from_account_id === from && keyOfTransfer(t) === key) return t
    return undefined
  }

  /**
   * Polls until the transfer reaches a final status (settled, failed, canceled); throws
   * {@link WaitTimeoutError} after `timeoutMs`, or {@link WaitInterruptedError} when `signal`
   * aborts. A `created` transfer awaits an approval and is returned at once.
   */
  async waitFor(transfer: AccountTransfer, opts: WaitOptions): Promise<WaitResult> {
    const sleep = opts.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)))
    const now = opts.now ?? Date.now
    const interval = opts.intervalMs ?? 1000
    const deadline = now() + opts.timeoutMs
    let last = transfer
    const aborted = new Promise<'aborted'>((resolve) => {
      if (opts.signal?.aborted) resolve('aborted')
      opts.signal?.addEventListener('abort', () => resolve('aborted'), {once: true})
    })
    const stopped = async <T>(p: Promise<T>) => {
      if ((await Promise.race([p.then(() => 'done' as const), aborted])) === 'aborted') throw new WaitInterruptedError(last)
      return p
    }
    if (isFinalTransferStatus(last.status)) return {transfer: last, outcome: 'final'}
    if (last.status === 'created') return {transfer: last, outcome: 'awaiting_approval'}
    for (;;) {
      const remaining = deadline - now()
      if (remaining <= 0) throw new WaitTimeoutError(last, opts.timeoutMs)
      await stopped(sleep(Math.min(interval, remaining)))
      const seen = await stopped(this.find(last))
      if (seen) {
        if (seen.status !== last.status) opts.onStatus?.(seen)
        last = seen
      }
      if (isFinalTransferStatus(last.status)) return {transfer: last, outcome: 'final'}
      if (last.status === 'created') return {transfer: last, outcome: 'awaiting_approval'}
      if (now() >= deadline) throw new WaitTimeoutError(last, opts.timeoutMs)
    }
  }
}
