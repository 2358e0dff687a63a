/** The API facade handed to commands: one typed module per resource area over one client. */
import {ApiClient, type ClientOptions} from './client.js'
import {MovesApi} from './moves.js'
import {SubaccountsApi} from './subaccounts.js'
import {RawApi} from './raw.js'
import {PartiesApi, PayeesApi} from './parties.js'
import {PayinsApi} from './payins.js'
import {TokensApi} from './tokens.js'
import {TransfersApi} from './transfers.js'
import {TreasuryApi} from './treasury.js'
import {WebhooksApi} from './webhooks.js'

export class Api {
  readonly client: ApiClient
  readonly subaccounts: SubaccountsApi
  readonly moves: MovesApi
  readonly raw: RawApi
  readonly payers: PartiesApi
  readonly payees: PayeesApi
  readonly payins: PayinsApi
  readonly tokens: TokensApi
  readonly treasury: TreasuryApi
  readonly transfers: TransfersApi
  readonly webhooks: WebhooksApi

  constructor(opts: ClientOptions | ApiClient) {
    this.client = opts instanceof ApiClient ? opts : new ApiClient(opts)
    this.subaccounts = new SubaccountsApi(this.client)
    this.moves = new MovesApi(this.client)
    this.raw = new RawApi(this.client)
    this.payers = new PartiesApi(this.client, 'payers')
    this.payees = new PayeesApi(this.client)
    this.payins = new PayinsApi(this.client)
    this.tokens = new TokensApi(this.client)
    this.treasury = new TreasuryApi(this.client)
    this.transfers = new TransfersApi(this.client)
    this.webhooks = new WebhooksApi(this.client)
  }

  close(): Promise<void> {
    return this.client.close()
  }
}

export {ApiClient} from './client.js'
export type {ApiResponse, ClientOptions} from './client.js'
