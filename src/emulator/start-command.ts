/**
 * `emulator start`: checks before anything listens (loopback host, an existing profile is never
 * replaced silently), starts the emulator (the @payops/emulator package, loaded only here), saves
 * the profile when asked, prints the base URL and keys (one JSON line with --json), and stops
 * cleanly on the stop signal.
 */
import type {CommandContext} from '../context/index.js'
import {validateProfileName} from '../config/index.js'
import {UsageError} from '../errors.js'
import {isLoopbackHost} from '../net.js'
import {asCommandError} from './errors.js'

export interface StartOptions {
  port: number
  host: string
  state?: string
  /** A JSON state file of an earlier payops, converted into the new --state file (see the emulator's README). */
  importState?: string
  writeProfile?: string
  force: boolean
  faultRate?: string
  faultKinds: string
  seed?: number
  /** Answer in the documented drift. */
  drift?: boolean
  /** Serve the least generous reading of the spec. */
  strict?: boolean
  /** Where the clock starts: an ISO 8601 instant with its offset, or a day (the emulator's clock). */
  clock?: string
  /** A scenario file to start from (YAML or JSON). */
  scenario?: string
}

export async function runEmulatorStart(opts: StartOptions, ctx: CommandContext): Promise<void> {
  const out = ctx.out
  out.refuseSelection('emulator start')
  if (!isLoopbackHost(opts.host)) throw new UsageError(`--host ${opts.host} is not a loopback address; the emulator only binds to loopback.`)
  const profileName = opts.writeProfile === undefined ? undefined : validateProfileName(opts.writeProfile)
  const store = ctx.profiles()
  // Checked before anything listens: an existing profile (perhaps a LIVE one) is never replaced silently.
  if (profileName) store.replaceable(profileName, opts.force)
  // Loaded only now: the other commands never load the emulator.
  const emulator = await import('@payops/emulator')
  const {emu, clock, stopped} = await asCommandError(async () => {
    const faults = emulator.faultOptions(opts.faultRate, opts.faultKinds, opts.seed)
    const clock = opts.clock === undefined ? undefined : emulator.parseInstant(opts.clock)
    if (opts.clock !== undefined && clock === undefined) throw new UsageError(`--clock "${opts.clock}" is not an instant: use ISO 8601 with its offset, such as 2026-01-05T09:00:00-05:00, or a day such as 2026-01-05.`)
    const scenario = opts.scenario === undefined ? undefined : emulator.readScenarioFile(opts.scenario, ctx.io.env, (line) => out.note(line))
    const stopped = ctx.stopSignal()
    try {
      const emu = await emulator.startEmulator({port: opts.port, host: opts.host, statePath: opts.state, importState: opts.importState, faults, drift: opts.drift, strict: opts.strict, clock, scenario, log: (line) => ctx.io.stderr.write(`${line}\n`)})
      return {emu, clock, stopped}
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EADDRINUSE') throw new UsageError(`Port ${opts.port} is in use; pick another with --port (0 for any free port).`)
      throw err
    }
  })
  if (profileName) {
    await store.change((file) => {
      file.profiles[profileName] = {...file.profiles[profileName], api_key: emu.keys.test, base_url: emu.baseUrl, created_at: new Date(ctx.clock.now()).toISOString()}
      file.active ??= profileName
    })
  }
  if (out.format === 'json' || out.format === 'ndjson') await out.jsonLine({base_url: emu.baseUrl, keys: emu.keys})
  else {
    const p = out.paint
    const lines = [
      `${p.bold('payops emulator')} listening on ${p.cyan(emu.baseUrl)}`,
      `  test        ${emu.keys.test}`,
      `  test_other  ${emu.keys.test_other}`,
      `  live        ${emu.keys.live}`,
      profileName ? `Profile "${profileName}" saved (test key). Try: payops -p ${profileName} subaccounts create --name Ops` : `Try: PAYOPS_BASE_URL=${emu.baseUrl} PAYOPS_API_KEY=<test key> payops subaccounts create --name Ops`,
      ...(opts.drift ? ['Answers use the documented schema drift (--drift).'] : []),
      ...(opts.strict ? ['Answers are the least generous reading of the spec (--strict).'] : []),
      ...(opts.scenario ? [`Scenario: ${opts.scenario}`] : []),
      ...(clock !== undefined || opts.scenario ? [`Clock: ${emu.store.now()} (move it with: payops emulator clock advance 1d)`] : []),
      opts.state ? `State file: ${opts.state}` : 'State is in memory only (use --state FILE to keep it).',
      'Press Ctrl-C to stop.',
    ]
    for (const line of lines) await out.writeLine(line)
  }
  await stopped
  // Rejects (exit 1) when the final save of --state fails.
  await asCommandError(() => emu.close())
  if (!out.machine) out.note('Emulator stopped.')
}
