/**
 * What the completer knows of the command line's grammar: every command with its flags and
 * positional arguments, and the topics. Read from dist/completion.json, which the build writes from
 * oclif.manifest.json (the commands' ids, first summary lines, arguments and visible flags: a tenth
 * of the manifest), the plugins' commands and package.json's topics, so that completion never
 * loads oclif and never drifts from the commands themselves.
 */
import {readFileSync} from 'node:fs'
import {join} from 'node:path'

export interface FlagSpec {
  name: string
  char?: string
  /** Takes a value (`--from ID`); a boolean otherwise. */
  takesValue: boolean
  /** A boolean that also has a `--no-` form (`--no-auto-approve`). */
  allowNo: boolean
  multiple: boolean
  options?: string[]
  summary?: string
  aliases: string[]
  /** One of the global flags (accepted before the command too). */
  global: boolean
}

export interface CommandSpec {
  /** `moves:approve` */
  id: string
  summary?: string
  hidden: boolean
  /** Positional arguments in order. */
  args: Array<{name: string; options?: string[]; description?: string}>
  /** The last argument repeats (`moves approve ID...`). */
  variadic: boolean
  flags: FlagSpec[]
}

export interface Spec {
  commands: Map<string, CommandSpec>
  /** Topic (`treasury:accounts`) -> description. */
  topics: Map<string, string>
}

interface ManifestFlag {
  name: string
  char?: string
  type: 'boolean' | 'option'
  allowNo?: boolean
  multiple?: boolean
  options?: string[]
  summary?: string
  description?: string
  hidden?: boolean
  aliases?: string[]
  helpGroup?: string
}

interface ManifestCommand {
  id: string
  summary?: string
  description?: string
  hidden?: boolean
  strict?: boolean
  args?: Record<string, {name: string; options?: string[]; description?: string}>
  flags?: Record<string, ManifestFlag>
}

const firstLine = (s: string | undefined) => s?.split('\n')[0]

/** The spec from an oclif manifest's commands, package.json's topics and other commands' ids. */
export function specFrom(manifest: Record<string, ManifestCommand>, topics: Record<string, {description?: string}>, otherIds: string[] = []): Spec {
  const commands = new Map<string, CommandSpec>()
  for (const id of otherIds) commands.set(id, {id, hidden: false, args: [], variadic: false, flags: []})
  for (const [id, c] of Object.entries(manifest)) {
    commands.set(id, {
      id,
      summary: firstLine(c.summary ?? c.description),
      hidden: Boolean(c.hidden),
      args: Object.values(c.args ?? {}).map((a) => ({name: a.name, options: a.options, description: a.description})),
      variadic: c.strict === false,
      flags: Object.values(c.flags ?? {})
        .filter((f) => !f.hidden)
        .map((f) => ({
          name: f.name,
          char: f.char,
          takesValue: f.type === 'option',
          allowNo: Boolean(f.allowNo),
          multiple: Boolean(f.multiple),
          options: f.options,
          summary: firstLine(f.summary ?? f.description),
          aliases: f.aliases ?? [],
          global: f.helpGroup === 'GLOBAL',
        })),
    })
  }
  const topicMap = new Map<string, string>()
  for (const [name, t] of Object.entries(topics)) topicMap.set(name, t.description ?? '')
  // Every prefix of a command id is a topic too (a topic without a description in package.json).
  for (const id of commands.keys()) {
    const parts = id.split(':')
    for (let i = 1; i < parts.length; i++) {
      const t = parts.slice(0, i).join(':')
      if (!topicMap.has(t)) topicMap.set(t, '')
    }
  }
  return {commands, topics: topicMap}
}

/** The spec of the installed payops (`root` is the package's folder). */
export function loadSpec(root: string): Spec {
  const c = JSON.parse(readFileSync(join(root, 'dist', 'completion.json'), 'utf8')) as {
    commands: Record<string, ManifestCommand & {globalFlags: string[]}>
    globals: Record<string, ManifestFlag>
    topics: Record<string, {description?: string}>
    others: string[]
  }
  // Each command's global flags, written once in `globals`, with its own.
  const commands = Object.fromEntries(
    Object.entries(c.commands).map(([id, {globalFlags, ...command}]) => [id, {...command, flags: {...command.flags, ...Object.fromEntries(globalFlags.map((name) => [name, c.globals[name]]))}}]),
  )
  return specFrom(commands, c.topics, c.others)
}
