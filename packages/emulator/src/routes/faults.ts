/**
 * Control API for transport faults, the drifted answers and the strict mode:
 * - GET  /_emulator/faults   the configuration, how many faults were injected (by kind:phase), `drift`
 * - POST /_emulator/faults   {rate?, kinds?, phases?, seed?, latency_ms?, retry_after?, queue?, methods?, drift?,
 *                             strict?, has_more_without_cursor?, webhook_timestamps?}
 *                            (`drift: true|false` turns the documented drift of every answer on or off, see drift.ts;
 *                            `strict: true|false` the least generous reading of the spec, see strict.ts, with every
 *                            behaviour of spec-only.ts; `has_more_without_cursor` and `webhook_timestamps: "iso"|"unix"`
 *                            those behaviours one by one)
 * - DELETE /_emulator/faults back to no faults, the drift and strictness the emulator started with, and no spec-only behaviour
 */
import type {AppContext} from '../app.js'
import {FaultConfig} from '../faults/transport.js'
import {ok, parseInput} from '../server/handler.js'
import type {Router} from '../server/router.js'

export function register(router: Router, app: AppContext): void {
  const describe = () => {
    const strict = app.strict?.on ?? false
    return {data: app.transport ? {...app.transport.describe(), drift: app.drift?.on ?? false, strict, ...app.specOnly?.describe(strict)} : null}
  }
  router.add('GET', '/_emulator/faults', () => ok(describe()))
  router.add('POST', '/_emulator/faults', (ctx) => {
    const cfg = parseInput(FaultConfig, ctx.body)
    app.transport?.configure(cfg)
    if (cfg.drift !== undefined && app.drift) app.drift.on = cfg.drift
    if (cfg.strict !== undefined && app.strict) app.strict.on = cfg.strict
    if (cfg.has_more_without_cursor !== undefined && app.specOnly) app.specOnly.hasMoreWithoutCursor = cfg.has_more_without_cursor
    if (cfg.webhook_timestamps !== undefined && app.specOnly) app.specOnly.webhookTimestamps = cfg.webhook_timestamps
    return ok(describe())
  })
  router.add('DELETE', '/_emulator/faults', () => {
    app.transport?.reset()
    app.drift?.reset()
    app.strict?.reset()
    app.specOnly?.reset()
    return ok(describe())
  })
}
