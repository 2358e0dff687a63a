/**
 * Payers and payees: the two lists (identical parameters) and GET /api/payees/{id}, plus the
 * control API that adds parties:
 *
 * - POST /_emulator/payers, POST /_emulator/payees
 *   `{entity?: 'test'|'test_other'|'live', count?: 1..10000, records?: [{name, email, country_code?,
 *   country_sub_division?, city?, address_line?, postal_code?, client_metadata?, has_default?}]}`
 *   -> 201 `{entity, ids, data}` (data: each party as the API shows it, plus its internal `has_default`)
 */
import {PATHS} from '../interface/paths.js'
import {randomInt} from 'node:crypto'
import * as z from 'zod/mini'
import {ClientMetadata} from '../interface/common.js'
import {COUNTRY_CODES, PartyListQuery} from '../interface/parties.js'
import type {AppContext} from '../app.js'
import {notFound} from '../lib/http-error.js'
import {created, ok, parseInput} from '../server/handler.js'
import {paginate} from '../server/pagination.js'
import type {Router} from '../server/router.js'
import {addGeneratedParties} from '../store/seed-parties.js'
import {ENTITY_ROLES, randomRoutingNumber, type Entity, type PartyKind, type PartyRecord} from '../store/index.js'

const DAY_MS = 86_400_000

/** A payer or payee as the API shows it: `country_code` only when known; no payment-method fields. */
export function partyView(p: PartyRecord) {
  return {
    id: p.id,
    name: p.name,
    email: p.email,
    ...(p.country_code ? {country_code: p.country_code} : {}),
    country_sub_division: p.country_sub_division,
    city: p.city,
    address_line: p.address_line,
    postal_code: p.postal_code,
    client_metadata: p.client_metadata,
    created_at: p.created_at,
    updated_at: p.updated_at,
  }
}

export function findPayee(entity: Entity, id: string): PartyRecord {
  const p = entity.payees.get(id)
  if (!p) throw notFound(`payee ${id} not found`, 'PAYEE_NOT_FOUND')
  return p
}

function tableOf(entity: Entity, kind: PartyKind) {
  return kind === 'payer' ? entity.payers : entity.payees
}

/** The filter of a party list query (undefined when unfiltered), and its cursor scope. */
export function partyFilter(kind: PartyKind, q: PartyListQuery): {filter?: (p: PartyRecord) => boolean; scope: string} {
  const name = q.name?.toLowerCase()
  const email = q.email?.toLowerCase()
  const gte = q.created_at_gte === undefined ? undefined : Date.parse(`${q.created_at_gte}T00:00:00Z`)
  // Inclusive date: everything before the start of the next UTC day.
  const lt = q.created_at_lte === undefined ? undefined : Date.parse(`${q.created_at_lte}T00:00:00Z`) + DAY_MS
  const scope = JSON.stringify([`${kind}s`, name ?? null, email ?? null, q.has_default ?? null, gte ?? null, lt ?? null])
  if (name === undefined && email === undefined && q.has_default === undefined && gte === undefined && lt === undefined) return {scope}
  return {
    scope,
    filter: (p) => {
      if (name !== undefined && !p.name.toLowerCase().includes(name)) return false
      if (email !== undefined && !p.email.toLowerCase().includes(email)) return false
      if (q.has_default !== undefined && (p.default_payment_method !== null) !== q.has_default) return false
      if (gte !== undefined || lt !== undefined) {
        const t = Date.parse(p.created_at)
        if (gte !== undefined && t < gte) return false
        if (lt !== undefined && t >= lt) return false
      }
      return true
    },
  }
}

const nullableText = (field: string, max: number) =>
  z.optional(z.nullable(z.string({message: `${field} must be a string`}).check(z.maxLength(max, `${field} must be at most ${max} characters`))))

const PartyInput = z.object({
  name: z.string({message: 'name is required'}).check(z.minLength(1, 'name must be 1 to 200 characters'), z.maxLength(200, 'name must be 1 to 200 characters')),
  email: z.email({message: 'email must be an email address'}),
  country_code: z.optional(z.enum(COUNTRY_CODES, {message: `country_code must be one of ${COUNTRY_CODES.join(', ')}`})),
  country_sub_division: nullableText('country_sub_division', 100),
  city: nullableText('city', 100),
  address_line: nullableText('address_line', 200),
  postal_code: nullableText('postal_code', 20),
  client_metadata: z.optional(ClientMetadata),
  has_default: z.optional(z.boolean({message: 'has_default must be a boolean'})),
})

const AddPartiesBody = z
  .object({
    entity: z.optional(z.enum(ENTITY_ROLES, {message: `entity must be one of ${ENTITY_ROLES.join(', ')}`})),
    count: z.optional(z.int('count must be a whole number').check(z.gte(1, 'count must be 1 to 10000'), z.lte(10_000, 'count must be 1 to 10000'))),
    records: z.optional(z.array(PartyInput).check(z.maxLength(10_000, 'at most 10000 records'))),
  })
  .check(z.refine((b) => b.count !== undefined || (b.records !== undefined && b.records.length > 0), {message: 'give count or records'}))

export function register(router: Router, app: AppContext): void {
  for (const kind of ['payer', 'payee'] as const) {
    router.add('GET', PATHS[`${kind}s`], (ctx) => {
      const q = parseInput(PartyListQuery, ctx.query)
      const {filter, scope} = partyFilter(kind, q)
      return ok(paginate(tableOf(ctx.entity, kind).items, {limit: q.limit, order: q.order ?? 'desc', cursor: q.cursor, filter, scope}, partyView))
    })

    router.add('POST', `/_emulator/${kind}s`, (ctx) => {
      const body = parseInput(AddPartiesBody, ctx.body)
      const role = body.entity ?? 'test'
      const entity = app.store.entityByRole(role)
      if (!entity) throw notFound(`entity ${role} not found`)
      const added: PartyRecord[] = []
      for (const r of body.records ?? []) {
        added.push(
          app.store.parties.create(entity, kind, {
            name: r.name,
            email: r.email,
            country_code: r.country_code ?? null,
            country_sub_division: r.country_sub_division ?? null,
            city: r.city ?? null,
            address_line: r.address_line ?? null,
            postal_code: r.postal_code ?? null,
            client_metadata: r.client_metadata ?? {},
            default_payment_method: r.has_default ? {account_last_four: String(randomInt(0, 10_000)).padStart(4, '0'), routing_number: randomRoutingNumber()} : null,
          }),
        )
      }
      if (body.count !== undefined) added.push(...addGeneratedParties(app.store, entity, kind, body.count))
      return created({entity: role, ids: added.map((p) => p.id), data: added.map((p) => ({...partyView(p), has_default: p.default_payment_method !== null}))})
    })
  }

  router.add('GET', PATHS.payee, (ctx) => ok({data: partyView(findPayee(ctx.entity, ctx.params.payee_id))}))
}
