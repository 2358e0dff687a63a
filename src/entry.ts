/**
 * The bundled entry of bin/run.js: oclif's runner, from the same bundle as the commands.
 *
 * Before oclif dispatches, global flags given before the command (`payops -p prod subaccounts get
 * ID`) are moved after it, since oclif takes the first words of the line as the command id.
 *
 * A line that names one of payops' own commands (and asks for no help) is handed to that command's
 * class directly (own-command.ts), without oclif's Config: oclif's Config, its plugins (help,
 * autocomplete) and Help are loaded only for the lines that need them (help, `--help`, a topic, a
 * typo), which go through oclif's `run` as before (oclif-run.ts). The command ids and files come
 * from `dist/command-table.json`, written by scripts/build.mjs from the oclif manifests.
 */
import {flush} from '@oclif/core/flush'
import {Exit, handle} from '@oclif/core/handle'
import {settings} from '@oclif/core/settings'
import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'
import {host, runWithHost, type Host} from './context/host.js'

export {guestHost, type Host} from './context/host.js'

// payops runs its built bundle, always: oclif would otherwise map dist/ to src/ and load the TypeScript
// sources when NODE_ENV is development or test and a TypeScript compiler is installed.
settings.enableAutoTranspile = false

// oclif's error handler ends the run through this (its documented stub point): the host decides
// how (the process exits; an in-process run records the code).
Exit.exit = (code = 0): never => {
  host().exitNow(code)
  return undefined as never
}

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
 * The global flag `argv[i]` is (with its value, when it takes one), as the tokens it spans, or
 * undefined when `argv[i]` is not a global flag. A value-taking flag without its value is a usage
 * error (thrown as an Error with a message).
 */
function globalFlagAt(argv: string[], i: number, flags: Record<string, GlobalFlag>): string[] | undefined {
  const token = argv[i]
  const defs = Object.entries(flags).map(([name, f]) => ({...f, name}))
  let def: GlobalFlag | undefined
  let inline = false
  if (token.startsWith('--')) {
    const eq = token.indexOf('=')
    const name = eq === -1 ? token.slice(2) : token.slice(2, eq)
    def = defs.find((f) => f.name === name || f.aliases?.includes(name))
    inline = eq !== -1
  } else {
    def = defs.find((f) => f.char === token[1] || f.charAliases?.includes(token[1]))
    inline = token.length > 2
    // `-yX`: combined one-letter flags are not taken before the command.
    if (def && inline && def.type === 'boolean') def = undefined
  }
  if (!def) return undefined
  if (def.type === 'boolean' || inline) return [token]
  const value = argv[i + 1]
  if (value === undefined || (value.startsWith('-') && value !== '-')) throw new Error(`Flag ${token} needs a value.`)
  return [token, value]
}

const isFlag = (token: string) => token.startsWith('-') && token !== '-'

/**
 * Moves the global flags that come before the command (with their values) to just after the
 * command's words, so that oclif finds the command id first. A leading flag that is not global,
 * or a value-taking flag without its value, is a usage error (thrown as an Error with a message).
 */
export function hoistGlobalFlags(argv: string[], flags: Record<string, GlobalFlag>): string[] {
  if (argv.length === 0 || !argv[0].startsWith('-') || argv[0] === '-' || LEAVE_ALONE.has(argv[0])) return argv
  const moved: string[] = []
  let i = 0
  while (i < argv.length && isFlag(argv[i])) {
    const token = argv[i]
    if (LEAVE_ALONE.has(token)) return argv
    if (token === '--') throw new Error('Expected a command before "--".')
    const span = globalFlagAt(argv, i, flags)
    if (!span) throw new Error(`Unknown flag ${token} before the command: only global flags may come first.`)
    moved.push(...span)
    i += span.length
  }
  const rest = argv.slice(i)
  if (rest.length === 0) throw new Error(`Give a command after ${moved.join(' ')}.`)
  // After the command's words (and any plain arguments), before its first flag or `--`.
  let at = 0
  while (at < rest.length && !isFlag(rest[at])) at++
  return [...rest.slice(0, at), ...moved, ...rest.slice(at)]
}

