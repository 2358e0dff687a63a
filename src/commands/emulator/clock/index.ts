import {ApiCommand} from '../../../base-command.js'
import {runClockShow} from '../../../emulator/control-command.js'

export default class EmulatorClock extends ApiCommand<typeof EmulatorClock> {
  static override areas = ['emulator'] as const
  static override summary = 'Show the running emulator\'s clock (move it with `clock advance` or `clock set`).'
  static override description = 'The emulator\'s time, its day in America/New_York (the schedule timezone of send days) and how far it runs from the wall clock.'
  static override examples = ['<%= config.bin %> -p emu emulator clock', '<%= config.bin %> emulator clock -o json']

  async run(): Promise<void> {
    await runClockShow(this.ctx)
  }
}
