#!/usr/bin/env node
// `payops --version` is answered without loading the CLI framework: scripts call it often.
const argv = process.argv.slice(2)
if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-v' || argv[0] === 'version')) {
  const {readFileSync} = await import('node:fs')
  const {version} = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'))
  process.stdout.write(`payops/${version} ${process.platform}-${process.arch} node-${process.version}\n`)
} else {
  const {execute} = await import('../dist/entry.js')
  await execute({dir: import.meta.url})
}
