#!/usr/bin/env node
// Builds dist/: type-checks with tsc, then bundles with esbuild. Every command and hook file is an entry
// point (oclif finds them through the manifest) and shared code, oclif itself and the libraries
// are split into chunks, so a command loads what it imports and nothing else; dynamic imports
// (the emulator, prompts, CSV, undici) become chunks that load only when used.
//
// Then it writes oclif.manifest.json (`oclif manifest`) and, from it and the plugins' manifests,
// dist/command-table.json: every command id, whether it is payops' own and whether it takes
// positional arguments (and, for payops' own, its built file), and oclif's help and version flags.
// src/entry.ts reads that table to run one of payops' own commands from its file, without oclif's
// Config, the help and autocomplete plugins or the manifest (src/own-command.ts).
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

/**
 * Requires that oclif makes when a module loads but uses on rare paths only (help on an error,
 * finding commands without a manifest, templates, a spinner, stdin for a flag, performance marks,
 * the Windows shell): each is loaded on its first use instead, so that a command neither runs nor
 * even parses their code. Every one of these modules is used through its properties
 * (`(0, x.glob)(...)`, `x.default.render(...)`), which a Proxy forwards. By kind:
 * - `node:` built-ins are required on first use.
 * - Packages (templates, globs, a spinner's frames, text wrapping) are not bundled: they are
 *   required on first use from node_modules, resolved from @oclif/core as oclif itself would.
 * - oclif's own Config and Help (`./config`, `./help`, `../help/index`) are bundled with oclif's full runner
 *   (src/oclif-run.ts), which registers them before it runs: only that runner's lines (help,
 *   topics, plugins, a typo) reach the code that uses them. One of payops' own commands runs
 *   without them (src/own-command.ts): its Command is never given oclif's Config, and the error
 *   handler shows help only for a run that loaded one.
 */
const LAZY_REQUIRES = {
  'config/plugin.js': ['tinyglobby'],
  'config/config.js': ['ejs'],
  'config/plugin-loader.js': ['minimatch'],
  'help/util.js': ['ejs'],
  'help/formatter.js': ['indent-string', 'string-width', 'widest-line', 'wrap-ansi'],
  'errors/errors/pretty-print.js': ['indent-string', 'wrap-ansi'],
  'util/os.js': ['node:child_process'],
  'parser/parse.js': ['node:readline'],
  'errors/handle.js': ['clean-stack', '../help/index'],
  'errors/errors/cli.js': ['clean-stack', 'wrap-ansi', 'indent-string'],
  'performance.js': ['node:perf_hooks'],
  'ux/action/spinner.js': ['cli-spinners'],
  'command.js': ['./config'],
  'flags.js': ['./help'],
}
/** The registry name of each deferred oclif module (src/oclif-run.ts fills it). */
const DEFERRED = {'./config': 'config', '../help/index': 'help', './help': 'help'}
/**
 * oclif asks `wsl-utils` whether Linux is WSL (its config's platform), a package that also brings
 * in child_process and PowerShell's helpers; `is-wsl`, which wsl-utils itself answers with, is asked
 * directly. (PowerShell's path, the other use, is for Windows only.)
 */
