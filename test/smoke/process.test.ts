/**
 * What only a real `bin/run.js` process shows, apart from kill -9 and the terminal: a reader that
 * goes away (`payops … | head -1`: EPIPE ends the run quietly, exit 0), global flags before the
 * topic on a real command line, and the emulator stopping on a real SIGTERM and SIGINT.
 */
import {spawn} from 'node:child_process'
import {readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {run as runIn, startEmulator as startInProcess, tempDir, type Emulator} from '../support/index.js'
import {BIN, cleanEnv, knownSecrets, run, startEmulator} from './process.js'

let emu: Emulator
const dir = tempDir()

beforeAll(async () => {
  emu = await startInProcess()
})
afterAll(() => dir.cleanup())

describe('payops … | head', () => {
  it('a list piped into `head -1` ends quietly with exit 0 when head goes away (EPIPE)', async () => {
    // A subaccount with 1,500 lines of activity (about 300 KB of ndjson): `--all --limit 10` fetches
    // 150 pages and writes the lines in chunks of about 64 KB, the first as head reads its line.
    const env = {PAYOPS_BASE_URL: emu.baseUrl, PAYOPS_API_KEY: emu.keys.test}
    const [from, to] = await Promise.all(['Pipe source', 'Pipe destination'].map(async (name) => (await runIn(['subaccounts', 'create', '--name', name], {env, configDir: dir.path})).json().id as string))
    const file = join(dir.path, 'pipe.csv')
    writeFileSync(file, ['from,to,amount_in_minor_units', ...Array.from({length: 1500}, (_, i) => `${from},${to},${100 + i}`)].join('\n') + '\n')
    const imported = await runIn(['moves', 'import', file, '--yes', '--concurrency', '16'], {env, configDir: dir.path})
    expect(imported.code, imported.stderr).toBe(0)

    const status = join(dir.path, 'status')
    const before = (await emu.requestLog()).count
    const r = await new Promise<{code: number | null; stdout: string; stderr: string}>((resolve, reject) => {
      // sh keeps payops' own exit status in $STATUS: the pipeline's is head's.
      const proc = spawn('sh', ['-c', '{ "$0" "$@"; echo $? >"$STATUS"; } | head -1', process.execPath, BIN, 'subaccounts', 'activity', to, '--all', '--limit', '10', '-o', 'ndjson'], {
        env: cleanEnv({...env, PAYOPS_CONFIG_DIR: dir.path, STATUS: status}),
        stdio: ['ignore', 'pipe', 'pipe'],
      })
      let stdout = ''
      let stderr = ''
      proc.stdout.on('data', (d) => (stdout += d))
      proc.stderr.on('data', (d) => (stderr += d))
      proc.on('error', reject)
      proc.on('close', (code) => resolve({code, stdout, stderr}))
    })
    expect(r.code).toBe(0)
    expect(readFileSync(status, 'utf8').trim()).toBe('0')
    expect(r.stderr).toBe('')
    const lines = r.stdout.trim().split('\n')
    expect(lines).toHaveLength(1)
    expect(JSON.parse(lines[0])).toMatchObject({amount_in_minor_units: expect.any(Number)})
    for (const s of knownSecrets) expect(r.stdout + r.stderr).not.toContain(s)
    // It stopped when the reader went away (a write after head ended): fewer pages were fetched than there are.
    const pages = (await emu.requestLog()).count - before
    expect(pages).toBeGreaterThan(0)
    expect(pages).toBeLessThan(150)
  }, 60_000)
})

describe('global flags before the topic', () => {
  it('`payops -p NAME subaccounts get ID` selects the profile in a real process', async () => {
    const config = tempDir()
    const add = (name: string, key: string, use: string[] = []) => runIn(['profiles', 'add', name, '--base-url', emu.baseUrl, '--key-stdin', ...use], {configDir: config.path, input: key})
    expect((await add('sandbox', emu.keys.test, ['--use'])).code).toBe(0)
    expect((await add('other', emu.keys.test_other)).code).toBe(0)
    const created = await runIn(['subaccounts', 'create', '--name', 'OtherEntity', '--profile', 'other'], {configDir: config.path})
    expect(created.code, created.stderr).toBe(0)
    const id = created.json().id as string
    // The active profile (another entity) does not see the subaccount.
    const active = await run(['subaccounts', 'get', id], {configDir: config.path})
    expect(active.code, active.stderr).toBe(4)
    const r = await run(['-p', 'other', 'subaccounts', 'get', id], {configDir: config.path})
    expect(r.code, r.stderr).toBe(0)
    expect(r.json()).toMatchObject({id, name: 'OtherEntity'})
  })
})

describe('the emulator process', () => {
  it('stops cleanly on SIGTERM and on SIGINT, and stops serving', async () => {
    for (const signal of ['SIGTERM', 'SIGINT'] as const) {
      const real = await startEmulator()
      expect((await fetch(`${real.baseUrl}/_emulator/entities`)).ok).toBe(true)
      let stderr = ''
      real.proc.stderr!.on('data', (d) => (stderr += d))
      const exited = new Promise<{code: number | null; signal: NodeJS.Signals | null}>((resolve) => real.proc.once('exit', (code, sig) => resolve({code, signal: sig})))
      real.proc.kill(signal)
      expect(await exited, `${signal}: ${stderr}`).toEqual({code: 0, signal: null})
      expect(stderr, signal).not.toMatch(/error/i)
      await expect(fetch(`${real.baseUrl}/_emulator/entities`), signal).rejects.toThrow()
    }
  })
})