/** Help and version flags: oclif answers them wherever they are. */
const leftToOclif = (token: string, table: CommandTable) => LEAVE_ALONE.has(token) || table.helpFlags.includes(token) || table.versionFlags.includes(token)

/** Every id and id prefix (topic) of the table, as `a:b`. */
function usableIds(table: CommandTable): Set<string> {
  const usable = new Set<string>()
  for (const id of Object.keys(table.commands)) {
    const parts = id.split(':')
    for (let i = 1; i <= parts.length; i++) usable.add(parts.slice(0, i).join(':'))
  }
  return usable
}

/**
 * Moves the global flags written between a topic's words and its command (`payops moves -p emu
 * create ...`, `payops subaccounts -o json get ID`) to just after the command's words, as
 * gh and the Stripe CLI take them. A flag that follows a topic's words (not a command's) and is
 * not followed by the rest of a command is a usage error: the line would otherwise print the
 * topic's help and exit 0, running nothing. Help flags and `--` are left to oclif.
 */
export function hoistTopicFlags(argv: string[], flags: Record<string, GlobalFlag>, table: CommandTable): string[] {
  const usable = usableIds(table)
  const words: string[] = []
  const moved: string[] = []
  let i = 0
  while (i < argv.length) {
    const token = argv[i]
    if (!isFlag(token)) {
      const id = [...words, token].join(':')
      if (!usable.has(id)) break
      words.push(token)
      i++
      continue
    }
    if (words.length === 0 || token === '--' || leftToOclif(token, table)) break
    const id = words.join(':')
    // Flags after a whole command are the command's to parse.
    const topicOnly = !table.commands[id]
    let j = i
    const run: string[] = []
    for (let span = globalFlagAt(argv, j, flags); span; span = j < argv.length && isFlag(argv[j]) ? globalFlagAt(argv, j, flags) : undefined) {
      run.push(...span)
      j += span.length
    }
    const next = argv[j]
    const extends_ = next !== undefined && !isFlag(next) && usable.has([...words, next].join(':'))
    if (run.length > 0 && extends_) {
      moved.push(...run)
      i = j
      continue
    }
    if (!topicOnly) break
    if (next !== undefined && leftToOclif(next, table)) break
    const shown = words.join(' ')
    if (run.length === 0) throw new Error(`Unknown flag ${argv[j]} after "${shown}": give the command first (payops ${shown} COMMAND ...).`)
    if (next === undefined || isFlag(next)) throw new Error(`Give a command after ${shown} ${run.join(' ')} (payops ${shown} COMMAND ...).`)
    // A mistyped command: oclif's typo hook names it (exit 2), with the flags out of its way.
    moved.push(...run)
    i = j
    break
  }
  if (moved.length === 0) return argv
  let at = i
  while (at < argv.length && !isFlag(argv[at])) at++
  return [...words, ...argv.slice(i, at), ...moved, ...argv.slice(at)]
}

/**
 * The line with its global flags moved after the command's words (those before the topic, and
 * those between a topic's words and its command), or undefined when the line is a usage error
 * (reported, exit code set).
 */
async function dispatchArgv(argv: string[], table: CommandTable | undefined): Promise<string[] | undefined> {
  const leading = argv[0]?.startsWith('-') && !LEAVE_ALONE.has(argv[0])
  const inner = table !== undefined && argv.length > 1 && !argv[0].startsWith('-') && argv.some((a) => isFlag(a))
  if (!leading && !inner) return argv
  const {ApiCommand} = await import('./base-command.js')
  const flags = ApiCommand.baseFlags as unknown as Record<string, GlobalFlag>
  try {
    const hoisted = leading ? hoistGlobalFlags(argv, flags) : argv
    return table ? hoistTopicFlags(hoisted, flags, table) : hoisted
  } catch (error) {
    const {reportUsageError} = await import('./hooks/command-not-found.js')
    reportUsageError(`${(error as Error).message} See payops --help.`, argv)
    return undefined
  }
}

/** `dist/command-table.json`: every command id (payops' and its plugins') and what it takes. */
export interface CommandTable {
  /** id -> [is one of payops' own commands, takes positional arguments, its built file (own commands)]. */
  commands: Record<string, [own: boolean, takesArgs: boolean, file?: string]>
  /** oclif's help flags (`--help` and the `additionalHelpFlags`). */
  helpFlags: string[]
  /** oclif's version flags (`--version` and the `additionalVersionFlags`). */
  versionFlags: string[]
}

