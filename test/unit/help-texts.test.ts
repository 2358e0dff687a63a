/**
 * Every command's help reads as an operator needs it (issue 28): a one-line summary that fits a
 * terminal line, a description that fits a screen, and examples that run when pasted — each
 * example is split as a POSIX shell splits it (a shell would run backticks or `$(…)`, so none may
 * be there unquoted or in double quotes), and every `payops` command in it goes through oclif's
 * parser with that command's flags and arguments. The commands are the built bundle's.
 */
import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {pathToFileURL} from 'node:url'
import {parse} from '@oclif/core/parser'
import {describe, expect, it} from 'vitest'
import {oneValueEach} from '../../src/flags.js'
import {ROOT} from '../support/index.js'

interface ManifestCommand {
  id: string
  summary?: string
  description?: string
  examples?: Array<string | {description: string; command: string}>
  relativePath: string[]
}
const manifest = JSON.parse(readFileSync(join(ROOT, 'oclif.manifest.json'), 'utf8')) as {commands: Record<string, ManifestCommand>}
const commands = Object.values(manifest.commands)
const ids = new Set(commands.map((c) => c.id))
/** Every id and every topic (an id's leading words). */
const prefixes = new Set(commands.flatMap((c) => c.id.split(':').map((_, i, parts) => parts.slice(0, i + 1).join(':'))))

/** The screen: 80 columns (help indents by two), 24 lines. */
const WIDTH = 78
const SCREEN = 24

/** How many lines `text` takes, each line word-wrapped at `width`. */
export function wrappedLines(text: string, width: number): number {
  return text.split('\n').reduce((n, line) => {
    let lines = 1
    let used = 0
    for (const word of line.split(/ +/).filter(Boolean)) {
      if (used > 0 && used + 1 + word.length > width) {
        lines++
        used = word.length
      } else used += (used ? 1 : 0) + word.length
    }
    return n + lines
  }, 0)
}

/**
 * The commands of a shell line, each as its words: quotes removed, `|`, `&&`, `||` and `;`
 * between commands, redirections dropped. Throws on what a shell would execute while reading the
 * line: backticks or `$(` outside single quotes.
 */
