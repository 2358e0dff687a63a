/**
 * What a route handler sees and returns: the {@link RequestContext} of one request and the
 * {@link Reply} it answers with. The router stores handlers and the server (http.ts) runs them;
 * both read these types from here, so neither imports the other for them.
 */
import type {IncomingHttpHeaders, IncomingMessage} from 'node:http'
import type * as z from 'zod/mini'
import {describeIssues} from '../interface/issues.js'
import {HttpError, validationError} from '../lib/http-error.js'
import type {ApiKeyRecord, Entity} from '../store/index.js'

/** What a handler returns: a status and a JSON body (serialised once, by the server). */
export interface Reply {
  status: number
  body: unknown
  headers?: Record<string, string>
}

export type Handler = (ctx: RequestContext) => Reply | Promise<Reply>

export const ok = (body: unknown): Reply => ({status: 200, body})
export const created = (body: unknown): Reply => ({status: 201, body})

/** Parses `value` with a request schema; a 400 VALIDATION_ERROR naming the fields when it fails. */
export function parseInput<S extends z.ZodMiniType>(schema: S, value: unknown, prefix = ''): z.output<S> {
  const r = schema.safeParse(value)
  if (!r.success) throw validationError(describeIssues(r.error, prefix))
  return r.data
}

export type Query = Record<string, string | string[]>

/** One request as a handler sees it. */
export class RequestContext {
  readonly requestId: string
  readonly method: string
  readonly path: string
  readonly params: Record<string, string>
  readonly req: IncomingMessage
  /** The parsed JSON object body of POST/PUT/PATCH (`{}` when empty); undefined otherwise. */
  body: unknown = undefined
  /** The API key record of an authenticated `/api/` request. */
  apiKey?: ApiKeyRecord
  private caller?: Entity
  private readonly rawQuery: string
  private parsedQuery?: Query

  constructor(init: {requestId: string; method: string; path: string; rawQuery: string; params: Record<string, string>; req: IncomingMessage}) {
    this.requestId = init.requestId
    this.method = init.method
    this.path = init.path
    this.rawQuery = init.rawQuery
    this.params = init.params
    this.req = init.req
  }

  get headers(): IncomingHttpHeaders {
    return this.req.headers
  }

  /** A request header by lower-case name (first value when repeated). */
  header(name: string): string | undefined {
    const v = this.req.headers[name]
    return Array.isArray(v) ? v[0] : v
  }

  /** Query parameters; a repeated parameter is an array of its values. */
  get query(): Query {
    if (!this.parsedQuery) {
      const out: Query = Object.create(null) as Query
      if (this.rawQuery) {
        for (const [k, v] of new URLSearchParams(this.rawQuery)) {
          const prev = out[k]
          out[k] = prev === undefined ? v : Array.isArray(prev) ? [...prev, v] : [prev, v]
        }
      }
      this.parsedQuery = out
    }
    return this.parsedQuery
  }

  /** The caller's entity (every `/api/` route is authenticated before its handler runs). */
  get entity(): Entity {
    if (!this.caller) throw new HttpError(401, 'AUTHENTICATION_ERROR', 'missing x-api-key header')
    return this.caller
  }

  setCaller(key: ApiKeyRecord, entity: Entity): void {
    this.apiKey = key
    this.caller = entity
  }
}
