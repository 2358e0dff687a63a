/**
 * The bundled entry of bin/run.js: oclif's runner, from the same bundle as the commands.
 *
 * Before oclif dispatches, global flags given before the command (`payops -p prod subaccounts get
 * ID`) are moved after it, since oclif takes the first words of the line as the command id.
 */
import {flush, handle, run} from '@oclif/core'

/** How a global flag is written: its name, its one-letter form and whether it takes a value. */
export interface GlobalFlag {
  name: string
  char?: string
  aliases?: string[]
  charAliases?: string[]
  type: 'boolean' | 'option'
}

/** Flags that never move: help and version are answered by oclif wherever they are. */
const LEAVE_ALONE = new Set(['--help', '-h', '--version'])

/**
 * Moves the global flags that come before the command (with their values) to just after the
 * command's words, so that oclif finds the command id first. A leading flag that is not global,
 * or a value-taking flag without its value, is a usage error (thrown as an Error with a message).
 */
export function hoistGlobalFlags(argv: string[], flags: Record<string, GlobalFlag>): string[] {
  if (argv.length === 0 || !argv[0].startsWith('-') || argv[0] === '-' || LEAVE_ALONE.has(argv[0])) return argv
  const defs = Object.entries(flags).map(([name, f]) => ({...f, name}))
  const byLong = (n: string) => defs.find((f) => f.name === n || f.aliases?.includes(n))
  const byChar = (c: string) => defs.find((f) => f.char === c || f.charAliases?.includes(c))
  const moved: string[] = []
  let i = 0
  while (i < argv.length && argv[i].startsWith('-') && argv[i] !== '-') {
    const token = argv[i]
    if (LEAVE_ALONE.has(token)) return argv
    if (token === '--') throw new Error('Expected a command before "--".')
    let def: GlobalFlag | undefined
    let inline = false
    if (token.startsWith('--')) {
      const eq = token.indexOf('=')
      def = byLong(eq === -1 ? token.slice(2) : token.slice(2, eq))
      inline = eq !== -1
    } else {
      def = byChar(token[1])
      inline = token.length > 2
      // `-yX`: combined one-letter flags are not taken before the command.
      if (def && inline && def.type === 'boolean') def = undefined
    }
    if (!def) throw new Error(`Unknown flag ${token} before the command: only global flags may come first.`)
    moved.push(token)
    i++
    if (def.type === 'option' && !inline) {
      const value = argv[i]
      if (value === undefined || (value.startsWith('-') && value !== '-')) throw new Error(`Flag ${token} needs a value.`)
      moved.push(value)
      i++
    }
  }
  const rest = argv.slice(i)
  if (rest.length === 0) throw new Error(`Give a command after ${moved.join(' ')}.`)
  // After the command's words (and any plain arguments), before its first flag or `--`.
  let at = 0
  while (at < rest.length && !(rest[at].startsWith('-') && rest[at] !== '-')) at++
  return [...rest.slice(0, at), ...moved, ...rest.slice(at)]
}

async function dispatchArgv(argv: string[]): Promise<string[] | undefined> {
  if (!argv[0]?.startsWith('-') || LEAVE_ALONE.has(argv[0])) return argv
  const {ApiCommand} = await import('./base-command.js')
  try {
    return hoistGlobalFlags(argv, ApiCommand.baseFlags as unknown as Record<string, GlobalFlag>)
  } catch (error) {
    const {reportUsageError} = await import('./hooks/command-not-found.js')
    reportUsageError(`${(error as Error).message} See payops --help.`, argv)
    return undefined
  }
}

/** Runs the CLI (what `execute` from @oclif/core does, with global flags moved first). */
export async function execute(options: {dir: string}): Promise<void> {
  try {
    const argv = await dispatchArgv(process.argv.slice(2))
    if (!argv) return
    await run(argv, options.dir)
    // As oclif's execute does: not awaited, so that a closed stdout (`| head`) does not hang the exit.
    flush().catch(() => undefined)
  } catch (error) {
    // 127 ("command not found" in some plugins) is not a payops exit code: it is a usage error.
    const oclif = (error as {oclif?: {exit?: number}}).oclif
    if (oclif?.exit === 127) oclif.exit = 2
    await handle(error as Error)
  }
}
