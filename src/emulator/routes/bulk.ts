/**
 * Control API for volume: `POST /_emulator/bulk/activity {subaccount_id, count}` books `count`
 * bank-reported (bai2) credit lines on a subaccount at once (up to 1,000,000), for pagination and
 * throughput runs without creating one move per line.
 */
import * as z from 'zod/mini'
import type {AppContext} from '../context.js'
import {notFound} from '../errors.js'
import {ok, parseInput} from '../handler.js'
import type {Router} from '../router.js'

const BulkActivity = z.object({
  subaccount_id: z.string().check(z.minLength(1)),
  count: z.int().check(z.gte(1), z.lte(1_000_000)),
})

export function register(router: Router, app: AppContext): void {
  router.add('POST', '/_emulator/bulk/activity', (ctx) => {
    const body = parseInput(BulkActivity, ctx.body)
    const entity = [...app.store.entities.values()].find((e) => e.subaccounts.has(body.subaccount_id))
    if (!entity) throw notFound(`subaccount ${body.subaccount_id} not found`)
    for (let i = 0; i < body.count; i++) {
      app.store.subaccounts.bookFlow(entity, body.subaccount_id, {source: 'bai2', direction: 'credit', amount_in_minor_units: 100 + (i % 10_000)})
    }
    return ok({created: body.count})
  })
}
