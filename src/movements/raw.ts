/**
 * `payops api METHOD PATH` on an endpoint that moves money is not raw: the request is read into a
 * movement request and sent through the pipeline, with the same limits, confirmation,
 * Idempotency-Key and audit as the dedicated commands. The path is compared as the server would
 * see it (dot segments resolved, percent-encoding decoded, repeated and trailing slashes ignored,
 * case-insensitive), so spelling it differently cannot slip past the guard.
 */
import type * as z from 'zod/mini'
import {UsageError} from '../errors.js'
import {describeIssues} from '../api/schemas/common.js'
import {MoveCreateRequest} from '../api/schemas/moves.js'
import {TransferCreateRequest} from '../api/schemas/transfers.js'
import {SimulateCreditRequest} from '../api/schemas/treasury.js'
import {PATHS} from '../api/assumptions.js'
import type {RawRequest} from '../api/raw.js'
import type {MovementRequest} from './types.js'

/** The segments of a path as a server resolves them. */
export function canonicalSegments(path: string): string[] {
  let pathname: string
  try {
    // As the client sends it: appended to the base URL (so `//x` is a path, not a host).
    pathname = new URL(`http://payops.invalid${path.startsWith('/') ? '' : '/'}${path}`).pathname
  } catch {
    throw new UsageError(`Path "${path}" is not a valid path.`)
  }
  return pathname
    .split('/')
    .filter(Boolean)
    .map((s) => {
      try {
        return decodeURIComponent(s)
      } catch {
        throw new UsageError(`Path "${path}" has an invalid percent-encoding.`)
      }
    })
}

type Route = {method: string; pattern: string[]; make: (params: Record<string, string>, body: unknown, key: string | undefined) => MovementRequest}

const segs = (template: string) => template.split('/').filter(Boolean)

function parseBody<S extends z.ZodMiniType>(schema: S, body: unknown, what: string): z.output<S> {
  const r = schema.safeParse(body ?? {})
  if (!r.success) throw new UsageError(`This request moves money, so payops checks it first: the body is not a valid ${what} (${describeIssues(r.error)}). Nothing was sent.`)
  return r.data
}

const ROUTES: Route[] = [
  {
    method: 'POST',
    pattern: segs('/api/subaccounts/move'),
    make: (_, body, key) => {
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
  },
  {method: 'POST', pattern: segs('/api/subaccounts/move/{move_id}/approve'), make: (p) => ({kind: 'move.approve', id: p.move_id})},
  {method: 'DELETE', pattern: segs(PATHS.moveCancel), make: (p) => ({kind: 'move.cancel', id: p.move_id})},
  {
    method: 'POST',
    pattern: segs(PATHS.transferCreate),
    make: (_, body, key) => {
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
  },
  {method: 'POST', pattern: segs('/api/treasury/account-transfers/{account_transfer_id}/approve'), make: (p) => ({kind: 'transfer.approve', id: p.account_transfer_id})},
  {
    method: 'POST',
    pattern: segs('/api/treasury/accounts/{account_id}/simulate-inbound-credit'),
    make: (p, body, key) => {
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
  },
]

function match(pattern: string[], path: string[]): Record<string, string> | undefined {
  if (pattern.length !== path.length) return undefined
  const params: Record<string, string> = {}
  for (let i = 0; i < pattern.length; i++) {
    const m = /^\{(\w+)\}$/.exec(pattern[i])
    if (m) params[m[1]] = path[i]
    else if (pattern[i].toLowerCase() !== path[i].toLowerCase()) return undefined
  }
  return params
}

/**
 * The movement a raw request names, or undefined when it moves no money. A body that cannot be
 * read as the movement, or a query string on it, is refused: what is checked must be what is sent.
 */
export function movementOfRaw(req: RawRequest): MovementRequest | undefined {
  if (req.method === 'GET') return undefined
  const path = canonicalSegments(req.path)
  for (const route of ROUTES) {
    const params = match(route.pattern, path)
    if (!params) continue
    if (route.method !== req.method) {
      // Another method on a money path: not an operation the spec documents.
      throw new UsageError(`${req.method} ${req.path} is not an operation of the API; money moves only through the documented ${route.method}. Nothing was sent.`)
    }
    if (req.query && Object.keys(req.query).length) throw new UsageError(`${req.method} ${req.path}: query parameters are not sent with a money request. Nothing was sent.`)
    let body = req.body
    if (req.rawBody !== undefined) body = JSON.parse(req.rawBody)
    if (body !== undefined && (typeof body !== 'object' || body === null || Array.isArray(body))) throw new UsageError('This request moves money: its body must be a JSON object. Nothing was sent.')
    const key = Object.entries(req.headers).find(([k]) => k.toLowerCase() === 'idempotency-key')?.[1]
    if (key !== undefined && key.trim() === '') throw new UsageError('-H "Idempotency-Key:" is empty.')
    const other = Object.keys(req.headers).filter((k) => k.toLowerCase() !== 'idempotency-key')
    if (other.length) throw new UsageError(`This request moves money: payops sends it with its own headers; -H ${other[0]} is not allowed here. Nothing was sent.`)
    return route.make(params, body, key?.trim())
  }
  return undefined
}
