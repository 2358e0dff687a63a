import * as Args from '@oclif/core/args'
import {ApiCommand} from '../../base-command.js'
import {runEmulatorLoad} from '../../emulator/control-command.js'

export default class EmulatorLoad extends ApiCommand<typeof EmulatorLoad> {
  static override areas = ['emulator'] as const
  static override summary = 'Replace the running emulator\'s test world with a scenario file (YAML or JSON).'
  static override description =
    'Reads FILE and checks it whole: each problem is one line FILE:LINE:COL: field: message, and then nothing is sent (exit 2). A good scenario replaces the test entity\'s accounts, subaccounts, payers, payees, moves, transfers, payins, bank lines and webhook endpoints in one step (the other entities are seeded afresh; every API key keeps working) and moves the clock to the scenario\'s `clock`. Only a payops emulator on a loopback address takes it (the profile\'s or --base-url). A webhook\'s signing secret is read from the environment variable its `secret_env` names. See docs/emulator.md for the format and examples/ for three scenarios.'
  static override examples = ['<%= config.bin %> -p emu emulator load examples/treasury-morning.yaml', '<%= config.bin %> emulator load month-end.yaml --base-url http://127.0.0.1:4010']
  static override args = {file: Args.string({description: 'scenario file (.yaml, .yml or .json)', required: true})}

  async run(): Promise<void> {
    await runEmulatorLoad({file: this.args.file}, this.ctx)
  }
}
