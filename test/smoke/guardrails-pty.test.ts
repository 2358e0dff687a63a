/**
 * The typed confirmation of a LIVE money movement in a real pseudo-terminal: the prompt is drawn
 * by the terminal prompter on a real TTY and the amount is typed at it. Everything else about the
 * guard runs in-process (test/cli/guardrails.test.ts).
 */
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {run, startEmulator, tempDir, type Emulator} from './process.js'
import {runInPty} from './pty.js'
import {readAudit} from '../../src/audit/index.js'

let emu: Emulator
const dir = tempDir()
let la: string
let lb: string

const cli = (args: string[], input?: string) => run(args, {configDir: dir.path, input})
const incoming = async (id: string) => (await cli(['subaccounts', 'get', id, '-p', 'prod'])).json().total_incoming_in_minor_units as number
const auditLines = () => readAudit(dir.path).length
const requests = async () => (await emu.control<{data: {count: number; recent: Array<{method: string; path: string}>}}>('GET', '/_emulator/requests')).data
const env = () => ({PAYOPS_CONFIG_DIR: dir.path})

beforeAll(async () => {
  emu = await startEmulator()
  const added = await cli(['profiles', 'add', 'prod', '--base-url', emu.baseUrl, '--key-stdin'], emu.keys.live)
  expect(added.code, added.stderr).toBe(0)
  la = (await cli(['subaccounts', 'create', '--name', 'L-A', '-p', 'prod', '--yes'])).json().id
  lb = (await cli(['subaccounts', 'create', '--name', 'L-B', '-p', 'prod', '--yes'])).json().id
})
afterAll(async () => {
  await emu?.stop()
  dir.cleanup()
})

describe('typed confirmation on LIVE keys, in a real pseudo-terminal', () => {
  it('typing the amount shown proceeds', async () => {
    const r = await runInPty(['moves', 'create', '--from', la, '--to', lb, '--amount', '12.34', '-p', 'prod', '-o', 'json'], [{when: /Type 12\.34 to confirm this LIVE movement/, answer: '12.34'}], env())
    expect(r.code, r.output).toBe(0)
    expect(r.output).toMatch(/LIVE/)
    expect(r.output).toMatch(/"status": "settled"/)
    expect(await incoming(lb)).toBe(1234)
  })

  it('a wrong answer aborts with exit 3 and sends no move (only the lookups for its summary)', async () => {
    const lines = auditLines()
    const before = await requests()
    const r = await runInPty(['moves', 'create', '--from', la, '--to', lb, '--amount', '12.34', '-p', 'prod'], [{when: /Type 12\.34 to confirm this LIVE movement/, answer: '1234'}], env())
    const after = await requests()
    expect(r.code, r.output).toBe(3)
    expect(r.output).toMatch(/Not confirmed: typed "1234", expected 12\.34\. Nothing was sent/)
    // Only the two reads the summary needs (the source's currency, the destination's name); no move.
    expect(after.recent.slice(-(after.count - before.count)).map((x) => `${x.method} ${x.path}`)).toEqual([`GET /api/subaccounts/${la}`, `GET /api/subaccounts/${lb}`])
    expect(auditLines()).toBe(lines)
    expect(await incoming(lb)).toBe(1234)
  })
})
