import * as Args from '@oclif/core/args'
import {BaseCommand} from '../../base-command.js'

export default class AutocompleteScript extends BaseCommand<typeof AutocompleteScript> {
  static override summary = 'Print the completion script of a shell (bash, zsh, fish).'
  static override examples = [
    '<%= config.bin %> autocomplete script bash >> ~/.bashrc',
    '<%= config.bin %> autocomplete script zsh > ~/.zfunc/_<%= config.bin %>',
    '<%= config.bin %> autocomplete script fish > ~/.config/fish/completions/<%= config.bin %>.fish',
  ]
  static override args = {shell: Args.string({description: 'the shell (default: from $SHELL)', options: ['bash', 'zsh', 'fish']})}

  async run(): Promise<void> {
    const {runAutocomplete} = await import('../../completion/command.js')
    await runAutocomplete({shell: this.args.shell, bin: this.config.bin, script: true}, this.ctx)
  }
}
