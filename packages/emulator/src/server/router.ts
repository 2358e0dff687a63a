/**
 * A small path router. Patterns are the API's path templates (interface/paths.ts): `{name}` for one
 * path segment, the spec's syntax. They are read here,
 * in {@link normalizePattern}, the one place that converts them (to `:name`, which is also accepted).
 * The most specific pattern that matches a path decides: static segments win over parameters,
 * left to right, so `/api/subaccounts/move` beats `/api/subaccounts/:subaccount_id`. If that
 * pattern lacks the request's method the answer is 405 with the methods it has.
 */
import type {Handler} from './handler.js'

export const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const
export type Method = (typeof METHODS)[number]

interface Route {
  pattern: string
  segments: string[]
  /** Parameter name per segment, undefined for a static segment. */
  params: Array<string | undefined>
  /** Sorts more specific patterns first: one char per segment, '0' static, '1' parameter. */
  rank: string
  handlers: Map<string, Handler>
}

export type RouteMatch =
  | {kind: 'found'; handler: Handler; params: Record<string, string>; pattern: string}
  | {kind: 'method_not_allowed'; allow: string[]; pattern: string}
  | {kind: 'not_found'}

const NO_PARAMS: Record<string, string> = Object.freeze({}) as Record<string, string>

export class Router {
  private readonly routes = new Map<string, Route>()
  private readonly staticRoutes = new Map<string, Route>()
  /** Parameterised routes by segment count, most specific first. */
  private readonly dynamicRoutes = new Map<number, Route[]>()

  add(method: Method, pattern: string, handler: Handler): this {
    const normal = normalizePattern(pattern)
    let route = this.routes.get(normal)
    if (!route) {
      const segments = normal.split('/').slice(1)
      const params = segments.map((s) => (s.startsWith(':') ? s.slice(1) : undefined))
      if (params.some((p) => p === '')) throw new Error(`route ${pattern}: empty parameter name`)
      route = {pattern: normal, segments, params, rank: params.map((p) => (p === undefined ? '0' : '1')).join(''), handlers: new Map()}
      this.routes.set(normal, route)
      if (params.every((p) => p === undefined)) {
        this.staticRoutes.set(normal, route)
      } else {
        const list = this.dynamicRoutes.get(segments.length) ?? []
        list.push(route)
        list.sort((a, b) => (a.rank < b.rank ? -1 : a.rank > b.rank ? 1 : 0))
        this.dynamicRoutes.set(segments.length, list)
      }
    }
    if (route.handlers.has(method)) throw new Error(`route ${method} ${pattern} is registered twice`)
    route.handlers.set(method, handler)
    return this
  }

  /** Resolves a path (no query string; trailing slash ignored). HEAD is served by GET. */
  match(method: string, rawPath: string): RouteMatch {
    const path = rawPath.length > 1 && rawPath.endsWith('/') ? rawPath.replace(/\/+$/, '') || '/' : rawPath
    const m = method === 'HEAD' ? 'GET' : method
    const st = this.staticRoutes.get(path)
    if (st) return resolve(st, m, NO_PARAMS)
    const candidates = this.dynamicRoutes.get(countSegments(path))
    if (!candidates) return {kind: 'not_found'}
    const parts = path.split('/')
    for (const route of candidates) {
      const params = matchRoute(route, parts)
      if (params) return resolve(route, m, params)
    }
    return {kind: 'not_found'}
  }

  /** Every registered `METHOD pattern`, for diagnostics and tests. */
  list(): string[] {
    const out: string[] = []
    for (const r of this.routes.values()) for (const m of r.handlers.keys()) out.push(`${m} ${r.pattern}`)
    return out
  }
}

function resolve(route: Route, method: string, params: Record<string, string>): RouteMatch {
  const handler = route.handlers.get(method)
  if (handler) return {kind: 'found', handler, params, pattern: route.pattern}
  return {kind: 'method_not_allowed', allow: [...route.handlers.keys()], pattern: route.pattern}
}

function matchRoute(route: Route, parts: string[]): Record<string, string> | undefined {
  let params: Record<string, string> | undefined
  for (let i = 0; i < route.segments.length; i++) {
    const seg = parts[i + 1]
    const name = route.params[i]
    if (name === undefined) {
      if (seg !== route.segments[i]) return undefined
    } else {
      if (seg === '') return undefined
      let value: string
      try {
        value = decodeURIComponent(seg)
      } catch {
        return undefined
      }
      ;(params ??= {})[name] = value
    }
  }
  return params ?? NO_PARAMS
}

function countSegments(path: string): number {
  let n = 0
  for (let i = 0; i < path.length; i++) if (path.charCodeAt(i) === 47) n++
  return n
}

/** `/a/{id}` -> `/a/:id`, without a trailing slash. */
function normalizePattern(pattern: string): string {
  if (!pattern.startsWith('/')) throw new Error(`route pattern must start with "/": ${pattern}`)
  const p = pattern.replace(/\{([^}/]+)\}/g, ':$1')
  return p.length > 1 ? p.replace(/\/+$/, '') : p
}
