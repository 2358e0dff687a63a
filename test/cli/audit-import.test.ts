/**
 * The JSON-lines trail of earlier versions is imported into the store once, on first use: verified
 * and copied with its chain as it was (numbers, links and hashes), then renamed aside. Put back (a
 * crash before the rename, or a rerun), it is never imported twice; a broken old chain is refused
 * with one line naming the line, exit 1, nothing imported and nothing sent.
 */
import {copyFileSync, existsSync, readFileSync, unlinkSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {readAudit} from '../../src/audit/index.js'
import {expectNothingSent, runAs, startEmulator, tempDir, type Emulator} from '../support/index.js'
import {exportedTrail, trailFile} from '../support/trail.js'

let emu: Emulator

beforeAll(async () => {
  emu = await startEmulator()
})
afterAll(async () => {
  await emu?.stop()
})

/**
 * A config dir holding an old trail (`audit.jsonl` and `audit.head`, as earlier versions wrote
 * them) of four records and no store; `fn` runs in it, then it is removed.
 */
async function withOldTrail(fn: (dir: string, lines: string[], cli: (args: string[]) => ReturnType<typeof runAs>) => Promise<void>): Promise<void> {
  const d = tempDir('payops-audit-import-')
  try {
    const cli = (args: string[]) => runAs(emu, 'test', args, {configDir: d.path})
    for (const name of ['Old-A', 'Old-B']) expect((await cli(['subaccounts', 'create', '--name', name])).code).toBe(0)
    const lines = exportedTrail(d.path).trim().split('\n')
    const {head} = JSON.parse(lines.pop()!) as {head: {seq: number; hash: string}}
    unlinkSync(trailFile(d.path))
    writeFileSync(join(d.path, 'audit.jsonl'), lines.join('\n') + '\n', {mode: 0o600})
    writeFileSync(join(d.path, 'audit.head'), JSON.stringify(head).padEnd(127) + '\n', {mode: 0o600})
    await fn(d.path, lines, cli)
  } finally {
    d.cleanup()
  }
}

describe('the old JSON-lines trail, imported once', () => {
  it('is verified, copied with its chain and renamed aside on first use; the chain continues from it', async () => {
    await withOldTrail(async (dir, lines, cli) => {
      const list = await cli(['audit', 'list', '-o', 'json'])
      expect(list.code, list.stderr).toBe(0)
      expect(existsSync(join(dir, 'audit.jsonl'))).toBe(false)
      expect(existsSync(join(dir, 'audit.head'))).toBe(false)
      expect(readFileSync(join(dir, 'audit.jsonl.imported'), 'utf8')).toBe(lines.join('\n') + '\n')
      expect(existsSync(join(dir, 'audit.head.imported'))).toBe(true)
      // Each record as it was: the export writes the same lines.
      expect(exportedTrail(dir).trim().split('\n').slice(0, -1)).toEqual(lines)
      expect(list.json()).toHaveLength(4)
      expect((await cli(['subaccounts', 'create', '--name', 'New-C'])).code).toBe(0)
      const records = readAudit(dir)
      expect(records).toHaveLength(6)
      expect(records[4].prev).toBe(records[3].hash)
      expect((await cli(['audit', 'verify'])).stderr).toMatch(/intact, 6 records/)
    })
  })

  it('put back (a crash before the rename, or a rerun), it is only set aside again: never imported twice', async () => {
    await withOldTrail(async (dir, lines, cli) => {
      expect((await cli(['audit', 'verify'])).code).toBe(0)
      expect((await cli(['subaccounts', 'create', '--name', 'After'])).code).toBe(0)
      copyFileSync(join(dir, 'audit.jsonl.imported'), join(dir, 'audit.jsonl'))
      copyFileSync(join(dir, 'audit.head.imported'), join(dir, 'audit.head'))
      const again = await cli(['subaccounts', 'create', '--name', 'Again'])
      expect(again.code, again.stderr).toBe(0)
      expect(readAudit(dir)).toHaveLength(lines.length + 4)
      expect(existsSync(join(dir, 'audit.jsonl'))).toBe(false)
      expect(existsSync(join(dir, 'audit.jsonl.imported.2'))).toBe(true)
      expect((await cli(['audit', 'verify'])).stderr).toMatch(/intact, 8 records/)
    })
  })

  it('a broken old chain is refused with one line naming the line (exit 1): nothing imported, nothing sent', async () => {
    await withOldTrail(async (dir, lines, cli) => {
      const edited = [...lines]
      edited[2] = JSON.stringify({...JSON.parse(lines[2]), status: 500})
      writeFileSync(join(dir, 'audit.jsonl'), edited.join('\n') + '\n')
      const r = await expectNothingSent(emu, () => cli(['subaccounts', 'create', '--name', 'Refused', '-o', 'table']))
      expect(r.code).toBe(1)
      expect(r.stderr).toBe(
        `Error: Nothing was sent: The audit trail of an earlier payops cannot be imported: ${join(dir, 'audit.jsonl')}: line 3 was edited (its hash does not match its content). Nothing was imported; move audit.jsonl and audit.head aside to start the trail in controls.sqlite.\n`,
      )
      const verify = await cli(['audit', 'verify', '-o', 'table'])
      expect(verify.code).toBe(1)
      expect(verify.stderr.trim().split('\n')).toHaveLength(1)
      expect(verify.stderr).toContain('line 3 was edited')
      expect(existsSync(join(dir, 'audit.jsonl'))).toBe(true)
      expect(existsSync(join(dir, 'audit.jsonl.imported'))).toBe(false)
      // Nothing imported: the store holds no record.
      unlinkSync(join(dir, 'audit.jsonl'))
      unlinkSync(join(dir, 'audit.head'))
      expect(readAudit(dir)).toHaveLength(0)
    })
  })
})
