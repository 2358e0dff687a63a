import {Flags} from '@oclif/core'
import {BaseCommand} from '../../base-command.js'
import {ProfileStore, validateProfileName} from '../../config/index.js'
import {isLoopbackHost} from '../../net.js'
import {UsageError} from '../../errors.js'
import {FAULT_KINDS, type FaultConfig, type FaultKind} from '../../emulator/faults.js'

function faultOptions(rate: string | undefined, kinds: string, seed: number | undefined): FaultConfig | undefined {
  if (rate === undefined) return seed === undefined ? undefined : {seed}
  const r = Number(rate)
  if (!/^\d*\.?\d+$/.test(rate.trim()) || !(r >= 0 && r <= 1)) throw new UsageError(`--fault-rate "${rate}" must be a number from 0 to 1.`)
  const list = kinds.split(',').map((s) => s.trim()).filter(Boolean)
  const bad = list.find((k) => !(FAULT_KINDS as readonly string[]).includes(k))
  if (bad || list.length === 0) throw new UsageError(`--fault-kinds: unknown kind "${bad ?? ''}" (use ${FAULT_KINDS.join(', ')}).`)
  return {rate: r, kinds: list as FaultKind[], ...(seed === undefined ? {} : {seed})}
}

export default class EmulatorStart extends BaseCommand<typeof EmulatorStart> {
  static override summary = 'Run the local, stateful emulator of the API until Ctrl-C.'
  static override description =
    'Seeds three entities (a test entity with subaccounts and a USD main treasury account, a second test entity, and a live entity) and prints the base URL and their API keys. With --json it prints exactly one line {"base_url", "keys": {"test", "test_other", "live"}} on stdout. A control API under /_emulator/ serves tests (reset, forced settlement failures).'
  static override examples = [
    '<%= config.bin %> emulator start --write-profile emu',
    '<%= config.bin %> emulator start --port 0 --json --state ./emulator-state.json',
  ]
  static override flags = {
    port: Flags.integer({summary: 'Port to listen on (0 picks a free one).', default: 4010, min: 0, max: 65535}),
    host: Flags.string({summary: 'Loopback address to bind.', default: '127.0.0.1'}),
    state: Flags.string({summary: 'Load state from FILE if it exists and save it there on every change and on exit.'}),
    'write-profile': Flags.string({summary: 'Save a profile NAME with the base URL and the test entity\'s key.'}),
    force: Flags.boolean({summary: 'With --write-profile, replace an existing profile of that name.', dependsOn: ['write-profile']}),
    'fault-rate': Flags.string({summary: 'Share of /api/ requests that fail (0 to 1), before or after the write commits.'}),
    'fault-kinds': Flags.string({summary: 'Comma-separated faults to inject: 500, 502, 503, 504, 429, reset, latency.', default: '500,503,reset,latency'}),
    seed: Flags.integer({summary: 'Seed of the fault generator (reproducible runs).'}),
  }

  async run(): Promise<void> {
    const f = this.flags
    if (!isLoopbackHost(f.host)) throw new UsageError(`--host ${f.host} is not a loopback address; the emulator only binds to loopback.`)
    const profileName = f['write-profile'] === undefined ? undefined : validateProfileName(f['write-profile'])
    // Checked before anything listens: an existing profile (perhaps a LIVE one) is never replaced silently.
    if (profileName) new ProfileStore().replaceable(profileName, f.force)
    const stopped = this.ctx.stopSignal()
    const {startEmulator} = await import('../../emulator/index.js')
    let emu
    try {
      emu = await startEmulator({port: f.port, host: f.host, statePath: f.state, faults: faultOptions(f['fault-rate'], f['fault-kinds'], f.seed)})
    } catch (err) {
      const e = err as NodeJS.ErrnoException
      if (e.code === 'EADDRINUSE') throw new UsageError(`Port ${f.port} is in use; pick another with --port (0 for any free port).`)
      throw err
    }
    if (profileName) {
      const store = new ProfileStore()
      await store.save(profileName, {...store.get(profileName), api_key: emu.keys.test, base_url: emu.baseUrl, created_at: new Date().toISOString()})
      if (!store.read().active) await store.use(profileName)
    }
    if (this.out.format === 'json' || this.out.format === 'ndjson') {
      process.stdout.write(JSON.stringify({base_url: emu.baseUrl, keys: emu.keys}) + '\n')
    } else {
      const p = this.out.paint
      process.stdout.write(
        [
          `${p.bold('payops emulator')} listening on ${p.cyan(emu.baseUrl)}`,
          `  test        ${emu.keys.test}`,
          `  test_other  ${emu.keys.test_other}`,
          `  live        ${emu.keys.live}`,
          profileName ? `Profile "${profileName}" saved (test key). Try: payops -p ${profileName} subaccounts create --name Ops` : `Try: PAYOPS_BASE_URL=${emu.baseUrl} PAYOPS_API_KEY=<test key> payops subaccounts create --name Ops`,
          f.state ? `State file: ${f.state}` : 'State is in memory only (use --state FILE to keep it).',
          'Press Ctrl-C to stop.',
          '',
        ].join('\n'),
      )
    }
    await stopped
    // Rejects (exit 1) when the final save of --state fails.
    await emu.close()
    if (!this.out.machine) process.stderr.write('Emulator stopped.\n')
  }
}
