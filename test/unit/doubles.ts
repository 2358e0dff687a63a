/**
 * Typed building blocks for API doubles: responses shaped as the client returns them, and a fake
 * `fetch` for tests that drive the real ApiClient (and the areas over it) without a server.
 */
import {afterEach} from 'vitest'
import type {ApiResponse} from '../../src/api/client.js'

/** A response as `ApiClient.request` resolves it: `data` parsed, the envelope in `body`, one attempt. */
export function response<T>(status: number, data: T, extra: Partial<ApiResponse<T>> = {}): ApiResponse<T> {
  return {status, data, body: {data}, headers: {}, attempts: 1, earlierAttemptUncertain: false, sentAt: Date.now(), ...extra}
}

/** A request as a fake origin receives it. */
export interface FetchedRequest {
  method: string
  /** The URL's path, without the query. */
  path: string
  query: URLSearchParams
  /** The JSON body sent, parsed (undefined when none). */
  body: unknown
}

/** What a fake origin answers: a status and a JSON body (none when undefined). */
export interface FetchAnswer {
  status: number
  body?: unknown
  headers?: Record<string, string>
}

type Answerer = (req: FetchedRequest) => FetchAnswer | Promise<FetchAnswer>

const origins = new Map<string, Answerer>()
let nextPort = 47_001
const realFetch = globalThis.fetch

/** The global `fetch` while fake origins exist: theirs are answered here, anything else goes out. */
const fakeFetch: typeof fetch = async (input, init) => {
  const url = new URL(input instanceof Request ? input.url : String(input))
  const answer = origins.get(url.origin)
  if (!answer) return realFetch(input, init)
  const text = typeof init?.body === 'string' ? init.body : undefined
  const a = await answer({method: init?.method ?? 'GET', path: url.pathname, query: url.searchParams, body: text === undefined ? undefined : JSON.parse(text)})
  return new Response(a.body === undefined ? null : JSON.stringify(a.body), {status: a.status, headers: {'content-type': 'application/json', ...a.headers}})
}

/**
 * A base URL (a loopback address nothing listens on) whose requests `answer` serves, for the
 * real ApiClient and the API areas over it: the global `fetch`, which the client's default
 * transport calls, is replaced until the end of the test. Nothing reaches the network.
 */
export function fakeOrigin(answer: Answerer): string {
  const base = `http://127.0.0.1:${nextPort++}`
  origins.set(new URL(base).origin, answer)
  globalThis.fetch = fakeFetch
  return base
}

afterEach(() => {
  if (origins.size === 0) return
  origins.clear()
  globalThis.fetch = realFetch
})
