/** The terminal prompter (@inquirer/prompts on stderr); none without a terminal. */
import type {Prompter} from '../movements/types.js'
import type {IOStreams} from './index.js'

export function terminalPrompter(io: IOStreams, note: (text: string) => void): Prompter {
  const interactive = io.stdinIsTTY && io.stderrIsTTY
  return {
    interactive,
    note,
    async confirm(message) {
      if (!interactive) return false
      const {confirm} = await import('@inquirer/prompts')
      try {
        return await confirm({message, default: false}, {input: io.stdin, output: io.stderr})
      } catch {
        return false
      }
    },
    async input(message) {
      if (!interactive) return ''
      const {input} = await import('@inquirer/prompts')
      try {
        return await input({message}, {input: io.stdin, output: io.stderr})
      } catch {
        return ''
      }
    },
  }
}
