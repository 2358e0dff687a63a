/**
 * One shape for every command, checked on the sources so that it holds for the next one too: an
 * oclif class declares flags and arguments, turns them into a typed options object and hands it
 * to one `run…(opts, ctx)` function of its area, which does the work and renders through
 * src/output. And every API path is written in src/api/paths.ts only.
 */
import {readFileSync, readdirSync} from 'node:fs'
import {dirname, join, relative, resolve} from 'node:path'
import {fileURLToPath} from 'node:url'
import {describe, expect, it} from 'vitest'

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..')
const SRC = join(ROOT, 'src')
const COMMANDS = join(SRC, 'commands')

/**
 * Command folders being reshaped elsewhere at the moment; they join the check once that work is
 * merged (remove the entry then).
 */
const ELSEWHERE: string[] = []

/** Lines a command file may have: its flags, help texts and the translation to options. */
const FILE_BUDGET = 100
/** Lines the `run()` method of a command may have: flags to options, one call. */
const RUN_BUDGET = 30

/** What a command never reaches for itself: the API client, the renderer and its internals. */
const FORBIDDEN_IMPORTS = [/\/api\/client\.js$/, /\/api\/index\.js$/, /\/api\/transport\.js$/, /\/api\/paginate\.js$/, /\/output\//]
const FORBIDDEN_CALLS = [/\bthis\.api\(/, /\bthis\.out\b/, /\bctx\.out\b/, /\bctx\.api\(/, /\brenderList\(/, /\bfetch\(/, /\bJSON\.parse\(/]

function tsFiles(dir: string): string[] {
  const out: string[] = []
  for (const ent of readdirSync(dir, {withFileTypes: true})) {
    const p = join(dir, ent.name)
    if (ent.isDirectory()) out.push(...tsFiles(p))
    else if (ent.name.endsWith('.ts') && !ent.name.endsWith('.d.ts')) out.push(p)
  }
  return out
}

function stripComments(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`\\])\/\/.*$/gm, '$1')
}

const SPECIFIER = /\bfrom\s*['"]([^'"]+)['"]|\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/g

const commands = tsFiles(COMMANDS)
  .map((f) => relative(COMMANDS, f))
  .filter((f) => !ELSEWHERE.some((prefix) => f.startsWith(prefix)))
  .sort()

/** The body of `async run()`, as lines (empty when the class has none). */
function runBody(text: string): string[] {
  const lines = text.split('\n')
  const start = lines.findIndex((l) => /^ {2}(public )?async run\(\)/.test(l))
  if (start < 0) return []
  const end = lines.findIndex((l, i) => i > start && l === '  }')
  return lines.slice(start + 1, end)
}

describe('command shape', () => {
  it('finds the commands', () => {
    expect(commands.length).toBeGreaterThan(40)
  })

  it.each(commands)('%s: flags to options, one area call; no API client or renderer of its own', (file) => {
    const text = readFileSync(join(COMMANDS, file), 'utf8')
    const code = stripComments(text)
    const problems: string[] = []
    for (const m of code.matchAll(SPECIFIER)) {
      const spec = m[1] ?? m[2]
      if (FORBIDDEN_IMPORTS.some((re) => re.test(spec))) problems.push(`imports ${spec}: call the area's run function, which reaches the API and renders`)
    }
    for (const re of FORBIDDEN_CALLS) if (re.test(code)) problems.push(`uses ${re.source.replace(/\\b|\\/g, '')}: that belongs in the area's run function`)
    const lines = text.split('\n').length
    if (lines > FILE_BUDGET) problems.push(`${lines} lines (budget ${FILE_BUDGET})`)
    const body = runBody(text)
    if (body.length > RUN_BUDGET) problems.push(`run() has ${body.length} lines (budget ${RUN_BUDGET}): move the logic to the area`)
    expect(problems).toEqual([])
  })
})

describe('paths', () => {
  /** Where an API path may be written: the table itself, the prose of the assumptions, and the emulator (moving to its own package). */
  const ALLOWED = ['api/paths.ts', 'api/assumptions.ts']
  const sources = tsFiles(SRC)
    .map((f) => relative(SRC, f))
    .filter((f) => !f.startsWith('emulator/') && !ALLOWED.includes(f))

  it('every API path is written in src/api/paths.ts only', () => {
    // A string or template that is a path, or a method and a path ('POST /api/…').
    const literal = /['"`]((GET|POST|PATCH|PUT|DELETE) )?\/api\//
    const found = sources.filter((f) => literal.test(stripComments(readFileSync(join(SRC, f), 'utf8'))))
    expect(found).toEqual([])
  })
})
