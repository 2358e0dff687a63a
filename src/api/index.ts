/**
 * The API facade handed to commands: one typed module per resource area over one client. Each
 * area (and the schemas it declares) is loaded on demand: `Api.create(opts, areas)` imports only
 * the areas named, so a one-shot command evaluates only the schemas it uses.
 */
import {ApiClient, type ClientOptions} from './client.js'
import type {MovesApi} from './moves.js'
import type {SubaccountsApi} from './subaccounts.js'
import type {RawApi} from './raw.js'
import type {PartiesApi, PayeesApi} from './parties.js'
import type {PayinsApi} from './payins.js'
import type {TokensApi} from './tokens.js'
import type {TransfersApi} from './transfers.js'
import type {TreasuryApi} from './treasury.js'
import type {WebhooksApi} from './webhooks.js'
import type {EmulatorApi} from './emulator.js'

interface Areas {
  subaccounts: SubaccountsApi
  moves: MovesApi
  raw: RawApi
  payers: PartiesApi
  payees: PayeesApi
  payins: PayinsApi
  tokens: TokensApi
  treasury: TreasuryApi
  transfers: TransfersApi
  webhooks: WebhooksApi
  emulator: EmulatorApi
}
export type ApiArea = keyof Areas

const LOADERS: {[K in ApiArea]: () => Promise<(client: ApiClient) => Areas[K]>} = {
  subaccounts: () => import('./subaccounts.js').then((m) => (c) => new m.SubaccountsApi(c)),
  moves: () => import('./moves.js').then((m) => (c) => new m.MovesApi(c)),
  raw: () => import('./raw.js').then((m) => (c) => new m.RawApi(c)),
  payers: () => import('./parties.js').then((m) => (c) => new m.PartiesApi(c, 'payers')),
  payees: () => import('./parties.js').then((m) => (c) => new m.PayeesApi(c)),
  payins: () => import('./payins.js').then((m) => (c) => new m.PayinsApi(c)),
  tokens: () => import('./tokens.js').then((m) => (c) => new m.TokensApi(c)),
  treasury: () => import('./treasury.js').then((m) => (c) => new m.TreasuryApi(c)),
  transfers: () => import('./transfers.js').then((m) => (c) => new m.TransfersApi(c)),
  webhooks: () => import('./webhooks.js').then((m) => (c) => new m.WebhooksApi(c)),
  emulator: () => import('./emulator.js').then((m) => (c) => new m.EmulatorApi(c)),
}
export const API_AREAS = Object.keys(LOADERS) as ApiArea[]

export class Api {
  readonly client: ApiClient
  private readonly areas: Partial<Areas> = {}

  private constructor(client: ApiClient) {
    this.client = client
  }

  /** The facade with the given areas loaded (all of them by default). */
  static async create(opts: ClientOptions | ApiClient, areas: readonly ApiArea[] = API_AREAS): Promise<Api> {
    const api = new Api(opts instanceof ApiClient ? opts : new ApiClient(opts))
    await api.load(areas)
    return api
  }

  /** Loads more areas into this facade. */
  async load(areas: readonly ApiArea[]): Promise<void> {
    await Promise.all(
      areas.map(async (name) => {
        if (this.areas[name]) return
        const make = await LOADERS[name]()
        ;(this.areas as Record<ApiArea, unknown>)[name] ??= make(this.client)
      }),
    )
  }

  private area<K extends ApiArea>(name: K): Areas[K] {
    const a = this.areas[name]
    if (!a) throw new Error(`API area "${name}" was not loaded`)
    return a
  }

  get subaccounts(): SubaccountsApi {
    return this.area('subaccounts')
  }
  get moves(): MovesApi {
    return this.area('moves')
  }
  get raw(): RawApi {
    return this.area('raw')
  }
  get payers(): PartiesApi {
    return this.area('payers')
  }
  get payees(): PayeesApi {
    return this.area('payees')
  }
  get payins(): PayinsApi {
    return this.area('payins')
  }
  get tokens(): TokensApi {
    return this.area('tokens')
  }
  get treasury(): TreasuryApi {
    return this.area('treasury')
  }
  get transfers(): TransfersApi {
    return this.area('transfers')
  }
  get webhooks(): WebhooksApi {
    return this.area('webhooks')
  }
  get emulator(): EmulatorApi {
    return this.area('emulator')
  }

  /**
   * This facade, its areas loaded, with requests sent below `root` of the same origin instead of
   * the base URL's path (same key, connections and audit): see ApiClient.under.
   */
  async under(root: string): Promise<Api> {
    const api = new Api(this.client.under(root))
    await api.load(Object.keys(this.areas) as ApiArea[])
    return api
  }

  close(): Promise<void> {
    return this.client.close()
  }
}

export {ApiClient} from './client.js'
export type {ApiResponse, ClientOptions} from './client.js'
