import {defineConfig} from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['test/smoke/**'],
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
  },
})
