/**
 * What every test shares about its surroundings: the repository's root, a clean environment
 * (nothing of the operator's PAYOPS_* or colour settings), and temporary folders that are always
 * removed (the run fails if a `payops-*` entry is left in the temp dir: see test/support/setup.ts).
 */
import {mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {dirname, join, resolve} from 'node:path'
import {fileURLToPath} from 'node:url'

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..')
export const BIN = join(ROOT, 'bin/run.js')


/** The environment of a run: the process's, without PAYOPS_* and colour settings, plus `extra`. */
export function cleanEnv(extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {}
  for (const [k, v] of Object.entries(process.env)) {
    if (!k.startsWith('PAYOPS_') && k !== 'NO_COLOR' && k !== 'FORCE_COLOR') env[k] = v
  }
  for (const [k, v] of Object.entries(extra)) if (v !== undefined) env[k] = v
  return env
}

/** Folders made by tempDir and not yet removed; test/support/setup.ts removes them after each file. */
export const made = new Set<string>()

/**
 * A temporary folder, removed by `cleanup()` or, at the latest, after the test file. Called at a
 * file's top level or in a hook or test alike.
 */
export function tempDir(prefix = 'payops-test-'): {path: string; cleanup(): void} {
  // This run's id after `payops-test-` (see test/support/global.ts).
  const run = process.env.PAYOPS_TEST_RUN
  const rest = prefix.replace(/^payops-(test-)?/, '')
  const named = run ? `payops-test-r${run}-${rest}` : prefix
  const path = mkdtempSync(join(tmpdir(), named))
  made.add(path)
  return {
    path,
    cleanup: () => {
      rmSync(path, {recursive: true, force: true})
      made.delete(path)
    },
  }
}

let fileConfigDir: string | undefined

/** The config dir of runs that name none: one per test file, removed after it. */
export function defaultConfigDir(): string {
  if (fileConfigDir && made.has(fileConfigDir)) return fileConfigDir
  return (fileConfigDir = tempDir('payops-test-config-').path)
}
