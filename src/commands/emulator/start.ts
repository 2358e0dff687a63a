import * as Flags from '@oclif/core/flags'
import {BaseCommand} from '../../base-command.js'
import {runEmulatorStart} from '../../emulator/start-command.js'

export default class EmulatorStart extends BaseCommand<typeof EmulatorStart> {
  static override summary = 'Run the local, stateful emulator of the API until Ctrl-C.'
  static override description =
    'Seeds three entities (a test entity with subaccounts and a USD main treasury account, a second test entity, and a live entity) and prints the base URL and their API keys. With --json it prints exactly one line {"base_url", "keys": {"test", "test_other", "live"}} on stdout. A control API under /_emulator/ serves tests (reset, forced settlement failures).'
  static override examples = [
    '<%= config.bin %> emulator start --write-profile emu',
    '<%= config.bin %> emulator start --port 0 --json --state ./emulator-state.sqlite',
    '<%= config.bin %> emulator start --state ./emulator-state.sqlite --import-state ./emulator-state.json',
    '<%= config.bin %> emulator start --scenario examples/month-end.yaml --write-profile emu --force',
    '<%= config.bin %> emulator start --clock 2026-01-05T09:00:00-05:00',
  ]
  static override flags = {
    port: Flags.integer({summary: 'Port to listen on (0 picks a free one).', default: 4010, min: 0, max: 65535}),
    host: Flags.string({summary: 'Loopback address to bind.', default: '127.0.0.1'}),
    state: Flags.string({summary: 'Keep the state in this SQLite FILE: loaded at start when it exists, every change committed before it is answered.'}),
    'import-state': Flags.string({summary: 'Convert a JSON state file of an earlier payops into the new --state FILE (which must not exist yet).', dependsOn: ['state']}),
    'write-profile': Flags.string({summary: 'Save a profile NAME with the base URL and the test entity\'s key (made active only when no profile is: use -p NAME).'}),
    force: Flags.boolean({summary: 'With --write-profile, replace an existing profile of that name.', dependsOn: ['write-profile']}),
    'fault-rate': Flags.string({summary: 'Share of /api/ requests that fail (0 to 1), before or after the write commits.'}),
    'fault-kinds': Flags.string({summary: 'Comma-separated faults to inject: 500, 502, 503, 504, 429, reset, latency.', default: '500,503,reset,latency'}),
    seed: Flags.integer({summary: 'Seed of the fault generator (reproducible runs).'}),
    clock: Flags.string({summary: 'Start the clock at this instant (2026-01-05T09:00:00-05:00, or a day) and let it run from there; move it with `emulator clock advance|set`.'}),
    scenario: Flags.string({summary: 'Start from this scenario FILE (YAML or JSON): the test entity\'s accounts, subaccounts, parties, moves, transfers, payins, bank lines and webhooks. Checked whole first: exit 2, with a FILE:LINE:COL line per problem.'}),
    drift: Flags.boolean({summary: 'Answer with the drift the spec documents: the approve-move example shape without amounts, legacy field names only, upper-case replay states, only required fields.'}),
    strict: Flags.boolean({summary: 'Serve the least generous reading of the spec: no client_metadata in lists, minimal answers where the spec shows none (202 with an empty body for async transfers), webhook creates without the secret, a repeated sandbox reference credited again.'}),
  }

  async run(): Promise<void> {
    const f = this.flags
    await runEmulatorStart(
      {port: f.port, host: f.host, state: f.state, importState: f['import-state'], writeProfile: f['write-profile'], force: f.force, faultRate: f['fault-rate'], faultKinds: f['fault-kinds'], seed: f.seed, drift: f.drift, strict: f.strict, clock: f.clock, scenario: f.scenario},
      this.ctx,
    )
  }
}
