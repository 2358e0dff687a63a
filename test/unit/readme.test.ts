import {existsSync, readdirSync, readFileSync} from 'node:fs'
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
    for (const code of [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 130]) expect(readme).toMatch(new RegExp(`\\| ${code} \\|`))
  })

  it('is a newcomer\'s entry: at most 300 lines before the generated command reference', () => {
    expect(readme.split('\n').indexOf('## Commands')).toBeGreaterThan(0)
    expect(readme.split('\n').indexOf('## Commands')).toBeLessThanOrEqual(300)
  })

  it('links every page of docs/, and every link between the pages leads to a page that exists', () => {
    const pages = readdirSync(join(root, 'docs')).filter((f) => f.endsWith('.md'))
    expect(pages.length).toBeGreaterThan(5)
    for (const page of pages) expect(readme, `README links docs/${page}`).toContain(`](docs/${page})`)
    const links = (text: string) => [...text.matchAll(/\]\(([^)#\s]+\.md)(#[^)]*)?\)/g)].map((m) => m[1])
    for (const link of links(readme)) expect(existsSync(join(root, link)), link).toBe(true)
    for (const page of pages) {
      const text = readFileSync(join(root, 'docs', page), 'utf8')
      expect(text, `docs/${page} links back to the README`).toContain('](../README.md)')
      for (const link of links(text)) expect(existsSync(join(root, 'docs', link)), `docs/${page} -> ${link}`).toBe(true)
    }
  })
})
