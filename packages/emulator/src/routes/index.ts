/**
 * Every route module of the emulator. A new resource area is one module exporting
 * `register(router, app)` plus one line here.
 */
import type {AppContext} from '../app.js'
import type {Router} from '../server/router.js'
import * as control from './control.js'
import * as faults from './faults.js'
import * as books from './books.js'
import * as bulk from './bulk.js'
import * as clock from './clock.js'
import * as moves from './moves.js'
import * as parties from './parties.js'
import * as payins from './payins.js'
import * as tokens from './tokens.js'
import * as subaccounts from './subaccounts.js'
import * as transfers from './transfers.js'
import * as treasury from './treasury.js'
import * as webhooks from './webhooks.js'

export interface RouteModule {
  register(router: Router, app: AppContext): void
}

export const ROUTE_MODULES: readonly RouteModule[] = [subaccounts, moves, treasury, transfers, parties, payins, tokens, webhooks, books, control, faults, bulk, clock]

export function registerRoutes(router: Router, app: AppContext): Router {
  for (const m of ROUTE_MODULES) m.register(router, app)
  return router
}