const REWRITES = {
  'util/os.js': [["(await import('wsl-utils')).isWsl", "(await import('is-wsl')).default"]],
}
const LAZY_HELPER = [
  'const __payopsLazy = (load) => { let m; const get = () => (m ??= load()); return new Proxy({}, {get: (_, k) => get()[k], has: (_, k) => k in get()}) };',
  // A package as oclif would require it (the banner's real require, made from @oclif/core's own entry).
  "const __payopsOutside = (id) => (globalThis[Symbol.for('payops.oclifRequire')] ??= process.getBuiltinModule('node:module').createRequire(__payopsRealRequire().resolve('@oclif/core')))(id);",
  "const __payopsDeferred = (name) => { const m = globalThis[Symbol.for('payops.oclif.' + name)]; if (!m) throw new Error('oclif ' + name + ' is not loaded in this run'); return m };",
  '',
].join('\n')
/** How a lazy require loads its module: built-ins and oclif's own modules from the bundle, packages from node_modules. */
function lazyLoad(mod, wrap) {
  if (DEFERRED[mod]) return `__payopsDeferred("${DEFERRED[mod]}")`
  const call = mod.startsWith('node:') ? `require("${mod}")` : `__payopsOutside("${mod}")`
  return wrap ? `${wrap}${call})` : call
}
const lazyOclifRequires = {
  name: 'lazy-oclif-requires',
  setup(b) {
    b.onLoad({filter: /[\\/]@oclif[\\/]core[\\/]lib[\\/].*\.js$/}, (args) => {
      const rel = args.path.split(/[\\/]@oclif[\\/]core[\\/]lib[\\/]/)[1].replaceAll('\\', '/')
      const mods = LAZY_REQUIRES[rel]
      if (!mods) return undefined
      let text = readFileSync(args.path, 'utf8')
      for (const [from, to] of REWRITES[rel] ?? []) {
        if (!text.includes(from)) throw new Error(`lazy-oclif-requires: no ${from} in @oclif/core/lib/${rel} (oclif changed: update REWRITES)`)
        text = text.replace(from, to)
      }
      for (const mod of mods) {
        const q = mod.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')
        const re = new RegExp(`^const (\\w+) = (__importDefault\\(|__importStar\\()?require\\("${q}"\\)\\)?;$`, 'm')
        const m = re.exec(text)
        if (!m) throw new Error(`lazy-oclif-requires: no top-level require("${mod}") in @oclif/core/lib/${rel} (oclif changed: update LAZY_REQUIRES)`)
        text = text.replace(m[0], `const ${m[1]} = __payopsLazy(() => ${lazyLoad(mod, m[2])});`)
      }
      return {contents: text.replace(/^("use strict";\n)?/, (head) => head + LAZY_HELPER), loader: 'js', resolveDir: dirname(args.path)}
    })
  },
}

rmSync(join(root, 'dist'), {recursive: true, force: true})
// The completer (`payops __complete`) is built apart (dist/completion.cjs, below); entry.ts still
// reaches it for in-process runs, as a chunk of its own.
const entryPoints = [join(src, 'entry.ts'), ...walk(join(src, 'commands')), ...walk(join(src, 'hooks'))]
const result = await build({
  entryPoints,
  // `PAYOPS_METAFILE=FILE npm run build`: esbuild's metafile (which chunk holds what, and who imports it).
  metafile: Boolean(process.env.PAYOPS_METAFILE),
  outbase: src,
  outdir: join(root, 'dist'),
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  minify: !process.env.PAYOPS_METAFILE,
  sourcemap: false,
  chunkNames: 'chunks/[name]-[hash]',
  legalComments: 'none',
  // A native addon (the SQLite binding on Node 20, src/db) is loaded from node_modules, never bundled.
  // TypeScript (a dev dependency, for the lint) is what oclif tries to require for a project run from
  // source; bundled, it would be a 3.7 MB chunk compiled by every command.
  external: ['@photostructure/sqlite', 'typescript'],
  logLevel: 'warning',
  plugins: [lazyOclifRequires],
  // CommonJS dependencies call require(): a built-in module is taken from process.getBuiltinModule
  // (Node >= 20.16), anything else (and require.resolve) from a real require made on first use, so
  // that no chunk loads node:module for the built-ins alone.
  banner: {
    js: "let __payopsReq;const __payopsRealRequire=()=>(__payopsReq??=process.getBuiltinModule('node:module').createRequire(import.meta.url));const require=Object.assign((id)=>(typeof id==='string'&&process.getBuiltinModule(id))||__payopsRealRequire()(id),{resolve:(id,o)=>__payopsRealRequire().resolve(id,o)});",
  },
})
if (process.env.PAYOPS_METAFILE) writeFileSync(process.env.PAYOPS_METAFILE, JSON.stringify(result.metafile))
console.log(`bundled ${entryPoints.length} entry points into ${relative(root, join(root, 'dist'))}/`)
// A file this large is a library pulled in by mistake (every command that imports its chunk compiles it).
const MAX_CHUNK = (process.env.PAYOPS_METAFILE ? 4 : 1) * 1024 * 1024
for (const path of readdirSync(join(root, 'dist', 'chunks')).map((name) => join(root, 'dist', 'chunks', name))) {
  if (statSync(path).size > MAX_CHUNK) throw new Error(`${relative(root, path)} is ${statSync(path).size} bytes (over ${MAX_CHUNK}): a dependency was bundled that should stay external`)
}

