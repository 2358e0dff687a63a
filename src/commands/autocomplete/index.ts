import * as Args from '@oclif/core/args'
import {BaseCommand} from '../../base-command.js'

export default class Autocomplete extends BaseCommand<typeof Autocomplete> {
  static override summary = 'Show how to turn on shell completion (bash, zsh, fish).'
  static override description =
    'Completion offers commands, flags (--no-auto-approve too) and values from this machine only, never the network: ids of moves awaiting approval with their amount and names, subaccount and treasury account ids with their names, profile names, and the webhook endpoints this machine created. The shell is taken from $SHELL when not given.'
  static override examples = ['<%= config.bin %> autocomplete', '<%= config.bin %> autocomplete zsh', '<%= config.bin %> autocomplete fish']
  static override args = {shell: Args.string({description: 'the shell (default: from $SHELL)', options: ['bash', 'zsh', 'fish']})}

  async run(): Promise<void> {
    const {runAutocomplete} = await import('../../completion/command.js')
    await runAutocomplete({shell: this.args.shell, bin: this.config.bin, script: false}, this.ctx)
  }
}
