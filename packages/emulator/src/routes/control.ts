/**
 * The control API under `/_emulator/` for tests and demos. It needs no API key (the emulator
 * listens on loopback) and never returns existing keys, only ones it has just issued.
 *
 * - POST /_emulator/reset                 re-seed all data, drift and strict back to how they started; every API key keeps working
 * - POST /_emulator/fail-next-settlement  {count?: 0..1000} the next N settlements fail
 * - POST /_emulator/moves/{move_id}/fail  a created or approved move becomes `failed`
 * - GET  /_emulator/requests              {count, recent: [{method, path}]}: API requests received
 * - GET  /_emulator/entities              entities with their subaccount and account ids
 * - POST /_emulator/keys                  {entity, read_only?} issues a new key -> {key}
 * - POST /_emulator/payers, /payees       add parties (routes/parties.ts)
 * - POST /_emulator/payins[/{id}/advance], GET /_emulator/payins   payins (routes/payins.ts)
 * - POST /_emulator/bulk/activity, /bulk/moves, /gc   volume and memory runs (routes/bulk.ts)
 */
import * as z from 'zod/mini'
import type {AppContext} from '../app.js'
import {notFound, validationError} from '../lib/http-error.js'
import {created, ok, parseInput} from '../server/handler.js'
import type {Router} from '../server/router.js'
import {reseed} from '../store/seed.js'
import {ENTITY_ROLES, type Entity, type MoveRecord} from '../store/index.js'
import {moveView} from './moves.js'

const FailSettlementBody = z.object({
  count: z.optional(z.int('count must be a whole number').check(z.gte(0, 'count must be 0 to 1000'), z.lte(1000, 'count must be 0 to 1000'))),
})

const IssueKeyBody = z.object({
  entity: z.enum(ENTITY_ROLES, {message: `entity must be one of ${ENTITY_ROLES.join(', ')}`}),
  read_only: z.optional(z.boolean({message: 'read_only must be a boolean'})),
})

function entitySummary(e: Entity) {
  return {
    role: e.role,
    id: e.id,
    name: e.name,
    mode: e.mode,
    subaccount_ids: e.subaccounts.items.map((s) => s.id),
    treasury_account_ids: e.treasuryAccounts.items.map((a) => a.id),
  }
}

export function register(router: Router, app: AppContext): void {
  router.add('POST', '/_emulator/reset', () => {
    reseed(app.store)
    app.faults.reset()
    app.drift?.reset()
    app.strict?.reset()
    app.specOnly?.reset()
    return ok({reset: true, entities: [...app.store.entities.values()].map(entitySummary)})
  })

  router.add('POST', '/_emulator/fail-next-settlement', (ctx) => {
    const body = parseInput(FailSettlementBody, ctx.body)
    app.faults.settlementFailures = body.count ?? 1
    return ok({pending_settlement_failures: app.faults.settlementFailures})
  })

  router.add('POST', '/_emulator/moves/{move_id}/fail', (ctx) => {
    const id = ctx.params.move_id
    let move: MoveRecord | undefined
    for (const e of app.store.entities.values()) move ??= e.moves.get(id)
    if (!move) throw notFound(`move ${id} not found`)
    if (move.status !== 'created' && move.status !== 'approved') throw validationError(`move cannot fail in status ${move.status}`)
    app.store.moves.setStatus(move, 'failed')
    return ok({data: moveView(move)})
  })

  router.add('GET', '/_emulator/requests', () => ok({data: {count: app.requests.count, recent: app.requests.recent}}))
  router.add('GET', '/_emulator/entities', () => ok({data: [...app.store.entities.values()].map(entitySummary)}))

  router.add('POST', '/_emulator/keys', (ctx) => {
    const body = parseInput(IssueKeyBody, ctx.body)
    const entity = app.store.entityByRole(body.entity)
    if (!entity) throw notFound(`entity ${body.entity} not found`)
    const rec = app.store.issueKey(entity, {readOnly: body.read_only ?? false})
    return created({key: rec.key, entity: body.entity, read_only: rec.read_only})
  })
}