/** What the one-file bundles (the emulator's command line, the completer) share: Node 20 and later, the SQLite binding from node_modules. */
const ONE_FILE = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  minify: !process.env.PAYOPS_METAFILE,
  legalComments: 'none',
  external: ['@photostructure/sqlite'],
  logLevel: 'warning',
}

// dist/emulator.js: the emulator package's own command line (packages/emulator/src/cli.ts, what its
// `payops-emulator` bin runs), which `payops emulator start` runs in a child process. One file of its
// own, built apart from the CLI's entries: it shares no chunk with them, and the CLI imports nothing
// of it. Its dependencies are bundled in, but the SQLite binding (a native addon, from node_modules).
await build({
  stdin: {
    contents: "import {main} from './src/cli.ts'\nprocess.exitCode = await main(process.argv.slice(2))\n",
    resolveDir: join(root, 'packages', 'emulator'),
    sourcefile: 'payops-emulator.ts',
    loader: 'ts',
  },
  outfile: join(root, 'dist', 'emulator.js'),
  ...ONE_FILE,
  format: 'esm',
  // Its CommonJS dependencies (undici) call require().
  banner: {js: "import {createRequire as __emulatorCreateRequire} from 'node:module';const require=__emulatorCreateRequire(import.meta.url);"},
})
console.log(`bundled the emulator's command line into ${relative(root, join(root, 'dist', 'emulator.js'))}`)

// dist/completion.cjs: the completer (src/completion/main.ts) that bin/run.js runs for `payops
// __complete` on every TAB, as one CommonJS file: bin/run.js requires it without starting Node's ES
// module loader, and it loads no other file of the bundle (about 17 ms less a TAB than the ES module
// chunks, on Node 20). Its SQLite binding on Node 20 comes from node_modules, as everywhere.
await build({
  entryPoints: [join(src, 'completion', 'main.ts')],
  outfile: join(root, 'dist', 'completion.cjs'),
  ...ONE_FILE,
  format: 'cjs',
  // The one `import.meta.url` it holds (src/db: a require made from the file's own place).
  define: {'import.meta.url': '__payopsFileUrl'},
  banner: {js: "const __payopsFileUrl = require('node:url').pathToFileURL(__filename).href;"},
})
console.log(`bundled the completer into ${relative(root, join(root, 'dist', 'completion.cjs'))}`)

// oclif.manifest.json, as `oclif manifest` writes it (the same @oclif/core Plugin, loading every
// built command once, in a process of its own), without the oclif CLI and its dependencies in the install.
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
const MANIFEST = `import {Plugin} from '@oclif/core'
import {writeFileSync} from 'node:fs'
const plugin = new Plugin({errorOnManifestCreate: true, ignoreManifest: true, respectNoCacheDefault: true, root: process.cwd(), type: 'core'})
await plugin.load()
if (!plugin.valid) throw new Error('payops is not a valid oclif plugin')
writeFileSync('oclif.manifest.json', JSON.stringify(plugin.manifest, null, 2))`
rmSync(join(root, 'oclif.manifest.json'), {force: true})
execFileSync(process.execPath, ['--input-type=module', '-e', MANIFEST], {cwd: root, stdio: ['ignore', 'ignore', 'inherit']})