/**
 * The command id oclif would take from the line, and the rest of the line: the same walk as
 * oclif's `collateSpacedCmdIDFromArgs` (topic separator ' '), on the table's ids.
 */
export function commandIdFromArgv(argv: string[], table: CommandTable): {id: string; rest: string[]} {
  if (argv.length === 0) return {id: '', rest: []}
  if (argv.length === 1 || argv[0].includes(':')) return {id: argv[0], rest: argv.slice(1)}
  const usable = usableIds(table)
  const words: string[] = []
  const idOf = (more?: string) => (more ? [...words, more] : words).filter(Boolean).join(':')
  for (const arg of argv) {
    if (usable.has(idOf(arg))) words.push(arg)
    else if (arg.includes('=') || arg.startsWith('-') || Boolean(table.commands[idOf()]?.[1])) break
    else words.push(arg)
  }
  const id = idOf()
  return id ? {id, rest: argv.slice(id.split(':').length)} : {id: argv[0], rest: argv.slice(1)}
}

/** Whether oclif's `run` would answer the line with help or the version instead of a command. */
function wantsHelpOrVersion(argv: string[], table: CommandTable): boolean {
  if (argv.length === 0 || table.versionFlags.includes(argv[0])) return true
  for (const arg of argv) {
    if (arg === '--') return false
    if (table.helpFlags.includes(arg)) return true
  }
  return false
}

function readTable(dir: string): CommandTable | undefined {
  try {
    return JSON.parse(readFileSync(join(dir, 'command-table.json'), 'utf8')) as CommandTable
  } catch {
    return undefined
  }
}

/**
 * Runs one of payops' own commands (without oclif's Config: see own-command.ts) when the line names
 * one; returns false (having done nothing) for every other line.
 */
async function runOwn(argv: string[], root: string, table: CommandTable | undefined): Promise<boolean> {
  if (!table || wantsHelpOrVersion(argv, table)) return false
  const {id, rest} = commandIdFromArgv(argv, table)
  const [own, , file] = table.commands[id] ?? []
  if (!own || !file) return false
  const {runOwnCommand} = await import('./own-command.js')
  await runOwnCommand(id, file, rest, root)
  return true
}

/** Runs the CLI (what `execute` from @oclif/core does, with global flags moved first). */
export async function execute(options: {dir: string}): Promise<void> {
  await runCommandLine(host().argv, options.dir)
}

/**
 * Runs one command line in this process with `h` as its host (streams, environment, terminal,
 * clock, signals, exit code): the same dispatch `execute` takes. `dir` is bin/run.js's URL.
 */
export function runInHost(h: Host, dir: string): Promise<void> {
  return runWithHost(h, () => runCommandLine(h.argv, dir))
}

async function runCommandLine(args: string[], dir: string): Promise<void> {
  const options = {dir}
  // Shell completion answers before any parsing: its words are a line still being typed.
  if (args[0] === '__complete') {
    const {runCompletion} = await import('./completion/main.js')
    runCompletion(args.slice(1), join(fileURLToPath(new URL('.', dir)), '..'))
    return
  }
  try {
    const root = join(fileURLToPath(new URL('.', options.dir)), '..')
    const table = readTable(join(root, 'dist'))
    const argv = await dispatchArgv(args, table)
    if (!argv) return
    // oclif's runner is given the package's root: it would otherwise look for it from bin/run.js, and
    // bin/package.json (which makes bin/run.js CommonJS) is not payops' package.json.
    if (!(await runOwn(argv, root, table))) await (await import('./oclif-run.js')).run(argv, root)
    // As oclif's execute does: not awaited, so that a closed stdout (`| head`) does not hang the exit.
    flush().catch(() => undefined)
  } catch (error) {
    // 127 ("command not found" in some plugins) is not a payops exit code: it is a usage error.
    const oclif = (error as {oclif?: {exit?: number}}).oclif
    if (oclif?.exit === 127) oclif.exit = 2
    await handle(error as Error)
  }
}
