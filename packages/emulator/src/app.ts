/**
 * What every route module receives at registration: the store, the fault knobs the control API
 * turns, and a log sink for the operator (internal errors, persistence failures).
 */
import type {Store} from './store/index.js'
import type {EventBus} from './webhooks/events.js'
import type {ModeSwitch} from './lib/mode-switch.js'
import type {TransportFaults} from './faults/transport.js'
import type {SpecOnlySwitches} from './strict/spec-only.js'

/** Failures the control API arms for tests; each armed failure is consumed once. */
export class Faults {
  /** How many of the next settlements fail. */
  settlementFailures = 0

  /** True (and one fewer armed) when the next settlement must fail. */
  takeSettlementFailure(): boolean {
    if (this.settlementFailures <= 0) return false
    this.settlementFailures--
    return true
  }

  reset(): void {
    this.settlementFailures = 0
  }
}

/** The API requests received (not the control API's), for tests that prove nothing was sent. */
export class RequestLog {
  /** Every API request received since the start. */
  count = 0
  /** The last ones, oldest first (at most `keep`). */
  readonly recent: Array<{method: string; path: string}> = []
  constructor(private readonly keep = 1000) {}

  add(method: string, path: string): void {
    this.count++
    this.recent.push({method, path})
    if (this.recent.length > this.keep) this.recent.splice(0, this.recent.length - this.keep)
  }
}

export interface AppContext {
  /** API requests received. */
  requests: RequestLog
  store: Store
  faults: Faults
  /** Events from state changes; webhook deliveries subscribe to it. */
  events: EventBus
  /** Transport faults (5xx before/after commit, resets, latency) on `/api/` requests. */
  transport?: TransportFaults
  /** Answers in the documented drift (`--drift`, or `drift` on POST /_emulator/faults); see drift.ts. */
  drift?: ModeSwitch
  /** The least generous reading of the spec (`--strict`, or `strict` on POST /_emulator/faults); see strict.ts. */
  strict?: ModeSwitch
  /** The spec-only behaviours switched one by one (spec-only.ts); `strict` turns every one on. */
  specOnly?: SpecOnlySwitches
  log: (line: string) => void
  /** Run when the emulator closes, before the server stops (cancel timers, abort requests). */
  onClose?: Array<() => void | Promise<void>>
  /** Commits the store's changes to the state file (with --state); called before every answer. Never throws. */
  commit?: () => void
}
