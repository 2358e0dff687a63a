/**
 * A loopback server that answers fixed JSON bodies by path (the query ignored; 404 otherwise), for
 * answers the emulator will not give (totals past 2^53, legacy shapes). Started before the file's
 * tests and closed after them.
 */
import {createServer, type Server} from 'node:http'
import type {AddressInfo} from 'node:net'
import {afterAll, beforeAll} from 'vitest'

export function routesServer(routes: Record<string, string>): {readonly url: string} {
  let server: Server
  const state = {url: ''}
  beforeAll(async () => {
    server = createServer((req, res) => {
      req.resume()
      const body = routes[(req.url ?? '').split('?')[0]]
      res.writeHead(body ? 200 : 404, {'content-type': 'application/json'})
      res.end(body ?? '{"error_code":"NOT_FOUND","message":"no such thing"}')
    })
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
    state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  })
  afterAll(async () => {
    server.closeAllConnections()
    await new Promise((r) => server.close(r))
  })
  return state
}
