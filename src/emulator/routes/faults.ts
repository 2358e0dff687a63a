/**
 * Control API for transport faults and the drifted answers:
 * - GET  /_emulator/faults   the configuration, how many faults were injected (by kind:phase), `drift`
 * - POST /_emulator/faults   {rate?, kinds?, phases?, seed?, latency_ms?, retry_after?, queue?, methods?, drift?,
 *                             strict?, has_more_without_cursor?, webhook_timestamps?}
 *                            (`drift: true|false` turns the documented drift of every answer on or off, see drift.ts;
 *                            `has_more_without_cursor` and `webhook_timestamps: "iso"|"unix"` the spec-only behaviours
 *                            of spec-only.ts, all of which `strict: true` turns on)
 * - DELETE /_emulator/faults back to no faults, the drift the emulator started with, and no spec-only behaviour
 */
import type {AppContext} from '../context.js'
import {FaultConfig} from '../faults.js'
import {ok, parseInput} from '../handler.js'
import type {Router} from '../router.js'

export function register(router: Router, app: AppContext): void {
  const describe = () => ({
    data: app.transport ? {...app.transport.describe(), drift: app.drift?.on ?? false, strict: app.strict ?? false, ...app.specOnly?.describe(app.strict ?? false)} : null,
  })
  router.add('GET', '/_emulator/faults', () => ok(describe()))
  router.add('POST', '/_emulator/faults', (ctx) => {
    const cfg = parseInput(FaultConfig, ctx.body)
    app.transport?.configure(cfg)
    if (cfg.drift !== undefined && app.drift) app.drift.on = cfg.drift
    if (cfg.strict !== undefined) app.strict = cfg.strict
    if (cfg.has_more_without_cursor !== undefined && app.specOnly) app.specOnly.hasMoreWithoutCursor = cfg.has_more_without_cursor
    if (cfg.webhook_timestamps !== undefined && app.specOnly) app.specOnly.webhookTimestamps = cfg.webhook_timestamps
    return ok(describe())
  })
  router.add('DELETE', '/_emulator/faults', () => {
    app.transport?.reset()
    app.drift?.reset()
    app.strict = false
    app.specOnly?.reset()
    return ok(describe())
  })
}
