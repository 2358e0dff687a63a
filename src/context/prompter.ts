/**
 * The terminal prompter (@inquirer/prompts on stderr); none without a terminal. Every message and
 * every choice is shown through the one rule for text from outside (src/output/safe.ts): a name
 * in a question or a checkbox can neither forge a line nor hide one.
 */
import {InterruptedError} from '../errors.js'
import {terminalLine} from '../output/safe.js'
import type {HostPrompter} from './host.js'
import type {IOStreams, Prompter} from './index.js'

/** An answer is shown as given, without a tick: the guard decides whether it confirms. */
const theme = {prefix: {idle: '?', done: '›'}}

/** Ctrl-C (or a closed terminal) at a prompt: aborted, exit 130, nothing sent. */
function aborted(err: unknown): Error {
  const name = (err as Error)?.name
  if (name === 'ExitPromptError' || name === 'AbortPromptError') return new InterruptedError('Aborted at the prompt: nothing was sent.')
  return err as Error
}

/** Choices as shown: each name escaped, the values (what is acted on) exact. */
const shownChoices = (choices: Array<{value: string; name: string}>) => choices.map((c) => ({...c, name: terminalLine(c.name)}))

export function terminalPrompter(io: IOStreams, note: (text: string | readonly string[]) => void, scripted?: HostPrompter): Prompter {
  const interactive = io.stdinIsTTY && io.stderrIsTTY
  const ask = terminalPrompterOf(io, note, interactive, scripted)
  return {
    interactive,
    note,
    confirm: (m) => ask.confirm(terminalLine(m)),
    input: (m) => ask.input(terminalLine(m)),
    password: (m) => ask.password(terminalLine(m)),
    select: (m, c) => ask.select!(terminalLine(m), shownChoices(c)),
  }
}

/** The prompts themselves, handed messages already made safe. */
function terminalPrompterOf(io: IOStreams, note: (text: string | readonly string[]) => void, interactive: boolean, scripted?: HostPrompter): Prompter {
  if (scripted) {
    return {
      interactive,
      note,
      confirm: async (m) => interactive && (await scripted.confirm(m)),
      input: async (m) => (interactive ? scripted.input(m) : ''),
      password: async (m) => (interactive ? scripted.password(m) : ''),
      select: async (m, c) => (interactive ? scripted.select(m, c) : []),
    }
  }
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
    async select(message, choices) {
      if (!interactive) return []
      const {checkbox} = await import('@inquirer/prompts')
      try {
        return await checkbox({message, choices, theme, pageSize: 15}, {input: io.stdin, output: io.stderr})
      } catch (err) {
        throw aborted(err)
      }
    },
    async password(message) {
      if (!interactive) return ''
      const {password} = await import('@inquirer/prompts')
      try {
        return await password({message, mask: '*', theme}, {input: io.stdin, output: io.stderr})
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
