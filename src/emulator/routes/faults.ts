/**
 * Control API for transport faults:
 * - GET  /_emulator/faults   the configuration and how many faults were injected, by kind:phase
 * - POST /_emulator/faults   {rate?, kinds?, phases?, seed?, latency_ms?, retry_after?, queue?, methods?}
 * - DELETE /_emulator/faults back to no faults
 */
import type {AppContext} from '../context.js'
import {FaultConfig} from '../faults.js'
import {ok, parseInput} from '../handler.js'
import type {Router} from '../router.js'

export function register(router: Router, app: AppContext): void {
  router.add('GET', '/_emulator/faults', () => ok({data: app.transport?.describe() ?? null}))
  router.add('POST', '/_emulator/faults', (ctx) => {
    app.transport?.configure(parseInput(FaultConfig, ctx.body))
    return ok({data: app.transport?.describe() ?? null})
  })
  router.add('DELETE', '/_emulator/faults', () => {
    app.transport?.reset()
    return ok({data: app.transport?.describe() ?? null})
  })
}
