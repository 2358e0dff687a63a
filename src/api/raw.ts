/** The raw `api` command's request building and sending: fields, typed fields, headers, pages. */
import {UsageError} from '../errors.js'
import type {ApiClient, QueryValue} from './client.js'
import {paginate} from './paginate.js'
import * as z from 'zod/mini'

export const RAW_METHODS = ['GET', 'POST', 'PATCH', 'PUT', 'DELETE'] as const
export type RawMethod = (typeof RAW_METHODS)[number]

export interface RawRequest {
  method: RawMethod
  path: string
  query?: Record<string, QueryValue>
  body?: unknown
  rawBody?: string
  headers: Record<string, string>
}

export interface RawInput {
  method: RawMethod
  path: string
  fields?: string[]
  typedFields?: string[]
  input?: string
  headers?: string[]
  readFile: (file: string) => string
}

function splitPair(pair: string, flag: string): [string, string] {
  const i = pair.indexOf('=')
  if (i <= 0) throw new UsageError(`${flag} "${pair}" must be key=value.`)
  return [pair.slice(0, i), pair.slice(i + 1)]
}

/** gh-style typed value: true/false/null, integers and decimals, @file contents; else a string. */
export function typedValue(v: string, readFile: (f: string) => string): unknown {
  if (v === 'true') return true
  if (v === 'false') return false
  if (v === 'null') return null
  if (/^-?\d+$/.test(v)) {
    const n = Number(v)
    if (!Number.isSafeInteger(n)) throw new UsageError(`Number ${v} is too large to send exactly.`)
    return n
  }
  if (/^-?\d+\.\d+$/.test(v)) return Number(v)
  if (v.startsWith('@')) return readFile(v.slice(1) === '-' ? '/dev/stdin' : v.slice(1))
  return v
}

/** Sets `a[b][c]` or `a.b` style nested keys. */
function assign(target: Record<string, unknown>, key: string, value: unknown): void {
  const parts = key.replace(/\]/g, '').split(/[[.]/).filter(Boolean)
  if (parts.includes('__proto__')) throw new UsageError(`Field name "${key}" is not allowed.`)
  let cur = target
  parts.slice(0, -1).forEach((p) => {
    if (typeof cur[p] !== 'object' || cur[p] === null) cur[p] = {}
    cur = cur[p] as Record<string, unknown>
  })
  const last = parts[parts.length - 1]
  if (last === undefined) throw new UsageError(`Field name "${key}" is empty.`)
  cur[last] = value
}

/**
 * A request that changes something goes only to a path in canonical form: segments of unreserved
 * characters, no `;params`, no percent-encoding, no `.` or `..`, no empty segment, no segment
 * ending in a dot. A server that strips `;x`, decodes `%2F` or drops a trailing dot (`move.`)
 * would otherwise route `…/move;x` to the move endpoint while payops' money guard
 * saw another path. `payops api` checks the full path sent: the base URL's path joined with PATH.
 */
export function refuseOddPath(method: string, path: string): void {
  const segments = path.split('/').slice(1)
  const odd = segments.find((s) => s === '' || s.endsWith('.') || !/^[A-Za-z0-9._~-]+$/.test(s))
  if (odd !== undefined && !(odd === '' && segments.length === 1)) {
    throw new UsageError(`${method} ${JSON.stringify(path)}: a request that changes something needs a path in canonical form (letters, digits and - . _ ~ between single slashes; no ;params, %-encoding, dot or empty segments, no segment ending in a dot).`)
  }
}

export function buildRawRequest(input: RawInput): RawRequest {
  const {method} = input
  let path = input.path
  if (/^[a-z]+:\/\//i.test(path)) throw new UsageError('Give a path (e.g. /api/subaccounts/ID), not a full URL: the key is only sent to the configured base URL.')
  if (!path.startsWith('/')) path = `/${path}`
  let query: Record<string, QueryValue> | undefined
  const qIndex = path.indexOf('?')
  if (qIndex >= 0) {
    query = {}
    for (const [k, v] of new URLSearchParams(path.slice(qIndex + 1))) {
      const prev = query[k]
      query[k] = prev === undefined ? v : Array.isArray(prev) ? [...prev, v] : [String(prev), v]
    }
    path = path.slice(0, qIndex)
  }
  if (method !== 'GET') refuseOddPath(method, path)
  const headers: Record<string, string> = {}
  for (const h of input.headers ?? []) {
    const i = h.indexOf(':')
    if (i <= 0) throw new UsageError(`-H "${h}" must be "Name: value".`)
    const name = h.slice(0, i).trim()
    if (name.toLowerCase() === 'x-api-key') throw new UsageError('Set the key with a profile, PAYOPS_API_KEY or --api-key, not -H.')
    // A server that honours a method override would act on a method payops did not judge.
    if (/^x-(http-)?method(-override)?$/i.test(name)) throw new UsageError(`-H ${name}: payops sends the method it is given (METHOD); a method override is not sent.`)
    headers[name] = h.slice(i + 1).trim()
  }
  const fields: Record<string, unknown> = {}
  let hasFields = false
  for (const pair of input.fields ?? []) {
    const [k, v] = splitPair(pair, '-f')
    assign(fields, k, v)
    hasFields = true
  }
  for (const pair of input.typedFields ?? []) {
    const [k, v] = splitPair(pair, '-F')
    assign(fields, k, typedValue(v, input.readFile))
    hasFields = true
  }
  const req: RawRequest = {method, path, headers, query}
  if (method === 'GET' || method === 'DELETE') {
    if (input.input !== undefined) throw new UsageError(`--input is not sent with ${method}; use -f for query parameters.`)
    if (hasFields) {
      req.query = {...query}
      for (const [k, v] of Object.entries(fields)) {
        req.query[k] = typeof v === 'object' && v !== null ? JSON.stringify(v) : (v as QueryValue)
      }
    }
    return req
  }
  if (input.input !== undefined) {
    try {
      JSON.parse(input.input)
    } catch {
      throw new UsageError('--input is not valid JSON.')
    }
    req.rawBody = input.input
  } else req.body = fields
  return req
}

export class RawApi {
  constructor(private readonly client: ApiClient) {}

  send(req: RawRequest) {
    return this.client.request({method: req.method, path: req.path, query: req.query, body: req.body, rawBody: req.rawBody, headers: req.headers, bare: true})
  }

  paginate(req: RawRequest) {
    const item = z.looseObject({})
    return paginate<Record<string, unknown>>((cursor) => this.client.page(req.path, {...req.query, ...(cursor ? {cursor} : {})}, item), {all: true})
  }
}
