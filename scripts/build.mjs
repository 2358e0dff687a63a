#!/usr/bin/env node
// Builds dist/: type-checks with tsc, then bundles with esbuild. Every command and hook file is an entry
// point (oclif finds them through the manifest) and shared code, oclif itself and the libraries
// are split into chunks, so a command loads what it imports and nothing else; dynamic imports
// (the emulator, prompts, CSV, undici) become chunks that load only when used.
import {build} from 'esbuild'
import {readdirSync, rmSync, statSync} from 'node:fs'
import {dirname, join, relative} from 'node:path'
import {fileURLToPath} from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const src = join(root, 'src')

function walk(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    return statSync(path).isDirectory() ? walk(path) : path.endsWith('.ts') && !path.endsWith('.d.ts') ? [path] : []
  })
}

rmSync(join(root, 'dist'), {recursive: true, force: true})
const entryPoints = [join(src, 'entry.ts'), ...walk(join(src, 'commands')), ...walk(join(src, 'hooks'))]
await build({
  entryPoints,
  outbase: src,
  outdir: join(root, 'dist'),
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  minify: true,
  sourcemap: false,
  chunkNames: 'chunks/[name]-[hash]',
  legalComments: 'none',
  logLevel: 'warning',
  // CommonJS dependencies call require(); give the ESM bundle a real one.
  banner: {js: "import {createRequire as __payopsCreateRequire} from 'node:module';const require=__payopsCreateRequire(import.meta.url);"},
})
console.log(`bundled ${entryPoints.length} entry points into ${relative(root, join(root, 'dist'))}/`)
