import * as Args from '@oclif/core/args'
import {ApiCommand} from '../../../base-command.js'
import {runClockMove} from '../../../emulator/control-command.js'

export default class EmulatorClockAdvance extends ApiCommand<typeof EmulatorClockAdvance> {
  static override areas = ['emulator'] as const
  static override summary = 'Move the running emulator\'s clock forward by DURATION, running what becomes due.'
  static override description =
    'DURATION is a number and a unit (w, d, h, m, s), several allowed: 30m, 36h, 2d, 1d12h, 1w. On the way, in time order: scheduled transfers are sent on their send day (America/New_York), initiated transfers settle after their rail\'s lag (2 days for standard ACH) and book their bank lines, async transfers and approved payins advance, bank lines appear on their dates, and webhooks are delivered as their events happen. Lists each step.'
  static override examples = ['<%= config.bin %> -p emu emulator clock advance 2d', '<%= config.bin %> emulator clock advance 1d12h -o json']
  static override args = {duration: Args.string({description: 'how far to move the clock (30m, 36h, 2d, 1d12h, 1w)', required: true})}

  async run(): Promise<void> {
    await runClockMove({advance: this.args.duration}, this.ctx)
  }
}
