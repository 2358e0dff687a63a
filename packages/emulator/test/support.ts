/** What the emulator's tests share besides helpers.ts: temporary directories, removed after each file. */
import {mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll} from 'vitest'

const made = new Set<string>()
afterAll(() => {
  for (const path of made) rmSync(path, {recursive: true, force: true})
  made.clear()
})

/** A new empty directory under the system's temporary directory; `cleanup()` removes it (else the file's end does). */
export function tempDir(prefix = 'payops-test-'): {path: string; cleanup(): void} {
  // Named with the run's id when the repository's suite runs it (its global setup judges what a run leaves).
  const run = process.env.PAYOPS_TEST_RUN
  const rest = prefix.replace(/^payops-(test-)?/, '')
  const path = mkdtempSync(join(tmpdir(), run ? `payops-test-r${run}-${rest}` : prefix))
  made.add(path)
  return {
    path,
    cleanup: () => {
      rmSync(path, {recursive: true, force: true})
      made.delete(path)
    },
  }
}
