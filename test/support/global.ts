/**
 * vitest's global setup: the run fails if it leaves a `payops-*` entry in the temp dir that was
 * not there when it started (every test removes what it creates).
 */
import {readdirSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

const ours = () => new Set(readdirSync(tmpdir()).filter((n) => n.startsWith('payops-')))

export default function setup(): () => void {
  const before = ours()
  return () => {
    const left = [...ours()].filter((n) => !before.has(n))
    if (left.length === 0) return
    for (const n of left) rmSync(join(tmpdir(), n), {recursive: true, force: true})
    throw new Error(`The tests left ${left.length} entr${left.length === 1 ? 'y' : 'ies'} in ${tmpdir()} (now removed): ${left.slice(0, 10).join(', ')}`)
  }
}
