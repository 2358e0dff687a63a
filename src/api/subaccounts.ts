import type {ApiClient} from './client.js'
import {fillPath} from './url.js'
import {PATHS} from './paths.js'
import {paginate, type PaginateOptions} from './paginate.js'
import {ActivityItem, Subaccount} from './schemas/subaccounts.js'
import {UsageError} from '../errors.js'

export interface ActivityFilters {
  order?: 'asc' | 'desc'
  direction?: 'credit' | 'debit'
  amount_gte?: number
  amount_lte?: number
  effective_at_gte?: string
  effective_at_lte?: string
  limit?: number
}

export class SubaccountsApi {
  constructor(private readonly client: ApiClient) {}

  create(name: string) {
    return this.client.request({method: 'POST', path: PATHS.subaccounts, body: {name}, schema: Subaccount})
  }

  get(id: string) {
    return this.client.request({method: 'GET', path: fillPath(PATHS.subaccount, {subaccount_id: id}), schema: Subaccount})
  }

  /** The currency of each subaccount (fetched once per id, a few at a time). */
  async currencies(ids: string[], concurrency = 4): Promise<Map<string, string | null>> {
    const out = new Map<string, string | null>()
    const queue = [...new Set(ids)]
    const worker = async () => {
      for (let id = queue.shift(); id !== undefined; id = queue.shift()) {
        const res = await this.get(id)
        out.set(id, res.data.currency_code?.toUpperCase() ?? null)
      }
    }
    await Promise.all(Array.from({length: Math.min(concurrency, queue.length)}, worker))
    return out
  }

  /**
   * The currency in which the amount filters of the activity are read: the subaccount's own (one
   * GET). A subaccount whose currency the API does not report is a usage error naming the
   * minor-unit flags, which need no currency.
   */
  async activityAmountCurrency(id: string): Promise<string> {
    const currency = (await this.get(id)).data.currency_code
    if (!currency) throw new UsageError(`The API did not report the currency of subaccount ${id}, so --amount-gte/--amount-lte cannot be read: give the amount in minor units with --amount-minor-gte/--amount-minor-lte.`)
    return currency.toUpperCase()
  }

  activityPage(id: string, filters: ActivityFilters, cursor?: string) {
    return this.client.page(fillPath(PATHS.subaccountActivity, {subaccount_id: id}), {...filters, cursor}, ActivityItem)
  }

  activity(id: string, filters: ActivityFilters, opts: PaginateOptions) {
    return paginate((cursor) => this.activityPage(id, filters, cursor), opts)
  }
}
