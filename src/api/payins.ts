/** Payins: GET /api/payins/{id}. */
import type {ApiClient} from './client.js'
import {p} from './client.js'
import {Payin} from './schemas/parties.js'

export class PayinsApi {
  constructor(private readonly client: ApiClient) {}

  get(id: string) {
    return this.client.request({method: 'GET', path: p`/api/payins/${id}`, schema: Payin})
  }
}
