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
 * - `POST /_emulator/bulk/transfers {from_account_id, to_account_id, count, first_date, days?}`
 *   creates `count` settled account transfers (up to 1,000,000) of distinct amounts (100 + i minor
 *   units), scheduled over `days` days from `first_date` (default 28), each with its bank lines on
 *   both accounts dated its scheduled day (converted on an account of another currency), as a
 *   settlement with the realistic bank feed books them (wire: no lag): the volume of `reconcile`.
 * - `POST /_emulator/gc` runs a full garbage collection when the process was started with
 *   `--expose-gc`, and returns `process.memoryUsage()`.
 */
import * as z from 'zod/mini'
import {CalendarDate} from '../interface/common.js'
import {addDays} from '../bank-feed/bank-feed.js'
import type {AppContext} from '../app.js'
import {convertMinor} from '../store/fx.js'
import {notFound, validationError} from '../lib/http-error.js'
import {ok, parseInput} from '../server/handler.js'
import type {Router} from '../server/router.js'

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

const BulkTransfers = z.object({
  from_account_id: z.string().check(z.minLength(1)),
  to_account_id: z.string().check(z.minLength(1)),
  count: z.int().check(z.gte(1), z.lte(1_000_000)),
  first_date: CalendarDate,
  days: z.optional(z.int().check(z.gte(1), z.lte(366))),
})

export function register(router: Router, app: AppContext): void {
  router.add('POST', '/_emulator/bulk/transfers', (ctx) => {
    const body = parseInput(BulkTransfers, ctx.body)
    const entity = [...app.store.entities.values()].find((e) => e.treasuryAccounts.has(body.from_account_id))
    if (!entity) throw notFound(`treasury account ${body.from_account_id} not found`)
    const from = entity.treasuryAccounts.get(body.from_account_id)!
    const to = entity.treasuryAccounts.get(body.to_account_id)
    if (!to) throw notFound(`treasury account ${body.to_account_id} not found`)
    if (from.id === to.id) throw validationError('to_account_id must differ from from_account_id')
    const days = body.days ?? 28
    for (let i = 0; i < body.count; i++) {
      const amount = 100 + i
      const date = addDays(body.first_date, i % days)
      const t = app.store.transfers.create(entity, {from_account_id: from.id, to_account_id: to.id, amount_in_minor_units: amount, currency_code: from.currency_code, rail: 'wire', scheduled_date: date})
      app.store.transfers.setStatus(entity, t, 'approved')
      app.store.transfers.setStatus(entity, t, 'initiated')
      app.store.transfers.setStatus(entity, t, 'settled')
      const common = {transaction_date: date, transfer_id: t.id}
      app.store.treasury.addBankTransaction(entity, from.id, {...common, amount_in_minor_units: amount, currency_code: from.currency_code, description: 'ACCOUNT TRANSFER OUT', receiver_info: to.label, direction: 'debit'})
      const landed = to.currency_code === from.currency_code ? amount : convertMinor(amount, from.currency_code, to.currency_code).destinationMinor
      app.store.treasury.addBankTransaction(entity, to.id, {...common, amount_in_minor_units: landed, currency_code: to.currency_code, description: 'ACCOUNT TRANSFER IN', sender_info: from.label, direction: 'credit'})
    }
    return ok({created: body.count})
  })

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
