/**
 * `emulator start`: checks before anything listens (loopback host, an existing profile is never
 * replaced silently), runs the emulator's own command line in a child process (child.ts), saves
 * the profile when asked, prints the base URL and keys (one JSON line with --json), and stops the
 * emulator cleanly on the stop signal. The emulator's log lines are passed on to stderr; its
 * refusals and failures are this command's, with their exit codes.
 */
import type {CommandContext} from '../context/index.js'
import {validateProfileName} from '../config/index.js'
import {UsageError} from '../errors.js'
import {isLoopbackHost} from '../net.js'
import {runEmulatorProcess, type EmulatorStarted} from './child.js'

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

/** The emulator's command line for these options (each value as `--flag=VALUE`: a value may begin with a dash). */
export function emulatorArgs(opts: StartOptions): string[] {
  const valued: Array<[string, string | number | undefined]> = [
    ['port', opts.port],
    ['host', opts.host],
    ['state', opts.state],
    ['import-state', opts.importState],
    ['fault-rate', opts.faultRate],
    ['fault-kinds', opts.faultKinds],
    ['seed', opts.seed],
    ['clock', opts.clock],
    ['scenario', opts.scenario],
  ]
  return [...valued.filter(([, v]) => v !== undefined).map(([flag, v]) => `--${flag}=${v}`), ...(opts.drift ? ['--drift'] : []), ...(opts.strict ? ['--strict'] : [])]
}

function startLines(ctx: CommandContext, opts: StartOptions, emu: EmulatorStarted, profileName: string | undefined): string[] {
  const p = ctx.out.paint
  return [
    `${p.bold('payops emulator')} listening on ${p.cyan(emu.baseUrl)}`,
    `  test        ${emu.keys.test}`,
    `  test_other  ${emu.keys.test_other}`,
    `  live        ${emu.keys.live}`,
    profileName ? `Profile "${profileName}" saved (test key). Try: payops -p ${profileName} subaccounts create --name Ops` : `Try: PAYOPS_BASE_URL=${emu.baseUrl} PAYOPS_API_KEY=<test key> payops subaccounts create --name Ops`,
    ...(opts.drift ? ['Answers use the documented schema drift (--drift).'] : []),
    ...(opts.strict ? ['Answers are the least generous reading of the spec (--strict).'] : []),
    ...(opts.scenario ? [`Scenario: ${opts.scenario}`] : []),
    ...(opts.clock !== undefined || opts.scenario ? [`Clock: ${emu.clock} (move it with: payops emulator clock advance 1d)`] : []),
    opts.state ? `State file: ${opts.state}` : 'State is in memory only (use --state FILE to keep it).',
    'Press Ctrl-C to stop.',
  ]
}

export async function runEmulatorStart(opts: StartOptions, ctx: CommandContext): Promise<void> {
  const out = ctx.out
  out.refuseSelection('emulator start')
  if (!isLoopbackHost(opts.host)) throw new UsageError(`--host ${opts.host} is not a loopback address; the emulator only binds to loopback.`)
  const profileName = opts.writeProfile === undefined ? undefined : validateProfileName(opts.writeProfile)
  const store = ctx.profiles()
  // Checked before anything listens: an existing profile (perhaps a LIVE one) is never replaced silently.
  if (profileName) store.replaceable(profileName, opts.force)
  const stopped = ctx.stopSignal()
  const emulator = runEmulatorProcess(emulatorArgs(opts), ctx.io.env, (line) => ctx.io.stderr.write(`${line}\n`))
  try {
    const emu = await emulator.started
    if (profileName) {
      await store.change((file) => {
        file.profiles[profileName] = {...file.profiles[profileName], api_key: emu.keys.test, base_url: emu.baseUrl, created_at: new Date(ctx.clock.now()).toISOString()}
        file.active ??= profileName
      })
    }
    if (out.format === 'json' || out.format === 'ndjson') await out.jsonLine({base_url: emu.baseUrl, keys: emu.keys})
    else for (const line of startLines(ctx, opts, emu, profileName)) await out.writeLine(line)
    // Until Ctrl-C (or SIGTERM), or until the emulator ends on its own.
    await Promise.race([stopped, emulator.exited])
  } catch (err) {
    await emulator.stop().catch(() => undefined)
    throw err
  }
  // Rejects (exit 1) when the emulator could not keep --state, or did not stop cleanly.
  await emulator.stop()
  if (!out.machine) out.note('Emulator stopped.')
}
