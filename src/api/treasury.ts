import type {ApiClient, SendOptions} from './client.js'
import {fillPath} from './url.js'
import {PATHS} from './paths.js'
import {paginate, type PaginateOptions} from './paginate.js'
import {describeIssues} from './schemas/common.js'
import {BankTransaction, SimulateCreditRequest, SimulatedCredit, TreasuryAccount, TreasuryBalance, UpdateLabelRequest} from './schemas/treasury.js'
import {ApiError, UsageError} from '../errors.js'
import {normalizeCurrency} from '../money.js'

export interface ListFilters {
  limit?: number
  order?: 'asc' | 'desc'
}

export interface BankTransactionFilters extends ListFilters {
  transaction_date_gte?: string
  transaction_date_lte?: string
}

export interface SimulateCreditInput {
  rail: 'standard_ach' | 'wire'
  amount_in_minor_units: number
  transaction_date?: string
  sender_info?: string
  subaccount_id?: string
}

/** Validates a simulated-credit body with the schema the API (emulator) applies; a usage error if bad. */
export function validateSimulateCredit(input: SimulateCreditInput): SimulateCreditRequest {
  const r = SimulateCreditRequest.safeParse(input)
  if (!r.success) throw new UsageError(`Invalid simulated credit: ${describeIssues(r.error)}`)
  return r.data
}

export class TreasuryApi {
  constructor(private readonly client: ApiClient) {}

  accountsPage(filters: ListFilters, cursor?: string) {
    return this.client.page(PATHS.treasuryAccounts, {...filters, cursor}, TreasuryAccount)
  }

  accounts(filters: ListFilters, opts: PaginateOptions) {
    return paginate((cursor) => this.accountsPage(filters, cursor), opts)
  }

  /**
   * Finds one account by walking the account list (the spec has no GET for one account); stops at
   * the first match, one page of 500 at a time.
   */
  async findAccount(id: string): Promise<TreasuryAccount | undefined> {
    for await (const a of this.accounts({limit: 500}, {all: true})) if (a.id === id) return a
    return undefined
  }

  /**
   * The currency in which the amount filters of `transfers list` are read: `explicit` (--currency)
   * when given, else the one currency all the filtered accounts share (learned from the account
   * list). Without accounts, with accounts of different currencies or with an account missing
   * from the list, the decimal cannot be read: a usage error saying what to give instead.
   */
  async amountFilterCurrency(accountIds: readonly string[] | undefined, explicit: string | undefined): Promise<string> {
    const instead = 'give --currency, or the amount in minor units with --amount-minor-gte/--amount-minor-lte'
    if (explicit !== undefined) return normalizeCurrency(explicit)
    const ids = [...new Set(accountIds ?? [])]
    if (ids.length === 0) throw new UsageError(`--amount-gte/--amount-lte are decimals in a currency, and without --account there is none to read them in: ${instead}.`)
    const found = new Map<string, string>()
    for await (const a of this.accounts({limit: 500}, {all: true})) {
      if (ids.includes(a.id)) found.set(a.id, a.currency_code.toUpperCase())
      if (found.size === ids.length) break
    }
    const missing = ids.filter((id) => !found.has(id))
    if (missing.length > 0) throw new UsageError(`Cannot read --amount-gte/--amount-lte: treasury account ${missing.join(', ')} is not in GET ${PATHS.treasuryAccounts}, so its currency is unknown; ${instead}.`)
    const currencies = [...new Set(found.values())]
    if (currencies.length > 1) {
      throw new UsageError(`The --account accounts are in different currencies (${ids.map((id) => `${id} ${found.get(id)}`).join(', ')}): ${instead}.`)
    }
    return currencies[0]
  }

  /**
   * Parses an amount in the account's own currency, learned from the account list. A --currency
   * that differs from the account's is refused; an account missing from the list is a 404 unless
   * --currency says how to read the amount (the API then has the last word).
   */
  async resolveAmount(
    accountId: string,
    flags: {amount?: string; currency?: string},
    parse: (currency?: string | null) => {minor: number; currency: string},
    what = 'account',
  ): Promise<{minor: number; currency: string}> {
    const account = await this.findAccount(accountId)
    if (!account) {
      // Without the account its currency is not known, and none is assumed: only --currency names it.
      if (flags.currency === undefined) {
        throw new ApiError({status: 404, errorCode: 'NOT_FOUND', message: `treasury ${what} ${accountId} not found (it is not in GET ${PATHS.treasuryAccounts})`})
      }
      return parse(null)
    }
    const currency = account.currency_code.toUpperCase()
    if (flags.currency !== undefined && flags.currency.trim().toUpperCase() !== currency) {
      throw new UsageError(`--currency ${flags.currency.trim().toUpperCase()} does not match the ${what}'s currency ${currency}.`)
    }
    return parse(currency)
  }

  updateLabel(id: string, label: string) {
    const r = UpdateLabelRequest.safeParse({label})
    if (!r.success) throw new UsageError(`Invalid label: ${describeIssues(r.error)}`)
    return this.client.request({method: 'POST', path: fillPath(PATHS.treasuryAccountLabel, {account_id: id}), body: r.data, schema: TreasuryAccount})
  }

  transactionsPage(accountId: string, filters: BankTransactionFilters, cursor?: string) {
    return this.client.page(fillPath(PATHS.bankTransactions, {account_id: accountId}), {...filters, cursor}, BankTransaction)
  }

  transactions(accountId: string, filters: BankTransactionFilters, opts: PaginateOptions) {
    return paginate((cursor) => this.transactionsPage(accountId, filters, cursor), opts)
  }

  transaction(accountId: string, id: string) {
    return this.client.request({method: 'GET', path: fillPath(PATHS.bankTransaction, {account_id: accountId, bank_transaction_id: id}), schema: BankTransaction})
  }

  /** The account's balance (assumed shape: PATHS.treasuryAccountBalance). */
  balance(accountId: string) {
    return this.client.request({method: 'GET', path: fillPath(PATHS.treasuryAccountBalance, {account_id: accountId}), schema: TreasuryBalance})
  }

  /** Always with an Idempotency-Key (the sandbox reference), so that a retry never credits twice. */
  simulateCredit(accountId: string, input: SimulateCreditInput, idempotencyKey: string, opts: SendOptions = {}) {
    const body = validateSimulateCredit(input)
    return this.client.request({
      method: 'POST',
      path: fillPath(PATHS.simulateInboundCredit, {account_id: accountId}),
      body,
      idempotencyKey,
      schema: SimulatedCredit,
      ...opts,
    })
  }
}
