/**
 * Secrets never leak. Every in-process run already fails when its stdout or stderr holds a known
 * secret (see test/support/cli.ts); this file adds the outputs no single command test looks at: a
 * --debug matrix over every kind of command, the import journal, the audit trail and the profile
 * listing, all scanned for every key and signing secret the tests used.
 */
import {existsSync, readdirSync, readFileSync, writeFileSync, type Dirent} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {knownSecrets, run, startEmulator, tempDir, type Emulator, type RunResult} from '../support/index.js'
import {exportedTrail} from '../support/trail.js'

let emu: Emulator
const dir = tempDir()
const outputs: string[] = []

const cli = async (args: string[], opts: {input?: string; env?: Record<string, string>} = {}): Promise<RunResult> => {
  // Offline commands (profiles, audit) take no --debug: they make no request to trace.
  const offline = args[0] === 'profiles' || args[0] === 'audit'
  const r = await run(offline ? args : [...args, '--debug'], {configDir: dir.path, ...opts})
  outputs.push(r.stdout, r.stderr)
  return r
}

/**
 * Every file under `root` (relative paths), folders included: a lock being released (a folder
 * renamed aside, then removed) may still be there when the command has returned.
 */
function filesUnder(root: string, sub = ''): string[] {
  let entries: Dirent[]
  try {
    entries = readdirSync(join(root, sub), {withFileTypes: true})
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return []
    throw err
  }
  return entries.flatMap((d) => (d.isDirectory() ? filesUnder(root, join(sub, d.name)) : [join(sub, d.name)]))
}

/** A file's text, or undefined when it went away since it was listed (such a lock's owner file). */
function readIfThere(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8')
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw err
  }
}

function scan(label: string, text: string): void {
  for (const s of knownSecrets) {
    if (text.includes(s)) throw new Error(`${label} contains a secret (${s.slice(0, 5)}…)`)
  }
}

beforeAll(async () => {
  emu = await startEmulator()
})
afterAll(async () => {
  await emu?.stop()
  dir.cleanup()
})

describe('no secret in any output', () => {
  it('a --debug matrix of commands, the journal, the audit trail and the profile listing hold no key', async () => {
    expect(knownSecrets.size).toBeGreaterThanOrEqual(3)
    await cli(['profiles', 'add', 'sandbox', '--base-url', emu.baseUrl, '--key-stdin', '--use'], {input: emu.keys.test})
    await cli(['profiles', 'add', 'prod', '--base-url', emu.baseUrl, '--key-stdin'], {input: emu.keys.live})
    const a = (await cli(['subaccounts', 'create', '--name', 'S-A'])).json().id
    const b = (await cli(['subaccounts', 'create', '--name', 'S-B'])).json().id
    await cli(['subaccounts', 'get', a])
    await cli(['subaccounts', 'activity', a, '--all'])
    const move = (await cli(['moves', 'create', '--from', a, '--to', b, '--amount', '1.00', '--no-auto-approve'])).json().id
    await cli(['moves', 'approve', move])
    await cli(['moves', 'cancel', move])
    await cli(['moves', 'create', '--from', a, '--to', b, '--amount', '1.00', '-p', 'prod'])
    await cli(['moves', 'create', '--from', a, '--to', b, '--amount', '1.00'], {env: {PAYOPS_API_KEY: emu.keys.test_other}})
    await cli(['api', 'GET', `/api/subaccounts/${a}`])
    await cli(['api', 'POST', '/api/subaccounts', '-f', 'name=raw'])
    const flagged = await cli(['subaccounts', 'get', a, '--api-key', 'test_ffffffffffffffffffffffffffffffff'])
    expect(flagged.stderr).toMatch(/--api-key is visible to other users in the process list/)
    expect(flagged.code).toBe(3)
    await cli(['subaccounts', 'get', a, '--base-url', 'http://127.0.0.1:1', '--max-retries', '0'])
    await cli(['profiles', 'show'])
    await cli(['profiles', 'show', 'prod'])
    const listing = await cli(['profiles', 'list', '-o', 'table'])
    expect(listing.stdout).toMatch(/test_…/)
    const file = join(dir.path, 'moves.csv')
    writeFileSync(file, ['from,to,amount', `${a},${b},2.00`, `${a},${b},3.00`].join('\n'))
    expect((await cli(['moves', 'import', file, '--yes'])).code).toBe(0)
    expect((await cli(['audit', 'list'])).code).toBe(0)

    outputs.forEach((o, i) => scan(`output ${i}`, o))
    // The import's database, byte for byte (with its write-ahead log, if one is left).
    for (const part of ['', '-wal']) if (existsSync(`${file}.payops-import.sqlite${part}`)) scan('the import database', readFileSync(`${file}.payops-import.sqlite${part}`, 'latin1'))
    expect(existsSync(`${file}.payops-import.sqlite`)).toBe(true)
    const audit = exportedTrail(dir.path)
    expect(audit.split('\n').length).toBeGreaterThan(10)
    scan('the audit trail', audit)
    for (const f of filesUnder(dir.path).filter((f) => f !== 'config.json' && !f.endsWith('.csv'))) {
      const text = readIfThere(join(dir.path, f))
      if (text !== undefined) scan(f, text)
    }
    // The profile file itself holds the keys, with mode 0600: the one place they belong.
    expect(readFileSync(join(dir.path, 'config.json'), 'utf8')).toContain(emu.keys.test)
  })

  it('a password in the base URL is shown by no --debug trace, error, LIVE note or profile listing', async () => {
    const password = 'pw-base-url-7c1e9a4f2b'
    knownSecrets.add(password)
    const base = emu.baseUrl.replace('://', `://ops:${password}@`)
    const shown = emu.baseUrl.replace('://', '://…@')
    const cfg = tempDir()
    try {
      const traced = await run(['subaccounts', 'get', '00000000-0000-4000-8000-000000000000', '--debug', '--max-retries', '0'], {configDir: cfg.path, env: {PAYOPS_API_KEY: emu.keys.test, PAYOPS_BASE_URL: base}})
      expect(traced.stderr).toContain(`base URL: ${shown} (PAYOPS_BASE_URL)`)
      const live = await run(['subaccounts', 'get', '00000000-0000-4000-8000-000000000000', '-o', 'table', '--debug'], {configDir: cfg.path, env: {PAYOPS_API_KEY: emu.keys.live, PAYOPS_BASE_URL: base}})
      expect(live.stderr).toContain(shown)
      expect((await run(['profiles', 'add', 'gw', '--base-url', base, '--key-stdin'], {configDir: cfg.path, input: emu.keys.test})).code).toBe(0)
      const listed = await run(['profiles', 'show', 'gw', '-o', 'json'], {configDir: cfg.path})
      expect(listed.json().base_url).toBe(shown)
      const current = await run(['profiles', 'show', '-o', 'json'], {configDir: cfg.path, env: {PAYOPS_API_KEY: emu.keys.test, PAYOPS_BASE_URL: base}})
      expect(current.json().base_url).toBe(shown)
      for (const r of [traced, live, listed, current]) expect(r.stdout + r.stderr).not.toContain(password)
    } finally {
      cfg.cleanup()
    }
  })
})
