/** Payins: GET /api/payins/{id}. */
import type {ApiClient} from './client.js'
import {fillPath} from './url.js'
import {PATHS} from './paths.js'
import {Payin} from './schemas/parties.js'

export class PayinsApi {
  constructor(private readonly client: ApiClient) {}

  get(id: string) {
    return this.client.request({method: 'GET', path: fillPath(PATHS.payin, {payin_id: id}), schema: Payin})
  }
}
