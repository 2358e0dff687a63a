#!/usr/bin/env node
// payops' executable: CommonJS (bin/package.json), so that `--version` is answered without starting
// Node's ES module loader. What happens before the CLI framework loads:
// - `payops --version` (and `-v`, oclif's `additionalVersionFlags`) prints the line oclif would print
//   (its `config.userAgent`) without loading the framework: scripts call it often.
// - On Node >= 22.1, V8's compile cache (module.enableCompileCache) keeps the compiled bundle
//   between runs (NODE_DISABLE_COMPILE_CACHE=1 turns it off). node:module is not loaded otherwise.
// - `payops __complete WORD...` (what the shell completion scripts call on every TAB) requires its own
//   CommonJS file (dist/completion.cjs) and no framework, without Node's ES module loader: it answers
//   from local files only, well under 100 ms.
'use strict'
const {join} = require('node:path')
const argv = process.argv.slice(2)
const root = join(__dirname, '..')
const compileCache = () => Number(process.versions.node.split('.')[0]) >= 22 && require('node:module').enableCompileCache?.()

async function main() {
  if (argv[0] === '__complete') {
    compileCache()
    const {runCompletion} = require('../dist/completion.cjs')
    runCompletion(argv.slice(1), root)
  } else if (argv[0] === '--version' || argv[0] === '-v') {
    const {name, version} = JSON.parse(require('node:fs').readFileSync(join(root, 'package.json'), 'utf8'))
    process.stdout.write(`${name}/${version} ${process.platform}-${process.arch} node-${process.version}\n`)
  } else {
    compileCache()
    const {execute} = await import('../dist/entry.js')
    await execute({dir: require('node:url').pathToFileURL(__filename).href})
  }
}

main().catch((error) => {
  // Only a failure to load payops itself gets here: the CLI reports its own errors.
  process.stderr.write(`${error && error.stack ? error.stack : error}\n`)
  process.exitCode = 1
})