export function shellCommands(line: string): string[][] {
  const out: string[][] = [[]]
  let word: string | undefined
  const end = () => {
    if (word !== undefined) out[out.length - 1].push(word)
    word = undefined
  }
  for (let i = 0; i < line.length; i++) {
    const c = line[i]
    if (c === "'") {
      const close = line.indexOf("'", i + 1)
      if (close < 0) throw new Error(`unterminated ' in: ${line}`)
      word = (word ?? '') + line.slice(i + 1, close)
      i = close
    } else if (c === '"') {
      let j = i + 1
      let text = ''
      for (; j < line.length && line[j] !== '"'; j++) {
        if (line[j] === '\\' && j + 1 < line.length) text += line[++j]
        else if (line[j] === '`' || (line[j] === '$' && line[j + 1] === '(')) throw new Error(`a shell runs ${line[j] === '`' ? 'backticks' : '$(…)'} inside double quotes: ${line}`)
        else text += line[j]
      }
      if (j >= line.length) throw new Error(`unterminated " in: ${line}`)
      word = (word ?? '') + text
      i = j
    } else if (c === '\\' && i + 1 < line.length) {
      word = (word ?? '') + line[++i]
    } else if (c === '`' || (c === '$' && line[i + 1] === '(')) {
      throw new Error(`a shell runs ${c === '`' ? 'backticks' : '$(…)'}: ${line}`)
    } else if (c === '#' && word === undefined) {
      // A comment, to the end of the line.
      break
    } else if (/\s/.test(c)) {
      end()
    } else if (c === '|' || c === ';' || (c === '&' && line[i + 1] === '&')) {
      end()
      if (line[i + 1] === c) i++
      out.push([])
    } else if (c === '<' || c === '>') {
      end()
      // The redirection's target is not an argument (`>`, `>>`, `2>&1` alike).
      while (line[i + 1] === '>' || line[i + 1] === '&') i++
      while (line[i + 1] === ' ') i++
      let j = i + 1
      while (j < line.length && !/\s/.test(line[j])) j++
      i = j - 1
    } else {
      word = (word ?? '') + c
    }
  }
  end()
  return out.filter((words) => words.length > 0)
}

/** The payops invocations of an example line (after any VAR=value prefix), without the `payops`. */
function payopsInvocations(example: string): string[][] {
  return shellCommands(example.replace(/<%= config\.bin %>/g, 'payops'))
    .map((words) => words.slice(words.findIndex((w) => !/^[A-Za-z_][A-Za-z0-9_]*=/.test(w))))
    .filter((words) => words[0] === 'payops')
    .map((words) => words.slice(1))
}

type CommandClass = {
  flags?: Record<string, unknown>
  baseFlags?: Record<string, unknown>
  args?: Record<string, unknown>
  strict?: boolean
  restArgs?: boolean
}
const classes = new Map<string, CommandClass>()
async function classOf(id: string): Promise<CommandClass> {
  if (!classes.has(id)) {
    const c = manifest.commands[id]
    classes.set(id, (await import(pathToFileURL(join(ROOT, ...c.relativePath)).href)).default as CommandClass)
  }
  return classes.get(id)!
}

/** Parses one invocation's words as oclif does for that command (global flags before the topic moved after it). */
async function parseInvocation(words: string[]): Promise<string> {
  const {hoistGlobalFlags} = await import(pathToFileURL(join(ROOT, 'dist/entry.js')).href)
  const {ApiCommand} = (await import('../../src/base-command.js')) as unknown as {ApiCommand: {baseFlags: Record<string, never>}}
  const line = words[0]?.startsWith('-') ? (hoistGlobalFlags(words, ApiCommand.baseFlags) as string[]) : words
  let n = 0
  while (n < line.length && prefixes.has(line.slice(0, n + 1).join(':'))) n++
  // The longest run of words that is a command id (a topic's words alone are not one).
  while (n > 0 && !ids.has(line.slice(0, n).join(':'))) n--
  const id = line.slice(0, n).join(':')
  if (!id) throw new Error(`no payops command in: payops ${words.join(' ')}`)
  const ctor = await classOf(id)
  await parse(line.slice(n), {
    // As oclif's Command#parse does: the global flags with the command's own.
    flags: oneValueEach({...ctor.baseFlags, ...ctor.flags}) as never,
    args: (ctor.args ?? {}) as never,
    strict: ctor.strict !== false && !ctor.restArgs,
  })
  return id
}

describe('the example checker itself', () => {
  it('splits a line as a shell does, and refuses what a shell would run', () => {
    expect(shellCommands(`echo '{"name":"Ops"}' | payops api POST /x --input -`)).toEqual([['echo', '{"name":"Ops"}'], ['payops', 'api', 'POST', '/x', '--input', '-']])
    expect(shellCommands(`payops a --query '[?x==\`1\`]' > out.json`)).toEqual([['payops', 'a', '--query', '[?x==`1`]']])
    expect(shellCommands(`A="$B" payops x --s "two words"`)).toEqual([['A=$B', 'payops', 'x', '--s', 'two words']])
    expect(shellCommands('payops x -o json   # phase 1: a#b')).toEqual([['payops', 'x', '-o', 'json']])
    // The audit list example that ran `400` as a command when pasted.
    expect(() => shellCommands('payops audit list -o json --query "[?kind==\'outcome\' && status>=`400`]"')).toThrow(/backticks/)
    expect(() => shellCommands('payops x --y $(cat f)')).toThrow(/\$\(/)
  })

  it('a flag the command does not have, or a missing value, fails the parse', async () => {
    await expect(parseInvocation(['moves', 'create', '--from', 'A', '--to', 'B', '--amount', '1', '--nope'])).rejects.toThrow(/--nope/)
    await expect(parseInvocation(['subaccounts', 'get'])).rejects.toThrow(/Missing 1 required arg/)
    await expect(parseInvocation(['-p', 'prod', 'subaccounts', 'get', 'ID'])).resolves.toBe('subaccounts:get')
  })
})

describe('every command\'s help', () => {
  it.each(commands.map((c) => [c.id, c] as const))('%s: a one-line summary that fits a line', (_id, c) => {
    expect(c.summary, 'a summary').toBeTruthy()
    expect(c.summary).not.toMatch(/\n/)
    expect(c.summary!.length, c.summary).toBeLessThanOrEqual(80)
  })

  it.each(commands.map((c) => [c.id, c] as const))('%s: a description that fits a screen', (_id, c) => {
    expect(wrappedLines(c.description ?? '', WIDTH), c.description).toBeLessThanOrEqual(SCREEN)
  })

  it.each(commands.map((c) => [c.id, c] as const))('%s: examples that run when pasted', async (id, c) => {
    expect(c.examples?.length ?? 0, 'at least one example').toBeGreaterThan(0)
    for (const given of c.examples ?? []) {
      const example = typeof given === 'string' ? given : given.command
      const invocations = payopsInvocations(example)
      expect(invocations.length, example).toBeGreaterThan(0)
      const parsed: string[] = []
      for (const words of invocations) parsed.push(await parseInvocation(words).catch((err: Error) => Promise.reject(new Error(`${example}\n  -> ${err.message}`))))
      // Each example shows its own command (a pipe may feed it from another).
      expect(parsed, example).toContain(id)
    }
  })
})
