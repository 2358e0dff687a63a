/**
 * The JSON-lines trail of an earlier version, imported while a real process is killed (kill -9)
 * part way: whenever the kill lands (before the import's transaction commits, or after it and
 * before the old files are set aside), the next run ends with every old record in the store
 * exactly once, the chain intact.
 */
import {spawn} from 'node:child_process'
import {createWriteStream, existsSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {readAudit, verifyAudit} from '../../src/audit/index.js'
import {chained, GENESIS} from '../../src/audit/records.js'
import {BIN, cleanEnv, tempDir} from './process.js'

/** Writes an old trail of `n` records (and its head) into `dir`. */
async function oldTrail(dir: string, n: number): Promise<void> {
  const out = createWriteStream(join(dir, 'audit.jsonl'), {mode: 0o600})
  let prev = GENESIS
  for (let i = 1; i <= n; i++) {
    const rec = chained({kind: i % 2 ? 'intent' : 'outcome', op: `op-${Math.ceil(i / 2)}`, profile: 'p', mode: 'test', method: 'POST', path: '/api/subaccounts', ...(i % 2 ? {} : {status: 201})}, i, prev, new Date(Date.UTC(2026, 0, 1) + i).toISOString(), 1)
    prev = rec.hash
    if (!out.write(`${JSON.stringify(rec)}\n`)) await new Promise<void>((r) => out.once('drain', () => r()))
  }
  await new Promise<void>((r) => out.end(() => r()))
  const head = createWriteStream(join(dir, 'audit.head'), {mode: 0o600})
  await new Promise<void>((r) => head.end(`${JSON.stringify({seq: n, hash: prev}).padEnd(127)}\n`, () => r()))
}

/** `payops audit verify` on `dir`, killed with SIGKILL after `ms` (or left to finish when it is quicker). */
function verifyKilledAfter(dir: string, ms: number): Promise<{code: number | null; signal: NodeJS.Signals | null}> {
  const proc = spawn(process.execPath, [BIN, 'audit', 'verify'], {env: cleanEnv({PAYOPS_CONFIG_DIR: dir}), stdio: 'ignore'})
  const timer = setTimeout(() => proc.kill('SIGKILL'), ms)
  return new Promise((resolve) =>
    proc.once('close', (code, signal) => {
      clearTimeout(timer)
      resolve({code, signal})
    }),
  )
}

describe('the old trail, imported under kill -9', () => {
  it('a killed import leaves every old record in the store exactly once after the next run, wherever it was killed', async () => {
    const N = 60_000
    const signals: Array<NodeJS.Signals | null> = []
    for (const ms of [150, 400, 800, 1500]) {
      const d = tempDir('payops-import-kill-')
      try {
        await oldTrail(d.path, N)
        const killed = await verifyKilledAfter(d.path, ms)
        expect([0, null]).toContain(killed.code)
        signals.push(killed.signal)
        // The next run (in this process) finishes what the killed one did not, once.
        const records = readAudit(d.path)
        expect(records, `killed after ${ms} ms`).toHaveLength(N)
        expect(new Set(records.map((r) => r.seq)).size).toBe(N)
        expect(verifyAudit(d.path)).toMatchObject({ok: true, records: N})
        expect(existsSync(join(d.path, 'audit.jsonl'))).toBe(false)
        expect(existsSync(join(d.path, 'audit.jsonl.imported'))).toBe(true)
      } finally {
        d.cleanup()
      }
    }
    // At least one run was killed part way (the others may have been killed before the import began, or finished).
    expect(signals).toContain('SIGKILL')
  }, 180_000)
})
