/**
 * Control API for volume, for pagination, throughput and memory runs:
 *
 * - `POST /_emulator/bulk/activity {subaccount_id, count}` books `count` bank-reported (bai2)
 *   credit lines on a subaccount at once (up to 1,000,000), without creating one move per line.
 * - `POST /_emulator/bulk/moves {from_subaccount_id, to_subaccount_id, count, amount_in_minor_units?,
 *   idempotency_key_prefix?}` creates `count` settled moves (up to 1,000,000) through the same store
 *   operations a `POST /api/subaccounts/move` with auto-approve runs: create (bound to the key
 *   `prefix` + the move's number as 32 hex digits, when a prefix is given), approve, settle.
 *   Everything is checked before the first move is written.
 * - `POST /_emulator/gc` runs a full garbage collection when the process was started with
 *   `--expose-gc`, and returns `process.memoryUsage()`.
 */
import * as z from 'zod/mini'
import type {AppContext} from '../context.js'
import {notFound, validationError} from '../errors.js'
import {ok, parseInput} from '../handler.js'
import type {Router} from '../router.js'

const BulkActivity = z.object({
  subaccount_id: z.string().check(z.minLength(1)),
  count: z.int().check(z.gte(1), z.lte(1_000_000)),
})

const BulkMoves = z.object({
  from_subaccount_id: z.string().check(z.minLength(1)),
  to_subaccount_id: z.string().check(z.minLength(1)),
  count: z.int().check(z.gte(1), z.lte(1_000_000)),
  amount_in_minor_units: z.optional(z.int().check(z.gte(1), z.lte(1_000_000_000))),
  idempotency_key_prefix: z.optional(z.string().check(z.minLength(1), z.maxLength(200))),
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

  router.add('POST', '/_emulator/bulk/moves', (ctx) => {
    const body = parseInput(BulkMoves, ctx.body)
    const entity = [...app.store.entities.values()].find((e) => e.subaccounts.has(body.from_subaccount_id))
    if (!entity) throw notFound(`subaccount ${body.from_subaccount_id} not found`)
    const from = entity.subaccounts.get(body.from_subaccount_id)!
    const to = entity.subaccounts.get(body.to_subaccount_id)
    if (!to) throw notFound(`subaccount ${body.to_subaccount_id} not found`)
    if (from.id === to.id) throw validationError('to_subaccount_id must differ from from_subaccount_id')
    if (from.currency_code !== to.currency_code) throw validationError(`subaccounts have incompatible currencies (${from.currency_code} and ${to.currency_code})`)
    const amount = body.amount_in_minor_units ?? 100
    const prefix = body.idempotency_key_prefix
    const total = amount * body.count
    app.store.moves.assertCanSettle(entity, {from_subaccount_id: from.id, to_subaccount_id: to.id, amount_in_minor_units: total})
    if (prefix !== undefined) {
      for (let i = 0; i < body.count; i++) {
        if (app.store.moves.byIdempotencyKey(entity, bulkKey(prefix, i))) throw validationError(`Idempotency-Key ${bulkKey(prefix, i)} was already used`)
      }
    }
    for (let i = 0; i < body.count; i++) {
      const move = app.store.moves.create(entity, {
        from_subaccount_id: from.id,
        to_subaccount_id: to.id,
        amount_in_minor_units: amount,
        currency_code: from.currency_code,
        idempotency_key: prefix === undefined ? undefined : bulkKey(prefix, i),
      })
      app.store.moves.setStatus(move, 'approved')
      app.store.moves.settle(entity, move)
    }
    return ok({created: body.count})
  })

  router.add('POST', '/_emulator/gc', () => {
    const gc = (globalThis as {gc?: () => void}).gc
    if (gc) gc()
    return ok({gc: gc !== undefined, memory: process.memoryUsage()})
  })
}

/** The Idempotency-Key of the `i`-th move of a bulk run: the prefix, then `i` as 32 hex digits. */
function bulkKey(prefix: string, i: number): string {
  return prefix + i.toString(16).padStart(32, '0')
}
