/** The terminal prompter (@inquirer/prompts on stderr); none without a terminal. */
import {InterruptedError} from '../errors.js'
import type {Prompter} from '../movements/types.js'
import type {IOStreams} from './index.js'

/** An answer is shown as given, without a tick: the guard decides whether it confirms. */
const theme = {prefix: {idle: '?', done: '›'}}

/** Ctrl-C (or a closed terminal) at a prompt: aborted, exit 130, nothing sent. */
function aborted(err: unknown): Error {
  const name = (err as Error)?.name
  if (name === 'ExitPromptError' || name === 'AbortPromptError') return new InterruptedError('Aborted at the prompt: nothing was sent.')
  return err as Error
}

export function terminalPrompter(io: IOStreams, note: (text: string) => void): Prompter {
  const interactive = io.stdinIsTTY && io.stderrIsTTY
  return {
    interactive,
    note,
    async confirm(message) {
      if (!interactive) return false
      const {confirm} = await import('@inquirer/prompts')
      try {
        return await confirm({message, default: false, theme}, {input: io.stdin, output: io.stderr})
      } catch (err) {
        throw aborted(err)
      }
    },
    async input(message) {
      if (!interactive) return ''
      const {input} = await import('@inquirer/prompts')
      try {
        return await input({message, theme}, {input: io.stdin, output: io.stderr})
      } catch (err) {
        throw aborted(err)
      }
    },
  }
}
