/**
 * No import circle anywhere under src or in the emulator package: every relative import (`import
 * type` and `export … from` included, static or dynamic) is an edge, and the graph must have no
 * cycle. And no edge between the two, by path or by name: the CLI imports nothing of the emulator
 * package (it runs the emulator's command line as a child process and meets it over HTTP).
 */
import {readFileSync, readdirSync} from 'node:fs'
import {dirname, join, relative, resolve} from 'node:path'
import {fileURLToPath} from 'node:url'
import {describe, expect, it} from 'vitest'

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..')
const SRC = join(ROOT, 'src')
const PACKAGE = join(ROOT, 'packages', 'emulator', 'src')

/**
 * Cycles outside the emulator that other work is removing, each as its files in cycle order
 * starting from the alphabetically first. Remove an entry once its cycle is gone (the test fails
 * on an entry that no longer matches, so the list cannot go stale).
 */
const ALLOWED_CYCLES: string[][] = []

function tsFiles(dir: string): string[] {
  const out: string[] = []
  for (const ent of readdirSync(dir, {withFileTypes: true})) {
    const p = join(dir, ent.name)
    if (ent.isDirectory()) out.push(...tsFiles(p))
    else if (ent.name.endsWith('.ts') && !ent.name.endsWith('.d.ts')) out.push(p)
  }
  return out
}

// `from '…'` (import, import type, export … from) and `import('…')`; comments are stripped first.
const SPECIFIER = /\bfrom\s*['"]([^'"]+)['"]|\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)|^\s*import\s*['"]([^'"]+)['"]/gm

function stripComments(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`\\])\/\/.*$/gm, '$1')
}

function resolveImport(from: string, spec: string, known: Set<string>): string | undefined {
  if (!spec.startsWith('.')) return undefined
  const base = resolve(dirname(from), spec)
  const candidates = [base.replace(/\.js$/, '.ts'), `${base}.ts`, join(base, 'index.ts'), join(base.replace(/\.js$/, ''), 'index.ts')]
  return candidates.find((c) => known.has(c))
}

export function importGraph(files: string[]): Map<string, string[]> {
  const known = new Set(files)
  const graph = new Map<string, string[]>()
  for (const f of files) {
    const edges = new Set<string>()
    for (const m of stripComments(readFileSync(f, 'utf8')).matchAll(SPECIFIER)) {
      const target = resolveImport(f, m[1] ?? m[2] ?? m[3], known)
      if (target) edges.add(target)
    }
    graph.set(f, [...edges])
  }
  return graph
}

/** Every elementary cycle reachable by depth-first search, each rotated to start at its smallest file. */
export function findCycles(graph: Map<string, string[]>): string[][] {
  const seen = new Map<string, string[]>()
  const state = new Map<string, 'active' | 'done'>()
  const stack: string[] = []
  const visit = (n: string) => {
    state.set(n, 'active')
    stack.push(n)
    for (const m of graph.get(n) ?? []) {
      if (state.get(m) === 'active') {
        const cycle = stack.slice(stack.indexOf(m))
        const start = cycle.indexOf([...cycle].sort()[0])
        const rotated = [...cycle.slice(start), ...cycle.slice(0, start)]
        seen.set(rotated.join(' -> '), rotated)
      } else if (!state.has(m)) {
        visit(m)
      }
    }
    stack.pop()
    state.set(n, 'done')
  }
  for (const n of [...graph.keys()].sort()) if (!state.has(n)) visit(n)
  return [...seen.values()]
}

describe('import graph of src and of the emulator package', () => {
  const files = [...tsFiles(SRC), ...tsFiles(PACKAGE)]
  const graph = importGraph(files)
  const cycles = findCycles(graph).map((c) => c.map((f) => relative(ROOT, f)))
  const key = (c: string[]) => c.join(' -> ')
  const allowed = new Set(ALLOWED_CYCLES.map(key))

  it('reads the sources and their relative imports', () => {
    expect(files.length).toBeGreaterThan(50)
    expect(graph.get(join(PACKAGE, 'index.ts'))?.length).toBeGreaterThan(3)
  })

  it('has no import cycle (outside the commented allow-list)', () => {
    expect(cycles.filter((c) => !allowed.has(key(c))).map(key)).toEqual([])
  })

  it('has no cycle at all in the emulator package', () => {
    expect(cycles.filter((c) => c.some((f) => f.startsWith('packages/emulator/'))).map(key)).toEqual([])
  })

  it('has no import between the CLI and the emulator package by path, either way', () => {
    const inPackage = (f: string) => f.startsWith(PACKAGE)
    const crossing = [...graph].flatMap(([from, to]) => to.filter((t) => inPackage(from) !== inPackage(t)).map((t) => `${relative(ROOT, from)} -> ${relative(ROOT, t)}`))
    expect(crossing).toEqual([])
  })

  it('has no import of the emulator package by name in the CLI: no @payops/emulator, no file of packages/', () => {
    // Every specifier of every file under src, comments stripped (a path to packages/ would be a crossing too).
    const named = tsFiles(SRC).flatMap((f) =>
      [...stripComments(readFileSync(f, 'utf8')).matchAll(SPECIFIER)]
        .map((m) => m[1] ?? m[2] ?? m[3])
        .filter((spec) => spec.startsWith('@payops/emulator') || /(^|\/)packages\//.test(spec) || (spec.startsWith('.') && resolve(dirname(f), spec).startsWith(join(ROOT, 'packages'))))
        .map((spec) => `${relative(ROOT, f)}: ${spec}`),
    )
    expect(named).toEqual([])
  })

  it('lets the emulator package import only Node, its own files and its declared dependencies', () => {
    const declared = new Set(Object.keys((JSON.parse(readFileSync(join(PACKAGE, '..', 'package.json'), 'utf8')) as {dependencies: Record<string, string>}).dependencies))
    // Statements only (an import or export … from, a dynamic import): not the word "from" in a message.
    const statement = /^\s*(?:import|export)\b[^'"]*?\bfrom\s*['"]([^'"]+)['"]|\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)|^\s*import\s*['"]([^'"]+)['"]/gm
    const outside = tsFiles(PACKAGE).flatMap((f) =>
      [...stripComments(readFileSync(f, 'utf8')).matchAll(statement)]
        .map((m) => m[1] ?? m[2] ?? m[3])
        .filter((spec) => !spec.startsWith('.') && !spec.startsWith('node:') && !declared.has(spec.split('/')[0]))
        .map((spec) => `${relative(ROOT, f)}: ${spec}`),
    )
    expect(outside).toEqual([])
  })

  it('keeps the allow-list current', () => {
    const found = new Set(cycles.map(key))
    expect(ALLOWED_CYCLES.map(key).filter((k) => !found.has(k))).toEqual([])
  })

  it('finds a cycle when there is one', () => {
    const g = new Map([
      ['a', ['b']],
      ['b', ['c']],
      ['c', ['a']],
      ['d', ['a']],
    ])
    expect(findCycles(g)).toEqual([['a', 'b', 'c']])
  })
})
