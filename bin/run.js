#!/usr/bin/env node
// payops' executable. Three things happen before the CLI framework loads:
// - `payops --version` (and `-v`, oclif's `additionalVersionFlags`) prints the line oclif would print
//   (its `config.userAgent`) without loading the framework: scripts call it often.
// - V8 compiles WebAssembly with its baseline compiler only. Node's HTTP client (undici) parses
//   responses with a WebAssembly module; by default V8 also re-compiles it in the background with
//   its optimising compiler, and Node waits for that work before the process may exit (about 60 ms
//   after a one-shot command has finished). Baseline code parses as fast for payops' traffic.
// - On Node >= 22.1, V8's compile cache (module.enableCompileCache) keeps the compiled bundle
//   between runs (NODE_DISABLE_COMPILE_CACHE=1 turns it off).
// - `payops __complete WORD...` (what the shell completion scripts call on every TAB) loads its own
//   small module and no framework: it answers from local files only, well under 100 ms.
const argv = process.argv.slice(2)
if (argv[0] === '__complete') {
  process.getBuiltinModule('node:module').enableCompileCache?.()
  const {runCompletion} = await import('../dist/completion/main.js')
  runCompletion(argv.slice(1), process.getBuiltinModule('node:url').fileURLToPath(new URL('..', import.meta.url)))
} else if (argv[0] === '--version' || argv[0] === '-v') {
  const {readFileSync} = process.getBuiltinModule('node:fs')
  const {name, version} = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'))
  process.stdout.write(`${name}/${version} ${process.platform}-${process.arch} node-${process.version}\n`)
} else {
  process.getBuiltinModule('node:v8').setFlagsFromString('--liftoff-only')
  process.getBuiltinModule('node:module').enableCompileCache?.()
  const {execute} = await import('../dist/entry.js')
  await execute({dir: import.meta.url})
}
