/**
 * `payops-emulator`: the emulator on its own, for anyone who wants a stateful double of this API.
 * It prints the base URL and the three entities' API keys (one JSON line with --json) and serves
 * until SIGINT or SIGTERM (or, with --stop-on-stdin-end, until its stdin ends: a starter that runs
 * it as a child holds the other end, so the emulator never outlives it); a refused start is one
 * line on stderr and exit 2, a state that could not be kept exit 1.
 */
import {parseArgs} from 'node:util'
import {parseInstant} from './clock/clock.js'
import {faultOptions} from './faults/options.js'
import {EmulatorError, UsageError} from './lib/errors.js'
import {isLoopbackHost} from './lib/net.js'
import {writeStderr} from './lib/stderr.js'
import {readScenarioFile} from './scenario/file.js'
import {startEmulator, type EmulatorOptions, type RunningEmulator} from './emulator.js'

const HELP = `Usage: payops-emulator [options]

  --port N            port to listen on (default 4010; 0 picks a free one)
  --host ADDR         loopback address to bind (default 127.0.0.1)
  --state FILE        keep the state in this SQLite file (loaded when it exists)
  --import-state FILE convert a JSON state of an earlier payops into the new --state FILE
  --scenario FILE     start from a scenario file (YAML or JSON)
  --clock INSTANT     start the clock at this instant (2026-01-05T09:00:00-05:00, or a day)
  --fault-rate R      share of /api/ requests that fail (0 to 1)
  --fault-kinds LIST  faults to inject (500,502,503,504,429,reset,latency; default 500,503,reset,latency)
  --seed N            seed of the fault generator
  --drift             answer with the drift the spec documents
  --strict            serve the least generous reading of the spec
  --json              print one JSON line {"base_url", "keys", "clock"} instead of text
  --stop-on-stdin-end stop as on SIGTERM when stdin ends (run as a child: the starter holds stdin)
  -h, --help          show this help
`

const OPTIONS = {
  port: {type: 'string', default: '4010'},
  host: {type: 'string', default: '127.0.0.1'},
  state: {type: 'string'},
  'import-state': {type: 'string'},
  scenario: {type: 'string'},
  clock: {type: 'string'},
  'fault-rate': {type: 'string'},
  'fault-kinds': {type: 'string', default: '500,503,reset,latency'},
  seed: {type: 'string'},
  drift: {type: 'boolean', default: false},
  strict: {type: 'boolean', default: false},
  json: {type: 'boolean', default: false},
  'stop-on-stdin-end': {type: 'boolean', default: false},
  help: {type: 'boolean', short: 'h', default: false},
} as const

type Values = ReturnType<typeof parseArgs<{options: typeof OPTIONS}>>['values']

const whole = (flag: string, text: string, max: number) => {
  if (!/^\d+$/.test(text) || Number(text) > max) throw new UsageError(`${flag} "${text}" must be a whole number from 0 to ${max}.`)
  return Number(text)
}

/** The emulator's options from the command line's; a {@link UsageError} for a bad one. */
export function optionsOf(v: Values, env: Record<string, string | undefined>, note: (line: string) => void): EmulatorOptions {
  if (!isLoopbackHost(v.host)) throw new UsageError(`--host ${v.host} is not a loopback address; the emulator only binds to loopback.`)
  const clock = v.clock === undefined ? undefined : parseInstant(v.clock)
  if (v.clock !== undefined && clock === undefined) throw new UsageError(`--clock "${v.clock}" is not an instant: use ISO 8601 with its offset, such as 2026-01-05T09:00:00-05:00, or a day such as 2026-01-05.`)
  const seed = v.seed === undefined ? undefined : whole('--seed', v.seed, Number.MAX_SAFE_INTEGER)
  return {
    port: whole('--port', v.port, 65535),
    host: v.host,
    statePath: v.state,
    importState: v['import-state'],
    faults: faultOptions(v['fault-rate'], v['fault-kinds'], seed),
    drift: v.drift,
    strict: v.strict,
    clock,
    scenario: v.scenario === undefined ? undefined : readScenarioFile(v.scenario, env, note),
  }
}

function describe(emu: RunningEmulator, v: Values): string[] {
  if (v.json) return [JSON.stringify({base_url: emu.baseUrl, keys: emu.keys, clock: emu.store.now()})]
  return [
    `payops-emulator listening on ${emu.baseUrl}`,
    `  test        ${emu.keys.test}`,
    `  test_other  ${emu.keys.test_other}`,
    `  live        ${emu.keys.live}`,
    `Clock: ${emu.store.now()}`,
    v.state ? `State file: ${v.state}` : 'State is in memory only (use --state FILE to keep it).',
    'Press Ctrl-C to stop.',
  ]
}

/** Starts the emulator; a port in use is a refusal (exit 2) like any other. */
async function start(opts: EmulatorOptions): Promise<RunningEmulator> {
  try {
    return await startEmulator(opts)
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EADDRINUSE') throw new UsageError(`Port ${opts.port} is in use; pick another with --port (0 for any free port).`)
    throw e
  }
}

/** Resolves on SIGINT or SIGTERM, or (`--stop-on-stdin-end`) when stdin ends: its starter stopped it, or is gone. */
function stopRequested(onStdinEnd: boolean): Promise<void> {
  return new Promise<void>((resolve) => {
    process.once('SIGINT', () => resolve())
    process.once('SIGTERM', () => resolve())
    if (!onStdinEnd) return
    // A starter that is gone cannot read: what would have been said is dropped, not an uncaught EPIPE.
    for (const stream of [process.stdout, process.stderr]) stream.on('error', () => undefined)
    process.stdin.on('end', () => resolve())
    process.stdin.on('error', () => resolve())
    process.stdin.resume()
  })
}

/** Runs the emulator until SIGINT or SIGTERM (or the end of stdin); resolves with the exit code. */
export async function main(argv: string[]): Promise<number> {
  const err = writeStderr
  try {
    const {values} = parseArgs({args: argv, options: OPTIONS, strict: true, allowPositionals: false})
    if (values.help) {
      process.stdout.write(HELP)
      return 0
    }
    const emu = await start({...optionsOf(values, process.env, err), log: err})
    const stopped = stopRequested(values['stop-on-stdin-end'])
    process.stdout.write(describe(emu, values).map((l) => `${l}\n`).join(''))
    await stopped
    if (values['stop-on-stdin-end']) process.stdin.destroy()
    await emu.close()
    return 0
  } catch (e) {
    const code = e instanceof EmulatorError ? e.exitCode : (e as {code?: string}).code?.startsWith('ERR_PARSE_ARGS') ? 2 : 1
    err(code === 1 && !(e instanceof EmulatorError) ? `payops-emulator: ${(e as Error).message}` : (e as Error).message)
    return code
  }
}
