/**
 * The emulator's server: a `node:http` server over an in-memory store, optionally persisted to a
 * state file (SQLite, written through before each answer: persist/). `startEmulator()` is what the
 * `payops-emulator` binary, `payops emulator start` and the tests run.
 */
import {existsSync} from 'node:fs'
import {createServer, type Server} from 'node:http'
import type {AddressInfo} from 'node:net'
import {UsageError} from './lib/errors.js'
import {writeStderr} from './lib/stderr.js'
import {Faults, RequestLog, type AppContext} from './app.js'
import {SpecOnlySwitches} from './strict/spec-only.js'
import {ModeSwitch} from './lib/mode-switch.js'
import {EventBus} from './webhooks/events.js'
import {TransportFaults, type FaultConfig} from './faults/transport.js'
import {createRequestListener} from './server/http.js'
import {IMPORT_FLAG, StateFile, loadJsonState, loadState} from './persist/index.js'
import {Router} from './server/router.js'
import {registerRoutes} from './routes/index.js'
import {applyScenario} from './scenario/apply.js'
import type {Scenario} from './scenario/schema.js'
import {createSeededStore} from './store/seed.js'
import type {EmulatorKeys, Store} from './store/index.js'

export interface EmulatorOptions {
  /** Default 0: a free port. */
  port?: number
  /** Default 127.0.0.1. */
  host?: string
  /** Load the state from this SQLite file when it exists (else create it), and commit every change there before answering. */
  statePath?: string
  /**
   * A JSON state file of an earlier payops to start from: converted once into `statePath`, which
   * must not exist yet (the JSON file is only read).
   */
  importState?: string
  /** Where internal errors and persistence failures are reported; default stderr. */
  log?: (line: string) => void
  /** Transport faults from the start (also settable at run time via /_emulator/faults). */
  faults?: FaultConfig
  /** Answer in the documented drift from the start (`--drift`; switchable at run time via /_emulator/faults). */
  drift?: boolean
  /** Where the clock starts (`--clock`, ms since the epoch); never before a loaded state's clock. */
  clock?: number
  /** A checked scenario to start from (`--scenario`): the test entity's world (scenario/apply.ts). */
  scenario?: Scenario
  /** Serve the least generous reading of the spec from the start (`--strict`; switchable at run time via /_emulator/faults). */
  strict?: boolean
}


export interface RunningEmulator {
  baseUrl: string
  keys: EmulatorKeys
  store: Store
  /** The API requests it received. */
  requests: RequestLog
  /** Stops the server and writes the final state; rejects with a StateSaveError (exit 1) if that write fails. */
  close(): Promise<void>
}

/** After this long, connections still busy at close are cut. */
const CLOSE_GRACE_MS = 500

export async function startEmulator(opts: EmulatorOptions = {}): Promise<RunningEmulator> {
  const host = opts.host ?? '127.0.0.1'
  const log = opts.log ?? writeStderr
  const store = await initialStore(opts)
  const transport = new TransportFaults()
  if (opts.faults) transport.configure(opts.faults)
  const stateFile = opts.statePath ? new StateFile(opts.statePath, store, log) : undefined
  if (stateFile) {
    // Opened (or created with the whole store) before listening: a --state that cannot be written fails here.
    await stateFile.init()
    stateFile.watch()
  }
  const app: AppContext = {requests: new RequestLog(), store, faults: new Faults(), events: new EventBus(() => store.now()), transport, drift: new ModeSwitch(opts.drift ?? false), strict: new ModeSwitch(opts.strict ?? false), specOnly: new SpecOnlySwitches(), log, onClose: [], commit: stateFile && (() => stateFile.commit())}
  const router = registerRoutes(new Router(), app)

  const server = createServer({keepAlive: true}, createRequestListener(router, app))
  server.keepAliveTimeout = 5_000
  // A request Node's parser refuses (malformed, or a body where none may be) gets a 400 on a
  // writable socket rather than a bare reset.
  server.on('clientError', (err: NodeJS.ErrnoException, socket) => {
    if (!socket.writable || err.code === 'ECONNRESET') return socket.destroy()
    const body = JSON.stringify({error_code: 'BAD_REQUEST', message: 'the request could not be parsed'})
    socket.end(`HTTP/1.1 400 Bad Request\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`)
  })
  try {
    await new Promise<void>((resolve, reject) => {
      const onError = (err: Error) => reject(err)
      server.once('error', onError)
      server.listen(opts.port ?? 0, host, () => {
        server.off('error', onError)
        resolve()
      })
    })
  } catch (err) {
    await stateFile?.close().catch(() => undefined)
    throw err
  }
  const {port} = server.address() as AddressInfo
  const urlHost = host.includes(':') ? `[${host}]` : host

  let closing: Promise<void> | undefined
  return {
    baseUrl: `http://${urlHost}:${port}`,
    get keys() {
      return store.keys()
    },
    store,
    requests: app.requests,
    close() {
      closing ??= (async () => {
        await Promise.allSettled((app.onClose ?? []).map(async (fn) => fn()))
        await stopServer(server)
        await stateFile?.close()
      })()
      return closing
    },
  }
}

/** The store of `--state` (or of `--import-state`, converted), or undefined for a fresh one. */
async function loadStore(opts: EmulatorOptions): Promise<Store | undefined> {
  if (opts.importState === undefined) return opts.statePath ? await loadState(opts.statePath) : undefined
  if (opts.statePath === undefined) throw new UsageError(`${IMPORT_FLAG} needs --state NEW_FILE: the SQLite state file to convert ${opts.importState} into.`)
  if (existsSync(opts.statePath)) throw new UsageError(`${IMPORT_FLAG} converts into a new state file; ${opts.statePath} already exists. Name a file that does not exist.`)
  return loadJsonState(opts.importState)
}

/** The store to start with: loaded or seeded, with its clock where `--clock` puts it and `--scenario` in it. */
async function initialStore(opts: EmulatorOptions): Promise<Store> {
  const loaded = await loadStore(opts)
  // --clock wins over the scenario's own clock.
  const scenario = opts.scenario && opts.clock !== undefined ? {...opts.scenario, clock: new Date(opts.clock).toISOString()} : opts.scenario
  const store = loaded ?? createSeededStore(opts.clock)
  if (scenario) applyScenario(store, scenario)
  else if (loaded && opts.clock !== undefined) {
    if (opts.clock < loaded.nowMs()) throw new UsageError(`--clock ${new Date(opts.clock).toISOString()} is before the clock of the state file (${loaded.now()}); the clock never goes backwards.`)
    loaded.setClock(opts.clock)
  }
  return store
}

function stopServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    const force = setTimeout(() => server.closeAllConnections(), CLOSE_GRACE_MS)
    force.unref()
    server.close(() => {
      clearTimeout(force)
      resolve()
    })
    server.closeIdleConnections()
  })
}
