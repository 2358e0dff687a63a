/**
 * No write through a planted link: the control store that keeps the audit trail (`controls.sqlite`,
 * its WAL) and the old trail still to import (`audit.jsonl`, `audit.head`) are never opened
 * through a symbolic link.
 * The command refuses (exit 2), sends nothing, and the link's target is left as it was.
 */
import {mkdirSync, readFileSync, renameSync, symlinkSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {expectNothingSent, run, startEmulator, tempDir, type Emulator} from '../support/index.js'

let emu: Emulator
const outside = tempDir()
const target = join(outside.path, 'precious.txt')
const PRECIOUS = 'not yours to write\n'

beforeAll(async () => {
  emu = await startEmulator()
})
afterAll(async () => {
  await emu?.stop()
  outside.cleanup()
})

/** A config dir with a profile for the emulator's test key, and `fn` run in it; removed after. */
async function inConfigDir(fn: (dir: string, cli: (args: string[]) => ReturnType<typeof run>) => Promise<void>): Promise<void> {
  const d = tempDir()
  try {
    const cli = (args: string[]) => run(args, {configDir: d.path})
    await run(['profiles', 'add', 'sandbox', '--base-url', emu.baseUrl, '--key-stdin', '--use'], {configDir: d.path, input: emu.keys.test})
    await fn(d.path, cli)
  } finally {
    d.cleanup()
  }
}

describe('the audit trail is never opened through a symbolic link', () => {
  for (const name of ['controls.sqlite', 'controls.sqlite-wal', 'audit.jsonl', 'audit.head']) {
    it(`a link planted at ${name} is refused (exit 2), nothing is sent, its target is untouched`, async () => {
      await inConfigDir(async (dir, cli) => {
        writeFileSync(target, PRECIOUS)
        if (name === 'controls.sqlite') {
          // A trail with records: its store swapped for a link to a copy of it would be followed by a writer.
          expect((await cli(['subaccounts', 'create', '--name', 'Before'])).code).toBe(0)
          writeFileSync(target, readFileSync(join(dir, name)))
          renameSync(join(dir, name), join(dir, 'store.real'))
        }
        const before = readFileSync(target, 'utf8')
        mkdirSync(dir, {recursive: true})
        symlinkSync(target, join(dir, name))
        const r = await expectNothingSent(emu, () => cli(['subaccounts', 'create', '--name', 'Through a link']))
        expect(r.code, r.stderr).toBe(2)
        expect(r.stderr).toContain(`${join(dir, name)} is a symbolic link`)
        expect(r.stderr).toMatch(/nothing was sent/i)
        expect(readFileSync(target, 'utf8')).toBe(before)
      })
    })
  }

  it('audit verify and audit list do not read a trail through a link either', async () => {
    await inConfigDir(async (dir, cli) => {
      expect((await cli(['subaccounts', 'create', '--name', 'Real'])).code).toBe(0)
      renameSync(join(dir, 'controls.sqlite'), join(outside.path, 'moved.sqlite'))
      symlinkSync(join(outside.path, 'moved.sqlite'), join(dir, 'controls.sqlite'))
      for (const args of [['audit', 'verify'], ['audit', 'list']]) {
        const r = await cli(args)
        expect(r.code, r.stderr).toBe(2)
        expect(r.stderr).toContain(`${join(dir, 'controls.sqlite')} is a symbolic link`)
      }
    })
  })
})
