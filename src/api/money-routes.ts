/**
 * The endpoints that move money, and how a request's path is matched against them as the server
 * resolves it: the full path sent (the base URL's path joined with the request's), dot segments
 * resolved, percent-encoding decoded, repeated and trailing slashes ignored, case-insensitive. The
 * movement pipeline is the only way a request reaches one of them (src/api/client.ts refuses the
 * rest), and `payops api` reads a request that does into a movement (src/movements/raw.ts).
 */
import {UsageError} from '../errors.js'
import {PATHS} from './paths.js'

export type MoneyRouteName = 'move.create' | 'move.approve' | 'move.cancel' | 'transfer.create' | 'transfer.approve' | 'credit.simulate'

export interface MoneyRoute {
  name: MoneyRouteName
  method: string
  /** The path template's segments (`{name}` stands for one segment). */
  pattern: string[]
}

const segs = (template: string) => template.split('/').filter(Boolean)

export const MONEY_ROUTES: readonly MoneyRoute[] = [
  {name: 'move.create', method: 'POST', pattern: segs(PATHS.moveCreate)},
  {name: 'move.approve', method: 'POST', pattern: segs(PATHS.moveApprove)},
  {name: 'move.cancel', method: 'DELETE', pattern: segs(PATHS.moveCancel)},
  {name: 'transfer.create', method: 'POST', pattern: segs(PATHS.transferCreate)},
  {name: 'transfer.approve', method: 'POST', pattern: segs(PATHS.transferApprove)},
  {name: 'credit.simulate', method: 'POST', pattern: segs(PATHS.simulateInboundCredit)},
]

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

/** A segment as a lenient server may read it: case folded, trailing dots and spaces dropped (`move.` is `move`). */
const loose = (s: string) => s.toLowerCase().replace(/[.\s]+$/, '')

function matchAt(pattern: string[], path: string[], strict: boolean): Record<string, string> | undefined {
  if (pattern.length !== path.length) return undefined
  const params: Record<string, string> = {}
  for (let i = 0; i < pattern.length; i++) {
    const m = /^\{(\w+)\}$/.exec(pattern[i])
    if (m) params[m[1]] = path[i]
    else if (strict ? pattern[i].toLowerCase() !== path[i].toLowerCase() : pattern[i] !== loose(path[i])) return undefined
  }
  return params
}

export interface MoneyMatch {
  route: MoneyRoute
  params: Record<string, string>
  /** The segments before the route: a prefix a gateway in front of the service may strip. */
  prefix: string[]
  /** Matched only as a lenient server would read it (a trailing dot): a spelling payops refuses. */
  loose: boolean
}

/**
 * Every money route the path ends with, the longest first: the path itself (a service at the
 * root), or its tail after a prefix (a service behind a gateway that strips one). Also the routes
 * only a lenient reading reaches (`move.`), marked `loose`.
 */
export function moneyRoutesIn(segments: string[]): MoneyMatch[] {
  const out: MoneyMatch[] = []
  for (let k = 0; k < segments.length; k++) {
    const tail = segments.slice(k)
    for (const route of MONEY_ROUTES) {
      const strict = matchAt(route.pattern, tail, true)
      const lenient = strict ?? matchAt(route.pattern, tail, false)
      if (lenient) out.push({route, params: lenient, prefix: segments.slice(0, k), loose: !strict})
    }
  }
  return out
}

/** `POST /api/subaccounts/move` */
export const routeLabel = (r: MoneyRoute) => `${r.method} /${r.pattern.join('/')}`
