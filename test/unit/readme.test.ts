import {existsSync, readFileSync} from 'node:fs'
import {dirname, join} from 'node:path'
import {fileURLToPath} from 'node:url'
import {describe, expect, it} from 'vitest'
import {ASSUMPTIONS} from '../../src/api/assumptions.js'

const root = join(dirname(fileURLToPath(import.meta.url)), '../..')
const readme = readFileSync(join(root, 'README.md'), 'utf8')

describe('README matches the code', () => {
  it('the quick start is the two documented commands, and CI runs the second', () => {
    const quick = /## Quick start[\s\S]*?```sh\n([\s\S]*?)```/.exec(readme)?.[1].trim().split('\n') ?? []
    expect(quick.map((l) => l.replace(/\s+#.*$/, '').trim())).toEqual(['npm ci && npm run demo', 'npm ci && npm test'])
    expect(readFileSync(join(root, '.ci/run'), 'utf8')).toMatch(/^npm ci && npm test$/m)
  })

  it('the assumptions table holds every assumption in src/api/assumptions.ts', () => {
    for (const a of ASSUMPTIONS) expect(readme).toContain(`| ${a.topic} | ${a.assumed.replace(/\|/g, '\\|')} |`)
  })

  it.runIf(existsSync(join(root, 'oclif.manifest.json')))('the command reference lists every command (npm run readme)', () => {
    const manifest = JSON.parse(readFileSync(join(root, 'oclif.manifest.json'), 'utf8')) as {commands: Record<string, unknown>}
    for (const id of Object.keys(manifest.commands)) expect(readme).toContain(`## \`payops ${id.replace(/:/g, ' ')}`)
  })

  it('documents every exit code', () => {
    for (const code of [0, 1, 2, 3, 4, 5, 6, 7, 8]) expect(readme).toMatch(new RegExp(`\\| ${code} \\|`))
  })
})
