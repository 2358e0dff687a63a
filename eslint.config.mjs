// Lint of src/: the layering rules the architecture depends on. TypeScript is parsed by Babel's
// parser (the TypeScript 7 compiler has no JavaScript API for typescript-eslint); types are
// checked by `tsc --noEmit` in the build.
import babelParser from '@babel/eslint-parser'

// The process reaches a command only through its context (src/context/host.ts is the one module
// that reads the process), so that every command runs in-process in tests as it runs for real.
const viaContext = 'Use the command context (ctx.io, ctx.clock, ctx.onInterrupt, ctx.exitNow), which takes it from the host (src/context/host.ts).'
const restricted = [
  ...['stdout', 'stderr', 'stdin', 'env', 'argv', 'exitCode', 'exit', 'on', 'once', 'off'].map((property) => ({object: 'process', property, message: viaContext})),
]

export default [
  {
    files: ['src/**/*.ts'],
    languageOptions: {
      parser: babelParser,
      parserOptions: {requireConfigFile: false, babelOptions: {babelrc: false, configFile: false, presets: [['@babel/preset-typescript', {allowDeclareFields: true}]]}},
      ecmaVersion: 2022,
      sourceType: 'module',
    },
    linterOptions: {reportUnusedDisableDirectives: 'error'},
    rules: {
      'no-console': 'error',
      'no-restricted-properties': ['error', ...restricted],
      'no-debugger': 'error',
      'no-dupe-keys': 'error',
      'no-unreachable': 'error',
      'no-self-compare': 'error',
      'no-control-regex': 'error',
    },
  },
  {
    // The process boundary: the host is the one module that reads the process.
    files: ['src/context/host.ts'],
    rules: {'no-restricted-properties': 'off'},
  },
]
