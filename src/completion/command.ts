/** `payops autocomplete [SHELL]` and `payops autocomplete script [SHELL]`. */
import type {CommandContext} from '../context/index.js'
import {UsageError} from '../errors.js'
import {completionScript, installInstructions, shellOf, SHELLS, type Shell} from './scripts.js'

export interface AutocompleteOptions {
  /** As given; undefined: from $SHELL. */
  shell?: string
  bin: string
  /** Print the script itself (else how to load it). */
  script: boolean
}

export async function runAutocomplete(opts: AutocompleteOptions, ctx: CommandContext): Promise<void> {
  const shell: Shell | undefined = opts.shell ? shellOf(opts.shell) : shellOf(ctx.io.env.SHELL)
  if (!shell) {
    const from = opts.shell ? `"${opts.shell}"` : ctx.io.env.SHELL ? `$SHELL (${ctx.io.env.SHELL})` : 'no $SHELL'
    throw new UsageError(`Completion is for ${SHELLS.join(', ')}; ${from} is none of them. Name the shell: ${opts.bin} autocomplete SHELL.`)
  }
  if (opts.script) {
    ctx.io.stdout.write(completionScript(shell, opts.bin))
    return
  }
  ctx.out.refuseSelection('these instructions')
  for (const line of [`Shell completion for ${shell}.`, ...installInstructions(shell, opts.bin)]) await ctx.out.writeLine(line)
}