const pjson = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
// payops' own commands run without oclif's Config, which is what runs hooks (src/own-command.ts):
// a hook of any other event would be skipped for them.
const ownHooks = Object.keys(pjson.oclif.hooks ?? {}).filter((event) => event !== 'command_not_found')
if (ownHooks.length > 0) throw new Error(`package.json declares oclif hooks ${ownHooks.join(', ')}: src/own-command.ts runs payops' commands without hooks; run them there first`)
const takesArgs = (c) => c.strict === false || Object.keys(c.args ?? {}).length > 0
const commands = {}
for (const plugin of pjson.oclif.plugins ?? []) {
  const manifest = JSON.parse(readFileSync(join(packageDir(plugin), 'oclif.manifest.json'), 'utf8'))
  for (const [id, c] of Object.entries(manifest.commands)) for (const name of [id, ...(c.aliases ?? [])]) commands[name] = [false, takesArgs(c)]
}
const own = JSON.parse(readFileSync(join(root, 'oclif.manifest.json'), 'utf8'))
for (const [id, c] of Object.entries(own.commands)) {
  commands[id] = [true, takesArgs(c), c.relativePath.join('/')]
  // An alias runs through oclif's own dispatch (and its deprecation warning), not the table.
  for (const alias of c.aliases ?? []) commands[alias] = [false, takesArgs(c)]
}
const table = {
  commands,
  helpFlags: [...new Set([...(pjson.oclif.additionalHelpFlags ?? []), '--help'])],
  versionFlags: [...new Set(['--version', ...(pjson.oclif.additionalVersionFlags ?? [])])],
}
writeFileSync(join(root, 'dist', 'command-table.json'), JSON.stringify(table) + '\n')
// dist/completion.json: what shell completion reads of the grammar (src/completion/spec.ts) on every
// TAB: the commands' ids, first summary lines, arguments and visible flags (the manifest's own shape,
// without examples, descriptions or hidden flags), payops' topics and the plugins' top-level commands.
const firstLine = (s) => s?.split('\n')[0]
// A global flag is written once, in `globals`, and named by each command that takes it as it is
// there in its `globalFlags`.
const completionCommands = {}
const globals = {}
for (const [id, c] of Object.entries(own.commands)) {
  const flags = {}
  const globalFlags = []
  for (const [name, f] of Object.entries(c.flags ?? {})) {
    if (f.hidden) continue
    const flag = {name: f.name, char: f.char, type: f.type, allowNo: f.allowNo, multiple: f.multiple, options: f.options, summary: firstLine(f.summary ?? f.description), aliases: f.aliases, helpGroup: f.helpGroup}
    // A command that words a global flag its own way (reconcile resolve's --profile) keeps it as its own.
    if (f.helpGroup !== 'GLOBAL' || (globals[name] && JSON.stringify(globals[name]) !== JSON.stringify(flag))) flags[name] = flag
    else {
      globals[name] = flag
      globalFlags.push(name)
    }
  }
  const args = Object.fromEntries(Object.entries(c.args ?? {}).map(([name, a]) => [name, {name: a.name, options: a.options, description: a.description}]))
  completionCommands[id] = {id, summary: firstLine(c.summary ?? c.description), hidden: c.hidden, strict: c.strict, args, flags, globalFlags}
}
const others = Object.entries(commands)
  .filter(([id, [isOwn]]) => !isOwn && !own.commands[id] && !id.includes(':'))
  .map(([id]) => id)
writeFileSync(join(root, 'dist', 'completion.json'), JSON.stringify({commands: completionCommands, globals, topics: pjson.oclif.topics ?? {}, others}) + '\n')
console.log(`wrote oclif.manifest.json, dist/command-table.json and dist/completion.json (${Object.keys(own.commands).length} commands)`)
