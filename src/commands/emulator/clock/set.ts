import * as Args from '@oclif/core/args'
import {ApiCommand} from '../../../base-command.js'
import {runClockMove} from '../../../emulator/control-command.js'

export default class EmulatorClockSet extends ApiCommand<typeof EmulatorClockSet> {
  static override areas = ['emulator'] as const
  static override summary = 'Move the running emulator\'s clock forward to INSTANT, running what becomes due.'
  static override description =
    'INSTANT is ISO 8601 with its offset (2026-01-07T09:00:00-05:00) or a day (2026-01-07: its start in America/New_York). The clock never goes backwards: an instant before it is refused (start an emulator with --clock to begin earlier). What becomes due on the way runs as with `clock advance`.'
  static override examples = ['<%= config.bin %> -p emu emulator clock set 2026-01-31T17:00:00-05:00', '<%= config.bin %> emulator clock set 2026-02-01']
  static override args = {instant: Args.string({description: 'the instant to move the clock to', required: true})}

  async run(): Promise<void> {
    await runClockMove({to: this.args.instant}, this.ctx)
  }
}
