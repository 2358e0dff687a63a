#!/usr/bin/env node
// Regenerates the README's assumptions table from dist/api/assumptions.js (run after a build;
// `npm run readme` also regenerates the command reference with `oclif readme`).
import {readFileSync, writeFileSync} from 'node:fs'
import {dirname, join} from 'node:path'
import {fileURLToPath} from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const {ASSUMPTIONS} = await import(join(root, 'dist/api/assumptions.js'))
const rows = ASSUMPTIONS.map((a) => `| ${a.topic} | ${a.assumed.replace(/\|/g, '\\|')} |`)
const table = ['| what the spec leaves open | what payops assumes |', '|---|---|', ...rows].join('\n')
const file = join(root, 'README.md')
const readme = readFileSync(file, 'utf8')
const next = readme.replace(/<!-- assumptions -->[\s\S]*?<!-- assumptionsstop -->/, `<!-- assumptions -->\n${table}\n<!-- assumptionsstop -->`)
writeFileSync(file, next)
