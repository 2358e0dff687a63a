/**
 * URLs of requests: path segments encoded one by one, path templates filled, queries built, and a
 * base URL's path (a query or fragment in it refused).
 */
import {UsageError} from '../errors.js'
import {redact, registerUrlSecrets} from './redact.js'

export type QueryValue = string | number | boolean | undefined | null | Array<string | number>

/** Encodes each interpolated value as one path segment: p`/things/${id}`. */
export function p(strings: TemplateStringsArray, ...values: Array<string | number>): string {
  let out = strings[0]
  values.forEach((v, i) => {
    const s = String(v)
    if (s === '') throw new UsageError('An id argument is empty.')
    if (s === '.' || s === '..') throw new UsageError(`"${s}" is not a valid id.`)
    out += encodeURIComponent(s) + strings[i + 1]
  })
  return out
}

/** Fills `{name}` placeholders of a path template (the assumed paths) as encoded segments. */
export function fillPath(template: string, params: Record<string, string>): string {
  return template.replace(/\{(\w+)\}/g, (_, name: string) => {
    const v = params[name]
    if (v === undefined) throw new Error(`path parameter ${name} missing for ${template}`)
    return p`${v}`
  })
}

export function buildQuery(query: Record<string, QueryValue> | undefined): string {
  if (!query) return ''
  const params = new URLSearchParams()
  for (const [k, v] of Object.entries(query)) {
    if (v === undefined || v === null) continue
    if (Array.isArray(v)) for (const item of v) params.append(k, String(item))
    else params.append(k, String(v))
  }
  const s = params.toString()
  return s ? `?${s}` : ''
}

/** A query or fragment in the base URL would swallow every request's path (`…/move?` + `/x` is a POST to /move). */
export function refuseQueryOrFragment(url: URL, given: string): void {
  if (url.search || url.hash || /[?#]/.test(given)) throw new UsageError(`Base URL "${redact(given)}" has a query or fragment: give SCHEME://HOST[:PORT][/PATH].`)
}

/** The path of a base URL as requests are appended to it (`''` for none or `/`); a query or fragment is refused. */
export function baseUrlPath(baseUrl: string): string {
  let url: URL
  try {
    url = new URL(baseUrl)
  } catch {
    throw new UsageError(`Base URL "${redact(baseUrl)}" is not a valid URL.`)
  }
  registerUrlSecrets(url)
  refuseQueryOrFragment(url, baseUrl)
  return url.pathname.replace(/\/+$/, '')
}
