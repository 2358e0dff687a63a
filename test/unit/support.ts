import {expect} from 'vitest'
import {UsageError} from '../../src/errors.js'

/** Runs `fn`, expecting a usage error (exit 2); returns it for further checks. */
export function usage(fn: () => unknown): UsageError {
  try {
    fn()
  } catch (err) {
    expect(err).toBeInstanceOf(UsageError)
    expect((err as UsageError).exitCode).toBe(2)
    return err as UsageError
  }
  throw new Error('expected a UsageError, but nothing was thrown')
}
