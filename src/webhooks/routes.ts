/**
 * Routing of verified events to handlers: `--forward TYPE=URL` (repeatable), where TYPE is an
 * event type or a pattern with `*` standing for one dot-separated part (`payin.*`, `*.failed`, or
 * `*` for any type), beside `--forward-to URL` for the events no route matches.
 *
 * An event goes to every route whose pattern matches its type (once per URL, counted on the first
 * route that names the URL); an event that no route matches goes to `--forward-to` when it is given.
 */
import {WEBHOOK_EVENT_TYPES} from '../api/schemas/events.js'
import {UsageError} from '../errors.js'
import {parseTargetUrl} from './options.js'

export interface ForwardRoute {
  /** The pattern as given (`payin.*`), or null for the `--forward-to` route (everything else). */
  pattern: string | null
  url: string
}

const PART = /^(?:\*|[a-z0-9_-]+)$/

/** True when `type` matches `pattern`: `*` matches one dot-separated part, and `*` alone any type. */
export function matchesPattern(pattern: string, type: string): boolean {
  if (pattern === '*') return true
  const p = pattern.split('.')
  const t = type.split('.')
  return p.length === t.length && p.every((part, i) => part === '*' || part === t[i])
}

/** Checks a route pattern's form (usage error, exit 2): parts of lower-case letters, digits, `_`, `-`, or `*`. */
export function checkPattern(pattern: string, flag = '--forward'): string {
  if (pattern === '' || !pattern.split('.').every((part) => PART.test(part))) {
    throw new UsageError(`${flag} "${pattern}": a route is TYPE=URL where TYPE is an event type or a pattern such as payin.* (parts of a-z, 0-9, _ and -, or *).`)
  }
  return pattern
}

/** `TYPE=URL` values of `--forward`, in the order given; a malformed one is a usage error. */
export function parseRoutes(values: readonly string[] | undefined): ForwardRoute[] {
  const routes: ForwardRoute[] = []
  for (const value of values ?? []) {
    const eq = value.indexOf('=')
    if (eq <= 0 || eq === value.length - 1) throw new UsageError(`--forward "${value}": give TYPE=URL, e.g. --forward 'payin.*=http://localhost:3000/payins'.`)
    const pattern = checkPattern(value.slice(0, eq).trim())
    const url = parseTargetUrl(value.slice(eq + 1).trim(), `--forward ${pattern}=`)
    if (routes.some((r) => r.pattern === pattern && r.url === url)) continue
    routes.push({pattern, url})
  }
  return routes
}

/** The known event types a pattern matches (none: the pattern is likely a typo, and is warned about). */
export function knownTypesMatching(pattern: string, known: readonly string[] = WEBHOOK_EVENT_TYPES): string[] {
  return known.filter((t) => matchesPattern(pattern, t))
}

/** One line per route whose pattern matches no known event type (it may be a type the catalog does not list yet). */
export function routeWarnings(routes: readonly ForwardRoute[], known: readonly string[] = WEBHOOK_EVENT_TYPES): string[] {
  return routes
    .filter((r) => r.pattern !== null && knownTypesMatching(r.pattern, known).length === 0)
    .map((r) => `--forward ${r.pattern}=${r.url}: the pattern matches no known event type (${known.join(', ')}); events of a type it names will still be routed if they come.`)
}

/**
 * The routes an event of `type` goes to: every `--forward` route that matches (the first route per
 * URL), or the `--forward-to` route when none does. Routes are given by index into `routes`.
 */
export function routesFor(type: string, routes: readonly ForwardRoute[]): number[] {
  const picked: number[] = []
  const urls = new Set<string>()
  routes.forEach((r, i) => {
    if (r.pattern !== null && matchesPattern(r.pattern, type) && !urls.has(r.url)) {
      urls.add(r.url)
      picked.push(i)
    }
  })
  if (picked.length > 0) return picked
  const fallback = routes.findIndex((r) => r.pattern === null)
  return fallback === -1 ? [] : [fallback]
}

/** How a route is named in logs and the summary: `payin.* -> URL`, or `else -> URL` for --forward-to. */
export function routeLabel(r: ForwardRoute): string {
  return `${r.pattern ?? 'else'} -> ${r.url}`
}
