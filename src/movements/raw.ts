/**
 * `payops api METHOD PATH` on an endpoint that moves money is not raw: the request is read into a
 * movement request and sent through the pipeline, with the same limits, confirmation,
 * Idempotency-Key and audit as the dedicated commands. The path judged is the one sent: the base
 * URL's path joined with PATH, compared as the server would see it (src/api/money-routes.ts), so
 * neither spelling it differently nor moving part of it into the base URL slips past the guard.
 */
import type * as z from 'zod/mini'
import {UsageError} from '../errors.js'
import {describeIssues} from '../api/schemas/common.js'
import {MoveCreateRequest} from '../api/schemas/moves.js'
import {TransferCreateRequest} from '../api/schemas/transfers.js'
import {SimulateCreditRequest} from '../api/schemas/treasury.js'
import {canonicalSegments, moneyRoutesIn, routeLabel, type MoneyMatch, type MoneyRouteName} from '../api/money-routes.js'
import {refuseOddPath, type RawRequest} from '../api/raw.js'
import {baseUrlPath} from '../api/client.js'
import type {MovementRequest} from './types.js'

export {canonicalSegments}

type Make = (params: Record<string, string>, body: unknown, key: string | undefined) => MovementRequest

function parseBody<S extends z.ZodMiniType>(schema: S, body: unknown, what: string): z.output<S> {
  const r = schema.safeParse(body ?? {})
  if (!r.success) throw new UsageError(`This request moves money, so payops checks it first: the body is not a valid ${what} (${describeIssues(r.error)}). Nothing was sent.`)
  return r.data
}

const MAKE: Record<MoneyRouteName, Make> = {
  'move.create': (_, body, key) => {
    const b = parseBody(MoveCreateRequest, body, 'move')
    const currency = (body as {currency_code?: unknown}).currency_code
    return {
      kind: 'move.create',
      from: b.from_subaccount_id,
      to: b.to_subaccount_id,
      amount: {minor: (b.amount_in_minor_units ?? b.amount_in_cents)!},
      currency: typeof currency === 'string' ? currency : undefined,
      autoApprove: b.auto_approve !== false,
      metadata: b.client_metadata,
      idempotencyKey: key,
    }
  },
  'move.approve': (p) => ({kind: 'move.approve', id: p.move_id}),
  'move.cancel': (p) => ({kind: 'move.cancel', id: p.move_id}),
  'transfer.create': (_, body, key) => {
    const b = parseBody(TransferCreateRequest, body, 'account transfer')
    return {
      kind: 'transfer.create',
      from: b.from_account_id,
      to: b.to_account_id,
      amount: {minor: b.amount_in_minor_units},
      currency: b.currency_code,
      rail: b.rail,
      autoApprove: b.auto_approve !== false,
      scheduledDate: b.scheduled_date ?? undefined,
      metadata: b.client_metadata,
      idempotencyKey: key,
    }
  },
  'transfer.approve': (p) => ({kind: 'transfer.approve', id: p.account_transfer_id}),
  'credit.simulate': (p, body, key) => {
    const b = parseBody(SimulateCreditRequest, body, 'simulated credit')
    return {
      kind: 'credit.simulate',
      account: p.account_id,
      rail: b.rail,
      amount: {minor: b.amount_in_minor_units},
      subaccount: b.subaccount_id ?? undefined,
      senderInfo: b.sender_info ?? undefined,
      transactionDate: b.transaction_date ?? undefined,
      idempotencyKey: key,
    }
  },
}

/** A movement `payops api` was asked for, and the path under the origin its request is sent below. */
export interface RawMovement {
  request: MovementRequest
  /** The path before the route (`''` for a service at the root): the URL sent is the one asked for. */
  root: string
}

/** The path of the base URL (`''` for none or `/`): what the server sees before PATH. */
const basePathOf = (baseUrl: string | undefined) => (baseUrl ? baseUrlPath(baseUrl) : '')

/** The one money route the full path reaches, or undefined; refused when the spelling is lenient or the reading ambiguous. */
function reachedRoute(method: string, full: string): MoneyMatch | undefined {
  const matches = moneyRoutesIn(canonicalSegments(full))
  if (matches.length === 0) return undefined
  const lenient = matches.find((m) => m.loose)
  if (lenient) throw new UsageError(`${method} ${full}: a lenient server reads this path as ${routeLabel(lenient.route)}, an endpoint that moves money; spell it exactly. Nothing was sent.`)
  if (matches.length > 1) throw new UsageError(`${method} ${full} can be read as ${matches.map((m) => routeLabel(m.route)).join(' or as ')}, endpoints that move money; payops cannot tell which the server takes. Nothing was sent.`)
  return matches[0]
}

/**
 * The movement a raw request names, or undefined when it moves no money. The path judged is the
 * one sent: `baseUrl`'s path joined with the request's (`…/api/subaccounts` + `/move` is a move).
 * A body that cannot be read as the movement, or a query string on it, is refused: what is
 * checked must be what is sent.
 */
export function movementOfRaw(req: RawRequest, baseUrl?: string): RawMovement | undefined {
  if (req.method === 'GET') return undefined
  const base = basePathOf(baseUrl)
  const full = base + req.path
  const m = reachedRoute(req.method, full)
  if (!m) return undefined
  // The base URL's path is part of what the server routes: it too must be spelt canonically (PATH already is).
  if (base) refuseOddPath(req.method, base)
  if (m.route.method !== req.method) {
    // Another method on a money path: not an operation the spec documents.
    throw new UsageError(`${req.method} ${full} is not an operation of the API; money moves only through the documented ${m.route.method}. Nothing was sent.`)
  }
  if (req.query && Object.keys(req.query).length) throw new UsageError(`${req.method} ${full}: query parameters are not sent with a money request. Nothing was sent.`)
  let body = req.body
  if (req.rawBody !== undefined) body = JSON.parse(req.rawBody)
  if (body !== undefined && (typeof body !== 'object' || body === null || Array.isArray(body))) throw new UsageError('This request moves money: its body must be a JSON object. Nothing was sent.')
  const key = Object.entries(req.headers).find(([k]) => k.toLowerCase() === 'idempotency-key')?.[1]
  if (key !== undefined && key.trim() === '') throw new UsageError('-H "Idempotency-Key:" is empty.')
  const other = Object.keys(req.headers).filter((k) => k.toLowerCase() !== 'idempotency-key')
  if (other.length) throw new UsageError(`This request moves money: payops sends it with its own headers; -H ${other[0]} is not allowed here. Nothing was sent.`)
  return {request: MAKE[m.route.name](m.params, body, key?.trim()), root: m.prefix.length ? `/${m.prefix.join('/')}` : ''}
}
