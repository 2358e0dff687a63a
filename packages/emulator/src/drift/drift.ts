/**
 * `emulator start --drift` (and `{"drift": true}` on POST /_emulator/faults): every answer in the
 * drift the spec documents, so that the client is tested on it. One response transform, applied by
 * the server (http.ts) to each 2XX answer of an `/api/` route after its handler ran; the routes
 * themselves always build the full, current shape.
 *
 * - approve-move: the example shape only (`id`, `source_subaccount_id`,
 *   `destination_subaccount_id`, `currency_code`, upper-case `status`, `settled_at`,
 *   `description`), with no amount field at all;
 * - legacy names only where the spec calls the current one's twin deprecated: a move's and a
 *   payin's `amount_in_cents` without `amount_in_minor_units`; a subaccount's
 *   `total_incoming_cents`/`total_outgoing_cents` and `routing_number` without
 *   `total_*_in_minor_units` and `routing_numbers`;
 * - replays keep their upper-case states (the route answers them so in either mode);
 * - only the fields the spec requires: no `warning: null`, no `total_count` or `previous_cursor`,
 *   `next_cursor` only when `has_more` is true (a list cannot be followed without it), no empty
 *   optional `client_metadata`, no null optional fields.
 */
import {PATHS, type PathName} from '../interface/paths.js'

type Obj = Record<string, unknown>
type Shape = (o: Obj) => Obj

const isObj = (v: unknown): v is Obj => Boolean(v) && typeof v === 'object' && !Array.isArray(v)
const isEmpty = (v: unknown) => v === null || v === undefined || (isObj(v) && Object.keys(v).length === 0)

/** Drops the fields that are absent-or-empty (`client_metadata`) or null (optional nullable ones). */
function dropEmpty(o: Obj, ...fields: string[]): Obj {
  for (const f of fields) if (isEmpty(o[f])) delete o[f]
  return o
}

/** The deprecated `amount_in_cents` alone. */
function legacyAmount(o: Obj): Obj {
  if (o.amount_in_cents === undefined && typeof o.amount_in_minor_units === 'number') o.amount_in_cents = o.amount_in_minor_units
  delete o.amount_in_minor_units
  return o
}

const move: Shape = (o) => dropEmpty(legacyAmount(o), 'client_metadata')

/** The approve example: renamed ids, upper-case status, `settled_at`, `description`; no amounts. */
const approvedMove: Shape = (o) => {
  const out: Obj = {
    id: o.id,
    source_subaccount_id: o.source_subaccount_id ?? o.from_subaccount_id,
    destination_subaccount_id: o.destination_subaccount_id ?? o.to_subaccount_id,
    currency_code: o.currency_code,
    status: typeof o.status === 'string' ? o.status.toUpperCase() : o.status,
    settled_at: o.settled_at,
    description: o.description,
  }
  return dropEmpty(out, 'settled_at', 'description', 'currency_code')
}

const subaccount: Shape = (o) => {
  if (typeof o.total_incoming_in_minor_units === 'number') o.total_incoming_cents ??= o.total_incoming_in_minor_units
  if (typeof o.total_outgoing_in_minor_units === 'number') o.total_outgoing_cents ??= o.total_outgoing_in_minor_units
  if (o.routing_number === undefined && isObj(o.routing_numbers)) o.routing_number = o.routing_numbers.ach
  delete o.total_incoming_in_minor_units
  delete o.total_outgoing_in_minor_units
  delete o.routing_numbers
  return o
}

/** Activity: `amount_in_cents` stays (it is the item's amount); the optional nullable fields go when null. */
const activity: Shape = (o) => dropEmpty(o, 'amount_in_minor_units', 'currency_code')
const payin: Shape = (o) => dropEmpty(legacyAmount(o), 'client_metadata')
const party: Shape = (o) => dropEmpty(o, 'client_metadata', 'country_code')
const transfer: Shape = (o) => dropEmpty(o, 'client_metadata')
const bankTransaction: Shape = (o) => dropEmpty(o, 'sender_info', 'receiver_info', 'direction', 'transaction_date')
const same: Shape = (o) => o

/** The shape of `data` (each item's, for lists) by `METHOD path`. Routes not listed only lose their optional envelope fields. */
const SHAPES: Array<[string, PathName, Shape]> = [
  ['POST', 'moveCreate', move],
  ['POST', 'moveApprove', approvedMove],
  ['DELETE', 'moveCancel', move],
  ['POST', 'subaccounts', subaccount],
  ['GET', 'subaccount', subaccount],
  ['GET', 'subaccountActivity', activity],
  ['GET', 'bankTransactions', bankTransaction],
  ['GET', 'bankTransaction', bankTransaction],
  ['GET', 'transfers', transfer],
  ['POST', 'transferCreate', transfer],
  ['POST', 'transferApprove', transfer],
  ['GET', 'payers', party],
  ['GET', 'payees', party],
  ['GET', 'payee', party],
  ['GET', 'payin', payin],
  ['GET', 'treasuryAccounts', same],
]

/** The router's form of a path template (`{id}` -> `:id`), which is what http.ts knows of a route. */
const routeKey = (method: string, template: string) => `${method} ${template.replace(/\{([^}/]+)\}/g, ':$1')}`
const BY_ROUTE = new Map(SHAPES.map(([method, name, shape]) => [routeKey(method, PATHS[name]), shape]))

/** The drifted body of a 2XX answer of `METHOD pattern` (`pattern` as the router names it). */
export function driftBody(method: string, pattern: string, status: number, body: unknown): unknown {
  if (status < 200 || status >= 300 || !isObj(body)) return body
  const shape = BY_ROUTE.get(`${method} ${pattern}`) ?? same
  const out: Obj = {...body}
  if (out.warning === null || out.warning === undefined) delete out.warning
  if (Array.isArray(out.data)) {
    out.data = out.data.map((item) => (isObj(item) ? shape({...item}) : item))
    delete out.total_count
    delete out.previous_cursor
    if (out.has_more !== true) delete out.next_cursor
  } else if (isObj(out.data)) {
    out.data = shape({...out.data})
  }
  return out
}
