/** Payers and payees: the two lists (identical parameters) and GET /api/payees/{id}. */
import type {ApiClient} from './client.js'
import {fillPath} from './url.js'
import {PATHS} from './paths.js'
import {paginate, type PaginateOptions} from './paginate.js'
import {Party, type PartyFilters} from './schemas/parties.js'

export type {PartyFilters} from './schemas/parties.js'

export class PartiesApi {
  /** `payers` or `payees`. */
  constructor(
    private readonly client: ApiClient,
    private readonly collection: 'payers' | 'payees',
  ) {}

  listPage(filters: PartyFilters, cursor?: string) {
    return this.client.page(PATHS[this.collection], {...filters, cursor}, Party)
  }

  list(filters: PartyFilters, opts: PaginateOptions) {
    return paginate((cursor) => this.listPage(filters, cursor), opts)
  }
}

export class PayeesApi extends PartiesApi {
  constructor(private readonly api: ApiClient) {
    super(api, 'payees')
  }

  get(id: string) {
    return this.api.request({method: 'GET', path: fillPath(PATHS.payee, {payee_id: id}), schema: Party})
  }
}
