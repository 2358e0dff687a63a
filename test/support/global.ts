/**
 * vitest's global setup: the run fails if it leaves a `payops-*` entry in the temp dir that was
 * not there when it started (every test removes what it creates). Folders made by tempDir carry
 * this run's id (PAYOPS_TEST_RUN, inherited by the test processes), so that runs side by side do
 * not judge, nor remove, each other's folders.
 */
import {randomBytes} from 'node:crypto'
import {readdirSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

const ours = () => new Set(readdirSync(tmpdir()).filter((n) => n.startsWith('payops-')))
const RUN_ID = /^payops-test-r([0-9a-f]{8})-/

export default function setup(): () => void {
  const run = randomBytes(4).toString('hex')
  process.env.PAYOPS_TEST_RUN = run
  const before = ours()
  return () => {
    // Only this run's folders are judged (every test makes its folders with tempDir, which names
    // them with the run's id); another run's, or another program's, are none of its business.
    const left = [...ours()].filter((n) => !before.has(n) && RUN_ID.exec(n)?.[1] === run)
    if (left.length === 0) return
    for (const n of left) rmSync(join(tmpdir(), n), {recursive: true, force: true})
    throw new Error(`The tests left ${left.length} entr${left.length === 1 ? 'y' : 'ies'} in ${tmpdir()} (now removed): ${left.slice(0, 10).join(', ')}`)
  }
}
