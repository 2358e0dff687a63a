#!/usr/bin/env node
// Builds dist/cli.js, what bin/payops-emulator.js runs: the package's TypeScript bundled by esbuild,
// its dependencies left to node_modules.
import {build} from 'esbuild'
import {rmSync} from 'node:fs'
import {dirname, join} from 'node:path'
import {fileURLToPath} from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
rmSync(join(root, 'dist'), {recursive: true, force: true})
await build({
  entryPoints: [join(root, 'src', 'cli.ts')],
  outdir: join(root, 'dist'),
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  packages: 'external',
  logLevel: 'warning',
})
