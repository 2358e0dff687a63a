// Lint of src/: the layering rules the architecture depends on. TypeScript is parsed by Babel's
// parser (the TypeScript 7 compiler has no JavaScript API for typescript-eslint); types are
// checked by `tsc --noEmit` in the build.
import babelParser from '@babel/eslint-parser'

const restricted = [
  {object: 'process', property: 'stdout', message: 'Write through src/output (the command context\'s `out`), so --query, --columns and the formats apply.'},
  {object: 'process', property: 'exit', message: 'Throw an error with its exit code, or use the command context\'s exitNow.'},
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
    // The process boundary: the output layer, the context and the entry point may use the process.
    files: ['src/output/**', 'src/context/**', 'src/entry.ts', 'src/hooks/**'],
    rules: {'no-restricted-properties': 'off'},
  },
]
