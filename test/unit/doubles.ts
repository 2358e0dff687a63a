/**
 * Typed building blocks for API doubles: responses shaped as the client returns them, and a fake
 * origin (a transport) for tests that drive the real ApiClient (and the areas over it) without a server.
 */
import type {ApiResponse} from '../../src/api/client.js'
import type {Transport} from '../../src/api/transport.js'

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

/**
 * A fake origin for the real ApiClient (and the API areas over it), in place of the network: the
 * transport the client sends its wire requests through (as gh's httpmock replaces the HTTP
 * transport), answering each from `answer`. Give both to the client:
 * `new ApiClient({baseUrl, transport})`. Nothing reaches the network.
 */
export function fakeOrigin(answer: Answerer): {baseUrl: string; transport: Transport} {
  const baseUrl = 'http://127.0.0.1:47001'
  const transport: Transport = {
    async send(req) {
      const url = new URL(req.url)
      const a = await answer({method: req.method, path: url.pathname, query: url.searchParams, body: req.body === undefined ? undefined : JSON.parse(req.body)})
      return {status: a.status, headers: {'content-type': 'application/json', ...a.headers}, text: a.body === undefined ? '' : JSON.stringify(a.body)}
    },
    close: async () => undefined,
  }
  return {baseUrl, transport}
}
