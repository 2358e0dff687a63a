// Lint of src/ and of the emulator package (packages/emulator/src), with the same rules: the layering rules the architecture depends on, and rules that need the types.
//
// typescript-eslint parses with the TypeScript that has a JavaScript API (the `typescript` package, 6.x);
// the build and `npm run lint:types` type-check with the native compiler (`typescript-7`), which has none.
// The type-aware rules read the same tsconfig.json as the build.
import tseslint from 'typescript-eslint'

// The process reaches a command only through its context (src/context/host.ts is the one module
// that reads the process), so that every command runs in-process in tests as it runs for real.
const viaContext = 'Use the command context (ctx.io, ctx.clock, ctx.onInterrupt, ctx.exitNow), which takes it from the host (src/context/host.ts).'
const restricted = [
  ...['stdout', 'stderr', 'stdin', 'env', 'argv', 'exitCode', 'exit', 'on', 'once', 'off'].map((property) => ({object: 'process', property, message: viaContext})),
]

export default [
  {
    files: ['src/**/*.ts', 'packages/emulator/src/**/*.ts'],
    languageOptions: {
      parser: tseslint.parser,
      parserOptions: {projectService: true, tsconfigRootDir: import.meta.dirname},
      ecmaVersion: 2022,
      sourceType: 'module',
    },
    plugins: {'@typescript-eslint': tseslint.plugin},
    linterOptions: {reportUnusedDisableDirectives: 'error'},
    rules: {
      'no-console': 'error',
      'no-restricted-properties': ['error', ...restricted],
      'no-debugger': 'error',
      'no-dupe-keys': 'error',
      'no-unreachable': 'error',
      'no-self-compare': 'error',
      'no-control-regex': 'error',
      // A promise is awaited, returned, or handed on with `void` on purpose: an unhandled rejection
      // would end a money command without its outcome line.
      '@typescript-eslint/no-floating-promises': 'error',
      // No promise where a callback's result is ignored (an event handler, a forEach, a condition).
      '@typescript-eslint/no-misused-promises': 'error',
      // A switch over a union names every member (or has a default): a new status or kind cannot
      // slip past one silently.
      '@typescript-eslint/switch-exhaustiveness-check': ['error', {considerDefaultExhaustiveForUnions: true}],
    },
  },
  {
    // Small pieces: a file a reader can hold (400 lines, blank lines and comments counted too, so a
    // file cannot grow by its comments) and a function that does one step (80 lines).
    files: ['src/**/*.ts', 'packages/emulator/src/**/*.ts'],
    rules: {
      'max-lines': ['error', {max: 400, skipBlankLines: false, skipComments: false}],
      'max-lines-per-function': ['error', {max: 80, skipBlankLines: false, skipComments: false, IIFEs: true}],
    },
  },
  {
    // Every clock read for "now" goes through the command context (ctx.clock) or, where a time is
    // compared with the service's or the audit trail's, the host's wall clock (systemClock,
    // src/context/host.ts): tests run on a clock of their own.
    files: ['src/**/*.ts'],
    ignores: [
      'src/context/**',
      // a signature's default time is the wall clock, read where it is signed or verified (callers may pass the time)
      'src/webhooks/signature.ts',
    ],
    rules: {
      'no-restricted-syntax': [
        'error',
        {selector: "CallExpression[callee.object.name='Date'][callee.property.name='now']", message: 'Read the clock through the context: ctx.clock.now() (or systemClock from src/context/host.ts for wall-clock times compared with the service or the trail).'},
        {selector: "NewExpression[callee.name='Date'][arguments.length=0]", message: 'Read the clock through the context: new Date(ctx.clock.now()).'},
      ],
    },
  },
  {
    // The process boundaries: the CLI's host, and the emulator's own command line and stderr sink.
    files: ['src/context/host.ts', 'packages/emulator/src/cli.ts', 'packages/emulator/src/lib/stderr.ts'],
    rules: {'no-restricted-properties': 'off'},
  },
]
