/**
 * @payops/emulator: a stateful emulator of the Payments and Treasury service interface, written
 * from the spec. This is its public entry: start one (`startEmulator`), read its ledger (`Store`),
 * and the pieces a command that starts it needs (fault kinds, clock parsing, scenario files).
 * Nothing else of the package is meant to be imported from outside it.
 */
export {startEmulator} from './emulator.js'
export type {EmulatorOptions, RunningEmulator} from './emulator.js'
export type {EmulatorKeys} from './store/index.js'
export {EmulatorError, StateSaveError, UsageError as EmulatorUsageError} from './lib/errors.js'

// Turning a starter's options into a fault configuration, an instant or a duration.
export {FAULT_KINDS, FaultConfig} from './faults/transport.js'
export {faultOptions} from './faults/options.js'
export type {FaultKind, FaultPhase} from './faults/transport.js'
export {MAX_ADVANCE_MS, SCHEDULE_TIMEZONE, parseDuration, parseInstant} from './clock/clock.js'

// Scenario files (YAML or JSON), checked whole before anything is loaded.
export {readScenarioFile, readScenarioText} from './scenario/file.js'
export type {Scenario} from './scenario/schema.js'

// The ledger: what a running emulator holds (RunningEmulator.store).
export {Store, Table, Grouped, Entity} from './store/index.js'
export type {MoveRecord, SubaccountRecord} from './store/index.js'

// Building on the server: routes of your own over the same store.
export {Router} from './server/router.js'
export {createRequestListener} from './server/http.js'
export {HttpError, notFound, validationError} from './lib/http-error.js'
export {RequestContext, created, ok, parseInput} from './server/handler.js'
export type {Handler, Reply} from './server/handler.js'
export {paginate} from './server/pagination.js'
export type {ListPage, PageOptions} from './server/pagination.js'
export {Faults, RequestLog} from './app.js'
export type {AppContext} from './app.js'
