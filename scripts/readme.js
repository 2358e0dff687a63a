#!/usr/bin/env node
// Regenerates the README's assumptions table from src/api/assumptions.ts, the one place in the
// code that holds them (`npm run readme` also regenerates the command reference with oclif).
import {build} from 'esbuild'
import {mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {dirname, join} from 'node:path'
import {fileURLToPath, pathToFileURL} from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const tmp = mkdtempSync(join(tmpdir(), 'payops-readme-'))
const out = join(tmp, 'assumptions.mjs')
await build({entryPoints: [join(root, 'src/api/assumptions.ts')], bundle: true, format: 'esm', platform: 'node', outfile: out, logLevel: 'warning'})
const {ASSUMPTIONS} = await import(pathToFileURL(out).href)
rmSync(tmp, {recursive: true, force: true})
const rows = ASSUMPTIONS.map((a) => `| ${a.topic} | ${a.assumed.replace(/\|/g, '\\|')} |`)
const table = ['| what the spec leaves open | what payops assumes |', '|---|---|', ...rows].join('\n')
const file = join(root, 'README.md')
const readme = readFileSync(file, 'utf8')
writeFileSync(file, readme.replace(/<!-- assumptions -->[\s\S]*?<!-- assumptionsstop -->/, `<!-- assumptions -->\n${table}\n<!-- assumptionsstop -->`))
console.log(`${ASSUMPTIONS.length} assumptions written to README.md`)
