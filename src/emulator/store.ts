/**
 * The store moved to `./store/index.ts` (split by area). This module only re-exports it for the
 * few importers outside the emulator's tests that still name `emulator/store.js`; new code imports
 * `./store/index.js`.
 */
export * from './store/index.js'
