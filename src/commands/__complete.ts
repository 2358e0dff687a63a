import {Command} from '@oclif/core/command'
import {runCompletion} from '../completion/main.js'

/**
 * `payops __complete WORD...`: the shell completion scripts' back end (see src/completion). A real
 * run never reaches this class (bin/run.js and src/entry.ts answer first); it keeps the name taken
 * and answers the same where oclif dispatches directly (bin/dev.js).
 */
export default class Complete extends Command {
  static override hidden = true
  static override strict = false
  static override summary = 'Completion candidates for the words of a command line (used by the shell scripts).'

  async run(): Promise<void> {
    runCompletion(this.argv, this.config.root)
  }
}
