/**
 * A one-shot read (`subaccounts get ID -o json`) loads no code it does not use: the static import
 * closure of the command, from its file through every value-carrying relative import, holds none
 * of the audit trail's writer and reader, the control store, the movement pipeline or the team's
 * book of names. They are reached through dynamic imports when a command needs them (the first
 * mutating request, an audit command, a confirmation, a team store bound).
 */
import {existsSync, readFileSync} from 'node:fs'
import {dirname, join, relative, resolve} from 'node:path'
import {describe, expect, it} from 'vitest'
import {ROOT} from '../support/index.js'

/** `from '…'` of imports and re-exports that carry values (`import type`/`export type` are erased). */
const STATIC = /^\s*(?:import|export)\s+(?!type\b)[^'";]*?from\s*['"](\.[^'"]+)['"]|^\s*import\s*['"](\.[^'"]+)['"]/gm

function closure(start: string): Set<string> {
  const seen = new Set<string>()
  const stack = [start]
  while (stack.length) {
    const file = stack.pop()!
    if (seen.has(file)) continue
    seen.add(file)
    const text = readFileSync(file, 'utf8').replace(/\/\*[\s\S]*?\*\//g, '')
    for (const m of text.matchAll(STATIC)) {
      const target = resolve(dirname(file), (m[1] ?? m[2]).replace(/\.js$/, '.ts'))
      if (existsSync(target)) stack.push(target)
    }
  }
  return new Set([...seen].map((f) => relative(ROOT, f)))
}

describe('a one-shot read loads what it uses', () => {
  const files = closure(join(ROOT, 'src/commands/subaccounts/get.ts'))

  it('reads the command and the context it runs in', () => {
    expect(files).toContain('src/context/factory.ts')
    expect(files).toContain('src/subaccounts/run.ts')
  })

  it('holds no trail writer or reader, control store, movement pipeline or team book', () => {
    const heavy = [...files].filter((f) =>
      /^src\/(audit\/(?!schema\.ts)|movements\/|control\/(index|sqlite|postgres|names|team|books|alerts|types)\.ts|import\/)/.test(f),
    )
    expect(heavy).toEqual([])
  })
})
