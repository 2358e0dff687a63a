/**
 * The one-shot commands' transport: Node's own HTTP client (node:http, node:https) for a request
 * that goes direct with the process's own trust (no proxy; no CA beyond Node's bundled roots and
 * the NODE_EXTRA_CA_CERTS Node read at start-up). Its parser is Node's built-in one, so a command
 * loads nothing for it: Node's fetch is undici, whose code and WebAssembly parser cost a one-shot
 * command more than the rest of its start-up together.
 *
 * Anything else (a proxy, a CA file of the profile or the run) goes through undici
 * (FetchTransport, with its dispatcher), as bulk commands do (PoolTransport). Like both, it never
 * follows a redirect (a 3xx comes back as it is and the client refuses it), asks for the same
 * encodings Node's fetch asks for and undoes them as the body streams, counting the decoded bytes
 * against the cap, and fails with the same stable codes (ECONNREFUSED, ECONNRESET, ETIMEDOUT...).
 */
import type {Agent, IncomingMessage} from 'node:http'
import {PayopsError, ResponseTooLargeError} from '../errors.js'
import {needsDispatcher, type NetworkSettings} from '../net.js'
import {decoded, FetchTransport, readCapped, wireError, type Transport, type WireRequest, type WireResponse} from './transport.js'

type HttpModule = typeof import('node:http')

/** What Node's fetch asks for (and the client always decodes). */
const ACCEPT_ENCODING = 'gzip, deflate'

export class HttpTransport implements Transport {
  /** One keep-alive agent per scheme, made on first use and destroyed by close(). */
  private readonly agents = new Map<string, Agent>()
  /** undici, for a request that needs a proxy or CAs of its own. */
  private other?: FetchTransport

  constructor(private readonly net?: NetworkSettings) {}

  async send(req: WireRequest): Promise<WireResponse> {
    if (this.net && needsDispatcher(req.url, this.net)) return (this.other ??= new FetchTransport(this.net)).send(req)
    const signal = AbortSignal.timeout(req.timeoutMs)
    try {
      return await this.exchange(req, signal)
    } catch (err) {
      if (err instanceof ResponseTooLargeError || err instanceof PayopsError) throw err
      // Past the deadline, however the socket ended: a timeout.
      throw wireError(signal.aborted ? signal.reason : err)
    }
  }

  private async exchange(req: WireRequest, signal: AbortSignal): Promise<WireResponse> {
    const url = new URL(req.url)
    // Not `import()`: Node's ES module face of node:http reads every export, and on Node 22 and
    // later some of them (WebSocket, ...) load undici.
    const http = process.getBuiltinModule(url.protocol === 'https:' ? 'node:https' : 'node:http') as HttpModule
    const agent = this.agentFor(url.protocol, http)
    const headers: Record<string, string> = {'accept-encoding': ACCEPT_ENCODING, ...req.headers}
    if (req.body !== undefined) headers['content-length'] = String(Buffer.byteLength(req.body))
    const res = await new Promise<IncomingMessage>((resolve, reject) => {
      const sent = http.request(url, {method: req.method, headers, agent, signal}, resolve)
      sent.on('error', reject)
      sent.end(req.body)
    })
    const body = decoded(res, res.headers['content-encoding'])
    const text = await readCapped(body, req, () => {
      body.destroy()
      res.destroy()
    })
    const {'content-encoding': _decoded, ...rest} = res.headers
    return {status: res.statusCode ?? 0, headers: rest, text}
  }

  private agentFor(protocol: string, http: HttpModule): Agent {
    let agent = this.agents.get(protocol)
    if (!agent) this.agents.set(protocol, (agent = new http.Agent({keepAlive: true, maxSockets: 8})))
    return agent
  }

  async close(): Promise<void> {
    for (const agent of this.agents.values()) agent.destroy()
    this.agents.clear()
    await this.other?.close()
  }
}
