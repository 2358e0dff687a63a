/**
 * The emulator's errors as the command's: an EmulatorError (@payops/emulator) carries its exit
 * code (2: refused before anything listens; 1: a state that could not be kept) and is rethrown as
 * the payops error of that code, with the same message and name.
 */
import {PayopsError, UsageError} from '../errors.js'

export async function asCommandError<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn()
  } catch (err) {
    const e = err as Error & {exitCode?: unknown}
    if (!(err instanceof Error) || (e.exitCode !== 1 && e.exitCode !== 2) || !/^(EmulatorError|UsageError|StateSaveError)$/.test(e.name)) throw err
    if (e.exitCode === 2) throw new UsageError(e.message)
    const out = new PayopsError(e.message, 1)
    out.name = e.name
    throw out
  }
}
