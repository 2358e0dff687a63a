#!/usr/bin/env node
// Builds dist/: type-checks with tsc, then bundles with esbuild. Every command and hook file is an entry
// point (oclif finds them through the manifest) and shared code, oclif itself and the libraries
// are split into chunks, so a command loads what it imports and nothing else; dynamic imports
// (the emulator, prompts, CSV, undici) become chunks that load only when used.
//
// Then it writes oclif.manifest.json (`oclif manifest`) and, from it and the plugins' manifests,
// dist/command-table.json: every command id, whether it is payops' own and whether it takes
// positional arguments, and oclif's help and version flags. src/entry.ts reads that table to run
// one of payops' own commands without loading the help and autocomplete plugins.
import {build} from 'esbuild'
import {execFileSync} from 'node:child_process'
import {readFileSync, readdirSync, rmSync, statSync, writeFileSync} from 'node:fs'
import {createRequire} from 'node:module'
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
// The completer (`payops __complete`) is an entry of its own: bin/run.js loads it without oclif.
const entryPoints = [join(src, 'entry.ts'), join(src, 'completion', 'main.ts'), ...walk(join(src, 'commands')), ...walk(join(src, 'hooks'))]
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
  // A native addon (the SQLite binding on Node 20, src/db) is loaded from node_modules, never bundled.
  // TypeScript (a dev dependency, for the lint) is what oclif tries to require for a project run from
  // source; bundled, it would be a 3.7 MB chunk compiled by every command.
  external: ['@photostructure/sqlite', 'typescript'],
  logLevel: 'warning',
  // CommonJS dependencies call require(); give the ESM bundle a real one.
  banner: {js: "import {createRequire as __payopsCreateRequire} from 'node:module';const require=__payopsCreateRequire(import.meta.url);"},
})
console.log(`bundled ${entryPoints.length} entry points into ${relative(root, join(root, 'dist'))}/`)
// A file this large is a library pulled in by mistake (every command that imports its chunk compiles it).
const MAX_CHUNK = 1024 * 1024
for (const path of readdirSync(join(root, 'dist', 'chunks')).map((name) => join(root, 'dist', 'chunks', name))) {
  if (statSync(path).size > MAX_CHUNK) throw new Error(`${relative(root, path)} is ${statSync(path).size} bytes (over ${MAX_CHUNK}): a dependency was bundled that should stay external`)
}

// oclif.manifest.json, as `oclif manifest` writes it (it loads every built command once).
const require = createRequire(import.meta.url)
/** The folder of an installed package (some packages export neither package.json nor a root file). */
function packageDir(name) {
  for (let dir = dirname(require.resolve(name)); dir !== dirname(dir); dir = dirname(dir)) {
    try {
      if (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).name === name) return dir
    } catch {
      // not the package's root yet
    }
  }
  throw new Error(`cannot find the folder of ${name}`)
}
const oclifBin = join(packageDir('oclif'), 'bin', 'run.js')
execFileSync(process.execPath, [oclifBin, 'manifest'], {cwd: root, stdio: ['ignore', 'ignore', 'inherit'], env: {...process.env, OCLIF_SKIP_UPDATE_CHECK: '1'}})

const pjson = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
const takesArgs = (c) => c.strict === false || Object.keys(c.args ?? {}).length > 0
const commands = {}
for (const plugin of pjson.oclif.plugins ?? []) {
  const manifest = JSON.parse(readFileSync(join(packageDir(plugin), 'oclif.manifest.json'), 'utf8'))
  for (const [id, c] of Object.entries(manifest.commands)) for (const name of [id, ...(c.aliases ?? [])]) commands[name] = [false, takesArgs(c)]
}
const own = JSON.parse(readFileSync(join(root, 'oclif.manifest.json'), 'utf8'))
for (const [id, c] of Object.entries(own.commands)) {
  commands[id] = [true, takesArgs(c)]
  // An alias runs through oclif's own dispatch (and its deprecation warning), not the table.
  for (const alias of c.aliases ?? []) commands[alias] = [false, takesArgs(c)]
}
const table = {
  commands,
  helpFlags: [...new Set([...(pjson.oclif.additionalHelpFlags ?? []), '--help'])],
  versionFlags: [...new Set(['--version', ...(pjson.oclif.additionalVersionFlags ?? [])])],
}
writeFileSync(join(root, 'dist', 'command-table.json'), JSON.stringify(table) + '\n')
console.log(`wrote oclif.manifest.json and dist/command-table.json (${Object.keys(own.commands).length} commands)`)
