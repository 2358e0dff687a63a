/**
 * `pg` costs nothing to a command that does not reach a team store: no module imports it
 * statically (type-only imports are erased and do not count), only the PostgreSQL engine
 * (src/control/postgres.ts) loads it, when it connects, and every other module reaches that
 * engine through a dynamic import.
 */
import {readdirSync, readFileSync, statSync} from 'node:fs'
import {join, relative} from 'node:path'
import {describe, expect, it} from 'vitest'
import {ROOT} from '../support/index.js'

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n)
    return statSync(p).isDirectory() ? walk(p) : p.endsWith('.ts') ? [p] : []
  })
}

const sources = walk(join(ROOT, 'src')).map((p) => ({file: relative(ROOT, p), text: readFileSync(p, 'utf8')}))
/** Static, value-carrying imports of `spec` (`import type` is erased). */
const staticImport = (spec: RegExp) => new RegExp(String.raw`^\s*(?:import(?!\s+type\b)[^'"]*?from|export[^'"]*?from|import)\s*['"]${spec.source}['"]`, 'm')

describe('pg loads only when a team store is used', () => {
  it('no module imports pg statically; the PostgreSQL engine loads it when it connects', () => {
    expect(sources.filter((s) => staticImport(/pg/).test(s.text)).map((s) => s.file)).toEqual([])
    expect(sources.filter((s) => /import\(\s*['"]pg['"]\s*\)/.test(s.text)).map((s) => s.file)).toEqual(['src/control/postgres.ts'])
  })

  it('the engine is reached through dynamic imports only', () => {
    const statics = sources.filter((s) => staticImport(/(?:\.\.?\/)+(?:control\/)?postgres\.js/).test(s.text)).map((s) => s.file)
    const dynamics = sources.filter((s) => /import\(\s*['"](?:\.\.?\/)+(?:control\/)?postgres\.js['"]\s*\)/.test(s.text)).map((s) => s.file)
    expect(statics).toEqual([])
    expect(dynamics.length).toBeGreaterThan(0)
  })
})
