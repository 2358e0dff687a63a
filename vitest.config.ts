import {defineConfig} from 'vitest/config'

export default defineConfig({
  test: {
    setupFiles: ['test/support/setup.ts'],
    globalSetup: ['test/support/global.ts'],
    // oclif's own error handler writes with console.error; in-process runs route it to their host.
    disableConsoleIntercept: true,
    // The built CLI (dist/) is imported by Node itself, as bin/run.js imports it, not transformed.
    server: {deps: {external: [/\/dist\//]}},
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    maxWorkers: 2,
    reporters: ['default'],
    projects: [
      // Units and every command in-process (runCli against the in-process emulator).
      // …with one real PostgreSQL server for the run (the team store's tests: test/support/postgres.ts).
      {extends: true, test: {name: 'main', globalSetup: ['test/support/postgres-global.ts'], include: ['test/unit/**/*.test.ts', 'test/cli/**/*.test.ts', 'test/model/**/*.test.ts']}},
      // The emulator package's own tests (packages/emulator): its server, store and modes, without a CLI command.
      {extends: true, test: {name: 'emulator', include: ['packages/emulator/test/**/*.test.ts']}},
      // What only a real process shows: kill -9, signals, a pseudo-terminal, `ps`, the packed install.
      {extends: true, test: {name: 'smoke', include: ['test/smoke/**/*.test.ts']}},
    ],
  },
})
